"""A plain clone is the whole project: no tracked file reads, links or names material outside it.

The reference material the project was built from lives beside our own checkout, not in a
stranger's clone; a test, script or document that points there works for us and breaks for them.
The patterns are assembled from pieces so that this file does not match itself.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO

OUTSIDE = re.compile(r"\.\./shared|/shared/(?:reference|seeds)")


def _tracked() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as err:  # a clone always has git; an unpacked sdist does not
        pytest.fail(f"cannot list the tracked files with git ls-files: {err}")
    return [name for name in listed.stdout.decode("utf-8").split("\0") if name]


def test_no_tracked_file_refers_outside_the_repository() -> None:
    files = _tracked()
    assert len(files) > 100, "git ls-files listed almost nothing: the check would pass vacuously"
    offenders = []
    for name in files:
        path = REPO / name
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        offenders += [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}" for m in OUTSIDE.finditer(text)]
    assert not offenders, "tracked files refer to material outside the repository:\n" + "\n".join(offenders)


def test_the_pattern_catches_each_form() -> None:
    dots = ".."
    for text in (f"{dots}/shared/x", "/work/shared" + "/reference/real-traces", "x/shared" + "/seeds/README.md"):
        assert OUTSIDE.search(text), text
    assert not OUTSIDE.search("shared shapes, a shared/ folder of our own")


def test_the_recordings_are_in_the_repository() -> None:
    """Every recorded session has its log, live stream and final state, all tracked."""
    tracked = set(_tracked())
    names = sorted(p.name.removesuffix(".events.jsonl") for p in REAL_TRACES.glob("*.events.jsonl"))
    assert len(names) >= 8, names
    for name in names:
        for suffix in (".events.jsonl", ".live.jsonl", ".final.json"):
            rel = (REAL_TRACES / f"{name}{suffix}").relative_to(REPO).as_posix()
            assert rel in tracked, f"{rel} is missing or not tracked"


def test_an_empty_parameter_list_fails_collection(tmp_path: Path) -> None:
    """A parameter list read from the repository that comes out empty (say, a folder gone missing
    in a clone) fails the run instead of collecting zero tests; the setting lives in pyproject.toml."""
    test = tmp_path / "test_vanishing.py"
    test.write_text(
        "import pathlib\nimport pytest\n\n"
        "@pytest.mark.parametrize('path', sorted(pathlib.Path('nowhere').glob('*.jsonl')))\n"
        "def test_each(path):\n    assert path\n",
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
                           str(REPO / "pyproject.toml"), "--rootdir", str(tmp_path), str(test)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stdout
    assert "Empty parameter set" in done.stdout, done.stdout
