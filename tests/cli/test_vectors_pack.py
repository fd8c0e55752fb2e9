"""``loopspec vectors pack``: one archive per version, byte-for-byte reproducible, runnable once unpacked."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
import tarfile
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.rules.shipped import package_version, spec_digest
from loopspec.vectors.adapter.client import PROTOCOL
from loopspec.vectors.pack import archive_name, pack
from loopspec.vectors.suite import SUITE_FORMAT

# The tests of the packed fixture run on one worker: packing is most of their time, done once.
SHARES_THE_PACKED = pytest.mark.xdist_group("packed-archives")


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    first = tmp_path_factory.mktemp("first")
    second = tmp_path_factory.mktemp("second")
    assert main(["vectors", "pack", "--out", str(first)]) == 0
    assert main(["vectors", "pack", "--out", str(second)]) == 0
    name = archive_name(package_version())
    return first / name, second / name


@SHARES_THE_PACKED
def test_the_same_version_packs_to_the_same_bytes(packed: tuple[Path, Path]) -> None:
    first, second = packed
    assert first.name == f"loopspec-vectors-{package_version()}.tar.gz"
    assert first.read_bytes() == second.read_bytes()


@SHARES_THE_PACKED
def test_the_archive_metadata_is_fixed(packed: tuple[Path, Path]) -> None:
    data = packed[0].read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert data[4:8] == b"\0\0\0\0", "gzip header time"
    assert not data[3] & 0x08, "gzip header carries no file name"
    root = f"loopspec-vectors-{package_version()}"
    with tarfile.open(packed[0]) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names[0] == root
    assert all(n == root or n.startswith(root + "/") for n in names)
    assert names == [root, *sorted(names[1:])]
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert {m.mode for m in members if m.isfile()} == {0o644}
    assert {m.mode for m in members if m.isdir()} == {0o755}


@SHARES_THE_PACKED
def test_the_manifest_names_formats_version_and_digest(packed: tuple[Path, Path]) -> None:
    root = f"loopspec-vectors-{package_version()}"
    with tarfile.open(packed[0]) as tar:
        handle = tar.extractfile(f"{root}/manifest.json")
        assert handle is not None
        manifest = json.loads(handle.read())
        for entry in manifest["cases"]:
            case = tar.extractfile(f"{root}/{entry['path']}")
            assert case is not None
            assert hashlib.sha256(case.read()).hexdigest() == entry["sha256"]
    assert (manifest["format"], manifest["protocol"]) == (SUITE_FORMAT, PROTOCOL)
    assert manifest["specVersion"] == package_version()
    assert manifest["specDigest"] == spec_digest()
    assert manifest["counts"]["cases"] == len(manifest["cases"]) > 50


@SHARES_THE_PACKED
def test_the_unpacked_suite_runs(packed: tuple[Path, Path], tmp_path: Path) -> None:
    with tarfile.open(packed[0]) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(tmp_path, filter="data")
        else:  # pragma: no cover
            tar.extractall(tmp_path)
    suite = tmp_path / f"loopspec-vectors-{package_version()}"
    assert main(["vectors", "run", str(suite), "--", sys.executable, "-m", "loopspec", "adapter"]) == 0


def test_version_seed_and_count_are_what_changes_the_bytes(tmp_path: Path) -> None:
    base, _ = pack(tmp_path / "a", count=2, version="9.9.9")
    again, _ = pack(tmp_path / "b", count=2, version="9.9.9")
    other, _ = pack(tmp_path / "c", count=2, version="9.9.10")
    seeded, _ = pack(tmp_path / "d", seed=1, count=2, version="9.9.9")
    assert base.read_bytes() == again.read_bytes()
    assert base.name == "loopspec-vectors-9.9.9.tar.gz"
    assert other.name == "loopspec-vectors-9.9.10.tar.gz"
    assert gzip.decompress(base.read_bytes()) != gzip.decompress(seeded.read_bytes())
    assert base.read_bytes() != other.read_bytes()


def test_an_unwritable_target_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert main(["vectors", "pack", "--out", str(blocker / "sub")]) == 2
    assert "cannot write" in capsys.readouterr().err
