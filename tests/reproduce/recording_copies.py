"""Copies of recordings with one line changed, for the engine's tests (edits, not hand-written files)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import REPO
from loopspec.reproduce.files import EVENTS, FINAL, LIVE, RecordingFiles

RECORDINGS = REPO / "examples" / "recordings"
SYNTHETIC = REPO / "examples" / "recordings-synthetic"
REAL_RUNS = REPO / "tests" / "reproduce" / "recordings"  # runs of the published packages (decisions E1, E2, E5)
Json = dict[str, object]
Change = Callable[[Json], Json | None]
"""Given a parsed line, the line to write instead, or ``None`` to delete it."""


def copy_recording(source: Path, name: str, dest: Path) -> RecordingFiles:
    dest.mkdir(parents=True, exist_ok=True)
    for suffix in (EVENTS, LIVE, FINAL):
        if (source / f"{name}{suffix}").is_file():
            shutil.copy(source / f"{name}{suffix}", dest / f"{name}{suffix}")
    final = dest / f"{name}{FINAL}"
    return RecordingFiles(name, dest / f"{name}{EVENTS}", dest / f"{name}{LIVE}", final if final.is_file() else None)


def lines_of(path: Path) -> list[Json]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def edit(path: Path, line: int, change: Change) -> None:
    """Replace (or delete) line ``line`` (1-based) of a JSONL file."""
    rows = lines_of(path)
    new = change(rows[line - 1])
    rows[line - 1 : line] = [] if new is None else [new]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def first_line(path: Path, match: Callable[[Json], bool]) -> int:
    """The 1-based line of the first row that ``match`` accepts."""
    return next(n for n, row in enumerate(lines_of(path), start=1) if match(row))
