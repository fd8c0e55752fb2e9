"""A graceful shutdown while a pre-step listener waits (LOG-13, decisions.md G15).

The recordings are runs of the published dsh packages written by ``conformance/dsh/recorder.mjs``
from the scenarios of ``conformance/dsh/scenarios`` and kept under ``tests/reproduce/recordings``:

* ``disposal_while_pre_step_listener_returns``: the host shuts the agent down while the pre-step
  listener of step 1 waits; the listener returns once the teardown began, so its ``decided``
  follows the graceful note;
* ``disposal_while_pre_step_listener_throws``: the same, but the teardown refuses the listener,
  whose ``threw`` follows the note.

In both the loop's writes after the listener came back were made once the session was detached:
the next process finds the turn open and repairs it (``interrupted``).  Fresh runs with another
host's wiring persisted ``turn/end aborted {disposed}`` and its ``idle`` instead; that order is
the second shape below.  ``check --live`` called all of them misplaced (LOG-1) and ``reproduce``
called them unusable until the graceful note stopped closing listener windows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.reproduce.files import RecordingFiles
from loopspec.reproduce.run import reproduce
from reproduce.recording_copies import (
    REAL_RUNS,
    Rows,
    assert_misplaced,
    assert_reproduces_and_checks,
    changed_copy,
    lines_of,
    row_index,
)

RUNS = ("disposal_while_pre_step_listener_returns", "disposal_while_pre_step_listener_throws")
_CLOSED = {"disposal_while_pre_step_listener_returns": "decided", "disposal_while_pre_step_listener_throws": "threw"}


def _files(name: str, tmp: Path, change: Callable[[Rows], Rows] | None = None) -> RecordingFiles:
    return changed_copy(REAL_RUNS, name, tmp, change)


@pytest.mark.rule("LOG-13", "CANCEL-3", "REPAIR-1")
@pytest.mark.parametrize("name", RUNS)
def test_the_listener_comes_back_after_the_graceful_note(tmp_path: Path, name: str) -> None:
    files = _files(name, tmp_path)
    rows = lines_of(files.live)
    note = row_index(rows, kind="note", crash=False)
    closed = row_index(rows, kind="live", type="agent/pre-step", phase=_CLOSED[name])
    assert row_index(rows, kind="live", type="agent/pre-step", phase="invoked") < note < closed
    assert_reproduces_and_checks(files)


def _turn_end_persisted(files: RecordingFiles) -> None:
    """The other host's order: the aborted turn's end reaches the log, marked, then ``idle``."""
    events = lines_of(files.events)
    assert events[3]["type"] == "turn/end"
    events[3]["data"] = {"turn": 1, "reason": {"kind": "aborted", "reason": {"kind": "disposed"}}}
    files.events.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    rows = lines_of(files.live)
    closed = next(i for i, row in enumerate(rows) if row.get("phase") in ("decided", "threw"))
    rows[closed + 1:closed + 1] = [{"kind": "durable", "seq": 3, "type": "turn/end"},
                                   {"kind": "live", "type": "agent/status", "nextSeq": 4, "status": "idle"}]
    files.live.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


@pytest.mark.rule("LOG-13", "CANCEL-3", "STATUS-1")
@pytest.mark.parametrize("name", RUNS)
def test_the_aborted_turn_may_end_before_the_session_is_detached(tmp_path: Path, name: str) -> None:
    files = _files(name, tmp_path)
    _turn_end_persisted(files)
    assert_reproduces_and_checks(files)


def _crash_instead(rows: Rows) -> Rows:
    i = row_index(rows, kind="note", crash=False)
    rows[i] = {**rows[i], "crash": True, "text": "the process is killed here"}
    return rows


def _never_closed(rows: Rows) -> Rows:
    return [row for row in rows if row.get("phase") not in ("decided", "threw") or row.get("turn") != 1]


@pytest.mark.rule("LOG-13")
@pytest.mark.parametrize("name", RUNS)
def test_a_killed_process_s_listener_never_comes_back(tmp_path: Path, name: str) -> None:
    assert_misplaced(_files(name, tmp_path, _crash_instead), 11, f"agent/pre-step {_CLOSED[name]} with no")


@pytest.mark.rule("LOG-13")
@pytest.mark.parametrize("name", RUNS)
def test_the_next_process_cannot_start_before_the_listener_came_back(tmp_path: Path, name: str) -> None:
    assert_misplaced(_files(name, tmp_path, _never_closed), 11, "the next process starts while the agent/pre-step "
                     "listener invoked on line 9 (turn 1 step 1) has not returned")


def _tail_unheard(rows: Rows) -> Rows:
    """The observer was detached before the aborted turn's end and its idle: both go unheard."""
    closed = next(i for i, row in enumerate(rows) if row.get("phase") in ("decided", "threw"))
    return [*rows[:closed + 1], *rows[closed + 3:]]


@pytest.mark.rule("LOG-5", "REPAIR-4")
@pytest.mark.parametrize("name", RUNS)
def test_an_unheard_turn_end_may_still_have_been_persisted(tmp_path: Path, name: str) -> None:
    """The session outlived the observer: the log holds the turn's end that the stream never showed."""
    files = _files(name, tmp_path)
    _turn_end_persisted(files)
    rows = _tail_unheard(lines_of(files.live))
    files.live.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert_reproduces_and_checks(files)


@pytest.mark.rule("LOG-5")
@pytest.mark.parametrize("name", RUNS)
def test_a_heard_record_after_an_unheard_one_is_a_difference(tmp_path: Path, name: str) -> None:
    """The turn's end went unheard, but its idle was heard: no order of a detachment gives that."""
    files = _files(name, tmp_path)
    _turn_end_persisted(files)
    rows = lines_of(files.live)
    marker = row_index(rows, kind="durable", seq=3, type="turn/end")
    files.live.write_text("".join(json.dumps(row) + "\n" for i, row in enumerate(rows) if i != marker),
                          encoding="utf-8")
    assert reproduce(files).status == "different"


@pytest.mark.rule("CANCEL-3", "REPAIR-1", "LOG-5")
def test_a_graceful_teardown_answers_the_await_point_it_waits_at(tmp_path: Path) -> None:
    """Seed 67 of the random lifecycles (decisions.md G21): the shutdown lands right after the model's
    stream failed; the teardown's cancel is recorded, then the request-error hook returns and the
    loop ends the turn aborted {disposed} with the observer detached.  The next process finds the
    turn closed; the model answers the step from the log before it restarts, so it repairs nothing."""
    files = _files("shutdown_while_a_failed_stream_is_handled", tmp_path)
    rows, events = lines_of(files.live), lines_of(files.events)
    note = row_index(rows, kind="note", crash=False)
    marked = {row["seq"] for row in rows if row.get("kind") == "durable"}
    after = rows[note]["nextSeq"]
    assert isinstance(after, int)
    end = next(e for e in events if e["type"] == "turn/end" and isinstance(e["seq"], int) and e["seq"] >= after)
    assert end["seq"] not in marked, "the teardown's turn/end is in the log, unmarked"
    data = end["data"]
    assert isinstance(data, dict)
    assert data["reason"] == {"kind": "aborted", "reason": {"kind": "disposed"}}
    assert rows[note - 1] == {"kind": "durable", "seq": after - 1, "type": "assistant/chunk"}
    assert_reproduces_and_checks(files)
