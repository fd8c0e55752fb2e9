"""Calls made by a listener (decisions.md E5, G24): recorded within their hook's window, reproduced, checked.

The recordings are runs of the published dsh packages written by ``conformance/dsh/recorder.mjs``
and kept under ``tests/reproduce/recordings``:

* ``listener_cancels_the_turn``: a pre-step listener steers a message, then cancels the turn;
* ``listener_call_refused``: a pre-step listener's append is refused (the id is pending), and the
  listener throws that refusal; the scenario's own ``inject`` falls inside the same window;
* ``turn_stopping_steers``: a turn-stopping listener steers, which extends the turn;
* ``turn_stopping_call_refused``: a turn-stopping listener steers twice, the second is refused;
* ``prestep_enters_an_id_twice``: a listener adds a message whose id the batch holds (E2).

Each must reproduce and pass ``check --live``; each change below must be a difference, or, where
the records no longer nest as the format says, unusable input for ``reproduce`` and a LOG-13
violation for ``check --live``, both naming the line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.check.live_nesting import Nesting
from loopspec.reproduce.files import RecordingFiles
from loopspec.reproduce.run import reproduce
from reproduce.recording_copies import (
    REAL_RUNS,
    Rows,
    assert_different,
    assert_misplaced,
    assert_reproduces_and_checks,
    changed_copy,
    lines_of,
    live_violations,
    row_index,
)

NESTED = ("listener_cancels_the_turn", "listener_call_refused", "turn_stopping_steers", "turn_stopping_call_refused",
          "prestep_enters_an_id_twice")


def _files(name: str, tmp: Path, change: Callable[[Rows], Rows] | None = None) -> RecordingFiles:
    return changed_copy(REAL_RUNS, name, tmp, change)


_at, _live_violations = row_index, live_violations


@pytest.mark.rule("DECIDE-3", "DECIDE-7", "RESULT-4")
@pytest.mark.parametrize("name", NESTED)
def test_a_run_whose_listeners_call_the_agent_reproduces_and_checks(tmp_path: Path, name: str) -> None:
    files = _files(name, tmp_path)
    assert any("within" in row for row in lines_of(files.live)) or name == "prestep_enters_an_id_twice"
    assert_reproduces_and_checks(files)


def _refused_is_accepted(rows: Rows) -> Rows:
    i = _at(rows, kind="op-end", within="agent/pre-step")
    rows[i] = {**{k: v for k, v in rows[i].items() if k != "threw"}, "result": None}
    return rows


def _steer_wrote_nothing(rows: Rows) -> Rows:
    i = _at(rows, kind="op-end", op="steer", within="agent/pre-step")
    rows[i]["nextSeqAfter"] = rows[i]["nextSeqBefore"]
    return rows


def _output_dropped(rows: Rows) -> Rows:
    i = _at(rows, kind="op-begin", within="agent/turn-stopping")
    return [*rows[: i + 1], *rows[i + 3 :]]  # the steer's durable splice and its inserted


def _threw_without_error(rows: Rows) -> Rows:
    i = _at(rows, kind="live", type="agent/turn-stopping", phase="threw")
    rows[i] = {"kind": "live", "type": "agent/turn-stopping", "phase": "threw", "nextSeq": rows[i]["nextSeq"],
               "turn": rows[i]["turn"], "error": "Error: another"}
    return rows


# (recording, change, what the difference names, its rule)
DIFFERENCES = [
    ("listener_call_refused", _refused_is_accepted, "refused", "SPLICE-3"),
    ("listener_cancels_the_turn", _steer_wrote_nothing, "nextSeqAfter", "NOTIFY-4"),
    ("turn_stopping_steers", _output_dropped, "before the call 'steer' returned", "SPLICE-1"),
    # the listener throws another error than its refused call's: the agent/error carries the listener's
    ("turn_stopping_call_refused", _threw_without_error, "the agent/error notification", "END-2"),
]


@pytest.mark.rule("DECIDE-3", "RESULT-4")
@pytest.mark.parametrize(("name", "change", "what", "rule"), DIFFERENCES, ids=[d[2] for d in DIFFERENCES])
def test_a_changed_listener_call_is_a_difference(tmp_path: Path, name: str, change: Callable[[Rows], Rows],
                                                 what: str, rule: str) -> None:
    assert_different(_files(name, tmp_path, change), what, rule)


def _within_removed_from_end(rows: Rows) -> Rows:
    i = _at(rows, kind="op-end", within="agent/pre-step")
    rows[i] = {k: v for k, v in rows[i].items() if k != "within"}
    return rows


def _call_after_the_window(rows: Rows) -> Rows:
    i = _at(rows, kind="live", type="agent/pre-step", phase="decided")
    first = _at(rows, kind="op-begin", within="agent/pre-step")
    return [*rows[:first], rows[i], *rows[first:i], *rows[i + 1 :]]


def _window_closes_inside_its_call(rows: Rows) -> Rows:
    i = _at(rows, kind="live", type="agent/turn-stopping", phase="returned")
    begin = _at(rows, kind="op-begin", within="agent/turn-stopping")
    return [*rows[: begin + 1], rows[i], *rows[begin + 1 : i], *rows[i + 1 :]]


def _invoked_twice(rows: Rows) -> Rows:
    i = _at(rows, kind="live", type="agent/turn-stopping", phase="invoked")
    return [*rows[: i + 1], rows[i], *rows[i + 1 :]]


def _wrong_hook(rows: Rows) -> Rows:
    for row in rows:
        if row.get("within") == "agent/turn-stopping":
            row["within"] = "agent/pre-step"
    return rows


def _call_inside_a_call(rows: Rows) -> Rows:
    end = _at(rows, kind="op-end", op="steer", within="agent/pre-step")
    cancel = _at(rows, kind="op-begin", op="cancel")  # moved in front of the steer's op-end
    return [*rows[:end], rows[cancel], *rows[end:cancel], *rows[cancel + 1 :]]


# (recording, change, the line of the misplaced record, what the problem names)
MISPLACED = [
    ("listener_call_refused", _within_removed_from_end, 15, "does not close the call begun last"),
    ("listener_cancels_the_turn", _call_after_the_window, 11, "no agent/pre-step listener is running here"),
    ("turn_stopping_steers", _window_closes_inside_its_call, 23, "while its call 'steer'"),
    ("turn_stopping_steers", _invoked_twice, 22, "invoked again"),
    ("turn_stopping_steers", _wrong_hook, 22, "no agent/pre-step listener is running here"),
    ("listener_cancels_the_turn", _call_inside_a_call, 13, "begins inside the call 'steer'"),
]


@pytest.mark.rule("LOG-13")
@pytest.mark.parametrize(("name", "change", "line", "named"), MISPLACED, ids=[m[3] for m in MISPLACED])
def test_misplaced_listener_calls_are_unusable_and_violate_the_form(
        tmp_path: Path, name: str, change: Callable[[Rows], Rows], line: int, named: str) -> None:
    assert_misplaced(_files(name, tmp_path, change), line, named)


def test_a_listener_that_goes_on_after_its_call_threw_is_replayed_call_by_call(tmp_path: Path) -> None:
    """A listener's calls are commands where they stand (decisions G24): one the model refuses is
    refused, and the listener's own outcome says what comes next.  Here the recorded listener
    returns after its refused steer instead of throwing it, so the model goes on with the steered
    message (a claim), where the recording still shows the throw's agent/error."""
    def returned(rows: Rows) -> Rows:
        i = _at(rows, kind="live", type="agent/turn-stopping", phase="threw")
        rows[i] = {k: v for k, v in rows[i].items() if k != "error"} | {"phase": "returned"}
        return rows

    outcome = reproduce(_files("turn_stopping_call_refused", tmp_path, returned))
    assert outcome.status == "different"
    assert outcome.difference is not None
    assert (outcome.difference.line, outcome.difference.what) == (29, "the agent/error notification")


def test_a_process_boundary_ends_every_listener_window() -> None:
    nesting = Nesting()
    invoked = {"kind": "live", "type": "agent/pre-step", "phase": "invoked", "nextSeq": 3, "turn": 1, "step": 1,
               "messageIds": ["u1"]}
    call = {"kind": "op-begin", "op": "steer", "args": {"id": "s"}, "nextSeq": 3, "within": "agent/pre-step"}
    assert nesting.feed(1, invoked) is None
    assert nesting.feed(2, {"kind": "note", "text": "the process is killed here", "crash": True}) is None
    assert nesting.feed(3, call) == "call 'steer' is made within agent/pre-step, but no agent/pre-step listener " \
                                    "is running here"
    assert nesting.feed(4, invoked) is None  # the next process's listener: a window of its own
    assert nesting.feed(5, call) is None
    assert nesting.finish() == "call 'steer' begun on line 5 has no op-end"
