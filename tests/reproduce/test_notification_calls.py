"""Calls made by a listener of ``agent/status`` or ``agent/inbox/claimed`` (decisions.md E5, J2).

The recordings are runs of the published dsh packages written by ``conformance/dsh/recorder.mjs``
from the scenarios of ``conformance/dsh/scenarios`` (a ``react`` step is the listener) and kept
under ``tests/reproduce/recordings``:

* ``claimed_listener_steers``: the listener steers at the claim a follow-up from idle makes, inside
  the follow-up's call, where the claim is the call's last effect;
* ``claimed_listener_steers_at_step_boundary``: the same at the step-2 claim, outside any call;
* ``claimed_listener_steers_between_claims``: the claim takes two messages and the listener steers
  at the first ``claimed``: the second comes after the steer's records;
* ``status_idle_listener_follows_up``: the listener of ``idle`` sends a follow-up, which starts the
  next turn inside the listener's call;
* ``error_listener_follows_up``: a step fails and the listener of ``agent/error`` follows up before
  the turn's error end: the call lands at the model's hop ``failing`` (decisions.md G18);
* ``status_listener_cancels`` and ``status_listener_removes``: the listener of ``running`` cancels
  (no turn starts) or removes the waking message (a turn claims nothing) between the waking send's
  splice and its turn start: the call lands at the model's hop ``starting`` (decisions.md G19);
* ``inserted_listener_injects_during_a_waking_send``: the listener of the waking message's
  ``inserted`` injects before the driver starts, the agent still idle, and the claim takes the
  injected message first: the call lands at the model's hop ``waking`` (decisions.md G20).

They reproduce and pass ``check --live``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.check.live_nesting import Nesting
from loopspec.check.live_shape import NOTIFYING
from loopspec.reproduce.files import RecordingFiles
from loopspec.reproduce.run import reproduce
from reproduce import recording_copies as copies

REPRODUCING = ("claimed_listener_steers", "claimed_listener_steers_at_step_boundary",
               "claimed_listener_steers_between_claims", "status_idle_listener_follows_up",
               "inserted_listener_removes_the_injected_message", "discarded_listener_follows_up",
               "error_listener_follows_up", "status_listener_cancels", "status_listener_removes",
               "inserted_listener_injects_during_a_waking_send")


Rows = copies.Rows
_at, _live_violations = copies.row_index, copies.live_violations


def _files(name: str, tmp: Path, change: Callable[[Rows], Rows] | None = None,
           source: Path = copies.REAL_RUNS) -> RecordingFiles:
    return copies.changed_copy(source, name, tmp, change)


@pytest.mark.rule("CLAIM-4", "NOTIFY-4", "STATUS-1")
@pytest.mark.parametrize("name", REPRODUCING)
def test_a_run_whose_notification_listener_calls_reproduces_and_checks(tmp_path: Path, name: str) -> None:
    files = _files(name, tmp_path)
    assert any(row.get("within") in NOTIFYING for row in copies.lines_of(files.live))
    copies.assert_reproduces_and_checks(files)


@pytest.mark.rule("CLAIM-4")
def test_a_claim_delivers_its_later_notifications_after_the_listeners_call(tmp_path: Path) -> None:
    rows = copies.lines_of(_files("claimed_listener_steers_between_claims", tmp_path).live)
    steer_end = _at(rows, kind="op-end", op="steer")
    assert rows[steer_end + 1]["type"] == "agent/inbox/claimed"  # u1's, after the steer's records
    assert rows[steer_end + 2] == {**rows[steer_end + 2], "kind": "op-end", "op": "followup"}


@pytest.mark.rule("INPUT-2", "CANCEL-3", "STATUS-1")
def test_a_running_listeners_cancel_starts_no_turn(tmp_path: Path) -> None:
    """The cancel lands at the hop starting: the driver's turn checks for the abort before its
    turn/start, so the log holds the send's splice and the cancel's clear, and the agent goes idle."""
    files = _files("status_listener_cancels", tmp_path)
    assert [row["type"] for row in copies.lines_of(files.events)] == ["agent/inbox/spliced", "agent/inbox/spliced"]
    rows = copies.lines_of(files.live)
    statuses = [row["status"] for row in rows if row.get("type") == "agent/status"]
    assert statuses == ["running", "idle"]
    copies.assert_reproduces_and_checks(files)


def _steer_dropped(rows: Rows) -> Rows:
    i = _at(rows, kind="op-begin", within="agent/inbox/claimed")
    return [*rows[: i + 1], *rows[i + 3 :]]  # the steer's durable splice and its inserted


def _follow_up_wrote_less(rows: Rows) -> Rows:
    i = _at(rows, kind="op-end", op="followup", within="agent/status")
    after = rows[i]["nextSeqAfter"]
    assert isinstance(after, int)
    rows[i]["nextSeqAfter"] = after - 1
    return rows


# (recording, change, what the difference names, its rule)
DIFFERENCES = [
    ("claimed_listener_steers", _steer_dropped, "before the call 'steer' returned", "SPLICE-1"),
    ("status_idle_listener_follows_up", _follow_up_wrote_less, "nextSeqAfter", "NOTIFY-4"),
]


@pytest.mark.rule("NOTIFY-4", "SPLICE-1")
@pytest.mark.parametrize(("name", "change", "what", "rule"), DIFFERENCES, ids=[d[2] for d in DIFFERENCES])
def test_a_changed_notification_listener_call_is_a_difference(tmp_path: Path, name: str,
                                                              change: Callable[[Rows], Rows], what: str,
                                                              rule: str) -> None:
    copies.assert_different(_files(name, tmp_path, change), what, rule)


def _after_another_record(rows: Rows) -> Rows:
    begin = _at(rows, kind="op-begin", within="agent/inbox/claimed")
    return [*rows[:begin], {"kind": "note", "text": "looked"}, *rows[begin:]]


def _wrong_notification(rows: Rows) -> Rows:
    for row in rows:
        if row.get("within") == "agent/inbox/claimed":
            row["within"] = "agent/status"
    return rows


def _scenario_call_inside_a_call(rows: Rows) -> Rows:
    for row in rows:
        if row.get("within") == "agent/inbox/claimed":
            del row["within"]
    return rows


def _end_without_within(rows: Rows) -> Rows:
    i = _at(rows, kind="op-end", within="agent/inbox/claimed")
    del rows[i]["within"]
    return rows


def _not_a_recorded_notification(rows: Rows) -> Rows:
    for row in rows:
        if row.get("within") == "agent/inbox/claimed":
            row["within"] = "agent/inbox/inserted"
    return rows


# (recording, change, the line of the misplaced record, what the problem names)
MISPLACED = [
    ("claimed_listener_steers_at_step_boundary", _after_another_record, 30,
     "does not follow an agent/inbox/claimed record"),
    ("claimed_listener_steers", _wrong_notification, 8, "does not follow an agent/status record"),
    ("claimed_listener_steers", _scenario_call_inside_a_call, 8, "begins inside the call 'followup'"),
    ("claimed_listener_steers", _end_without_within, 11, "does not close the call begun last"),
    ("claimed_listener_steers", _not_a_recorded_notification, 8, "agent/inbox/inserted"),
]


@pytest.mark.rule("LOG-13")
@pytest.mark.parametrize(("name", "change", "line", "named"), MISPLACED, ids=[m[3] + m[0] for m in MISPLACED])
def test_misplaced_notification_calls_are_unusable_and_violate_the_form(
        tmp_path: Path, name: str, change: Callable[[Rows], Rows], line: int, named: str) -> None:
    copies.assert_misplaced(_files(name, tmp_path, change), line, named)


def test_a_notification_listener_may_call_again_after_its_call_returns() -> None:
    nesting = Nesting()
    status = {"kind": "live", "type": "agent/status", "nextSeq": 4, "status": "idle"}
    begin = {"kind": "op-begin", "op": "followup", "args": {"id": "u"}, "nextSeq": 4, "within": "agent/status"}
    end = {"kind": "op-end", "op": "followup", "args": {"id": "u"}, "nextSeqBefore": 4, "nextSeqAfter": 7,
           "result": None, "within": "agent/status"}
    marker = {"kind": "durable", "seq": 7, "type": "agent/inbox/spliced"}
    assert [nesting.feed(n, rec) for n, rec in enumerate((status, begin, end, begin, end), start=1)] == [None] * 5
    assert nesting.feed(6, marker) is None
    assert nesting.feed(7, begin) == ("call 'followup' is made within agent/status, but does not follow an "
                                      "agent/status record: a notification's listener calls while the "
                                      "notification is delivered, right after it")


@pytest.mark.rule("NOTIFY-4")
def test_a_notification_listeners_call_owes_its_own_notifications_before_it_returns(tmp_path: Path) -> None:
    def inserted_dropped(rows: Rows) -> Rows:
        i = _at(rows, kind="op-begin", within="agent/inbox/claimed")
        return [*rows[: i + 2], *rows[i + 3 :]]  # the steer's inserted

    files = _files("claimed_listener_steers_between_claims", tmp_path, inserted_dropped)
    rule, line, message = _live_violations(files)[0]
    assert (rule, line) == ("NOTIFY-4", 15)  # its op-end, not the later claimed the claim still owes
    assert message == "notifications missing before the op-end of 'steer' within agent/inbox/claimed: inserted s1"
    assert reproduce(files).status == "different"
