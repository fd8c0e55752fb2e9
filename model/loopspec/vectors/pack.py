"""``loopspec vectors pack``: the conformance suite as one versioned, reproducible archive.

``loopspec-vectors-VERSION.tar.gz`` holds the suite :func:`loopspec.vectors.suite.generate` writes
(its ``manifest.json`` names the suite, case and adapter formats, the package version and the spec
digest) under one folder ``loopspec-vectors-VERSION/``, so an implementation's CI can pin a suite
by version and checksum.  Same version, seed and count, same bytes: entries in sorted order,
every timestamp 0, owner 0/0 with no names, fixed modes, and a gzip header without name or time.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import tempfile
from pathlib import Path

from loopspec.rules.shipped import package_version
from loopspec.vectors.json_reading import Json
from loopspec.vectors.suite import generate

ARCHIVE_PREFIX = "loopspec-vectors"
FILE_MODE, DIR_MODE = 0o644, 0o755
COMPRESS_LEVEL = 9


def archive_name(version: str) -> str:
    return f"{ARCHIVE_PREFIX}-{version}.tar.gz"


def _entry(name: str, *, size: int = 0, folder: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE if folder else tarfile.REGTYPE
    info.mode = DIR_MODE if folder else FILE_MODE
    info.size = size
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def tar_bytes(folder: Path, root: str) -> bytes:
    """An uncompressed POSIX tar of ``folder`` under ``root/``, in sorted path order, with fixed metadata."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(_entry(root, folder=True))
        for path in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).as_posix()):
            name = f"{root}/{path.relative_to(folder).as_posix()}"
            if path.is_dir():
                tar.addfile(_entry(name, folder=True))
            else:
                data = path.read_bytes()
                tar.addfile(_entry(name, size=len(data)), io.BytesIO(data))
    return buffer.getvalue()


def gzip_bytes(data: bytes) -> bytes:
    """gzip with no file name and modification time 0 in its header."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=COMPRESS_LEVEL) as out:
        out.write(data)
    return buffer.getvalue()


def pack(out: Path, seed: int = 0, count: int = 20, version: str | None = None) -> tuple[Path, Json]:
    """Generate the suite and write its archive into ``out``; the archive's path and the suite's manifest."""
    version = version or package_version()
    root = f"{ARCHIVE_PREFIX}-{version}"
    out.mkdir(parents=True, exist_ok=True)  # before the generation: a target that cannot be made fails at once
    with tempfile.TemporaryDirectory(prefix="loopspec-pack-") as scratch:
        suite = Path(scratch) / root
        manifest = generate(suite, seed=seed, count=count)
        data = gzip_bytes(tar_bytes(suite, root))
    target = out / archive_name(version)
    target.write_bytes(data)
    return target, manifest
