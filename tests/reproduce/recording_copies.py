"""Copies of recordings with one line changed, for the engine's tests (edits, not hand-written files)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import REPO
from loopspec.check import CheckOptions, check_file
from loopspec.reproduce.files import EVENTS, FINAL, LIVE, RecordingFiles
from loopspec.reproduce.run import reproduce

RECORDINGS = REPO / "examples" / "recordings"
SYNTHETIC = REPO / "examples" / "recordings-synthetic"
REAL_RUNS = REPO / "tests" / "reproduce" / "recordings"  # runs of the published packages (decisions E1, E2, E5)
Json = dict[str, object]
Change = Callable[[Json], Json | None]
"""Given a parsed line, the line to write instead, or ``None`` to delete it."""
Rows = list[Json]


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


def changed_copy(source: Path, name: str, dest: Path, change: Callable[[Rows], Rows] | None = None) -> RecordingFiles:
    """A copy of a recording whose live stream ``change`` rewrote as a whole (rows in, rows out)."""
    files = copy_recording(source, name, dest)
    if change is not None:
        rows = change(lines_of(files.live))
        files.live.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return files


def row_index(rows: Rows, **match: object) -> int:
    """The index of the first row holding every ``key=value`` of ``match``."""
    return next(i for i, row in enumerate(rows) if all(row.get(k) == v for k, v in match.items()))


def live_violations(files: RecordingFiles) -> list[tuple[str, int, str]]:
    """``check --live`` of a recording: each violation's rule, line and message."""
    result = check_file(files.events, CheckOptions(all=True), live=files.live)
    return [(v.rule, v.line, v.message) for v in result.violations]


def assert_different(files: RecordingFiles, what: str, rule: str) -> None:
    """``reproduce`` finds a difference naming ``what``, by ``rule``."""
    outcome = reproduce(files)
    assert outcome.status == "different", outcome.problem
    assert outcome.difference is not None
    assert what in outcome.difference.what
    assert outcome.difference.rule == rule


def assert_misplaced(files: RecordingFiles, line: int, named: str) -> None:
    """Both readers reject the nesting at ``line``: ``reproduce`` as unusable, ``check --live`` as LOG-13."""
    outcome = reproduce(files)
    assert outcome.status == "unusable"
    assert outcome.problem is not None
    assert (outcome.problem.line, named in outcome.problem.message) == (line, True), outcome.problem
    rule, where, message = live_violations(files)[0]
    assert (rule, where, named in message) == ("LOG-13", line, True), message


def assert_reproduces_and_checks(files: RecordingFiles) -> None:
    """``reproduce`` replays the recording and ``check --live`` finds nothing."""
    outcome = reproduce(files)
    assert outcome.status == "reproduced", outcome.difference or outcome.problem
    assert live_violations(files) == []
