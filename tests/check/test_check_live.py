"""``loopspec check --live``: the live stream against its durable log (NOTIFY, STATUS, CLAIM-4, END-2).

The real traces' live streams are accepted (test_check_examples); here each is broken in one
way and must be rejected with the rule the break violates.  The crash quirk of
``resume_crash_mid_turn`` (the dead process still reports two splices the persisted log lacks)
is accepted only because the records between a crash note and the next note are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions, check_file

Record = dict[str, object]
Edit = Callable[[list[Record]], list[Record]]


def _records(name: str) -> list[Record]:
    lines = (REAL_TRACES / f"{name}.live.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _check(tmp: Path, log: Path, records: list[Record]) -> tuple[str, ...]:
    live = tmp / "x.live.jsonl"
    live.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return check_file(log, CheckOptions(all=True), live=live).rules


def _index(records: list[Record], **match: object) -> int:
    return next(i for i, r in enumerate(records) if all(r.get(k) == v for k, v in match.items()))


def _claimed(records: list[Record], mid: str) -> int:
    return next(i for i, r in enumerate(records) if r.get("type") == "agent/inbox/claimed"
                and isinstance(r["message"], dict) and r["message"]["id"] == mid)


def _without(i: int, records: list[Record]) -> list[Record]:
    return [*records[:i], *records[i + 1 :]]


def _swap(i: int, records: list[Record]) -> list[Record]:
    return [*records[:i], records[i + 1], records[i], *records[i + 2 :]]


def _drop_claimed(r: list[Record]) -> list[Record]:
    return _without(_claimed(r, "u2"), r)


def _swap_claimed(r: list[Record]) -> list[Record]:
    return _swap(_claimed(r, "i1"), r)


def _claimed_turn(r: list[Record]) -> list[Record]:
    r[_claimed(r, "u3")]["turn"] = 2
    return r


def _claimed_early(r: list[Record]) -> list[Record]:
    return _swap(_index(r, kind="durable", seq=17), r)  # claimed i1 moves between the two claim records


def _discard_for_claim(r: list[Record]) -> list[Record]:
    record = r[_claimed(r, "u3")]
    record["type"] = "agent/inbox/discarded"
    del record["turn"]
    return r


def _extra_field(r: list[Record]) -> list[Record]:
    r[_index(r, type="agent/inbox/inserted")]["outcome"] = "inserted"
    return r


def _replace_order(r: list[Record]) -> list[Record]:
    return _swap(_index(r, type="agent/inbox/discarded"), r)


def _other_message(r: list[Record]) -> list[Record]:
    note = r[_index(r, type="agent/inbox/inserted")]
    note["message"] = {**note["message"], "id": "not-u1"}  # type: ignore[dict-item]
    return r


def _late_discard(r: list[Record]) -> list[Record]:
    return _swap(_index(r, type="agent/inbox/discarded"), r)  # s1's discarded after the next record (seq 13)


def _status_twice(r: list[Record]) -> list[Record]:
    i = _index(r, type="agent/status")
    return [*r[: i + 1], dict(r[i]), *r[i + 1 :]]


def _marker_type(r: list[Record]) -> list[Record]:
    r[_index(r, kind="durable", seq=3)]["type"] = "turn/start"
    return r


def _marker_missing(r: list[Record]) -> list[Record]:
    return _without(_index(r, kind="durable", seq=5), r)


def _stream_ends_early(r: list[Record]) -> list[Record]:
    return r[: _index(r, kind="durable", seq=10)]


def _no_crash_note(r: list[Record]) -> list[Record]:
    r[_index(r, kind="note")].pop("crash")
    return r


BREAKS: list[tuple[str, str, Edit, str]] = [
    ("resume_crash_mid_turn", "a claimed notification missing", _drop_claimed, "CLAIM-4"),
    ("resume_crash_mid_turn", "claimed notifications out of batch order", _swap_claimed, "CLAIM-4"),
    ("resume_crash_mid_turn", "claimed names another turn", _claimed_turn, "CLAIM-4"),
    ("resume_crash_mid_turn", "claimed before the claim's last record", _claimed_early, "CLAIM-4"),
    ("three_quick_followups", "discarded for a claimed message", _discard_for_claim, "CLAIM-4"),
    ("single_followup", "an inbox notification with a placement field", _extra_field, "NOTIFY-1"),
    ("inbox_replace", "replace notifies inserted before discarded", _replace_order, "NOTIFY-3"),
    ("single_followup", "inserted names another message", _other_message, "NOTIFY-2"),
    ("cancel_with_pending_inbox", "discarded after the next durable record", _late_discard, "NOTIFY-4"),
    ("single_followup", "agent/status repeats a value", _status_twice, "STATUS-1"),
    ("steer_during_tool_call", "a durable marker is missing", _marker_missing, "LOG-5"),
    ("three_quick_followups", "the stream ends before the log", _stream_ends_early, "LOG-5"),
]


@pytest.mark.rule("CLAIM-4", "NOTIFY-1", "NOTIFY-2", "NOTIFY-3", "NOTIFY-4", "STATUS-1", "LOG-5")
@pytest.mark.parametrize(("name", "edit", "rule"), [(b[0], b[2], b[3]) for b in BREAKS], ids=[b[1] for b in BREAKS])
def test_a_broken_live_stream_is_rejected(tmp_path: Path, name: str, edit: Edit, rule: str) -> None:
    log = REAL_TRACES / f"{name}.events.jsonl"
    assert _check(tmp_path, log, _records(name)) == ()
    assert _check(tmp_path, log, edit(_records(name)))[0] == rule


@pytest.mark.rule("LOG-5")
@pytest.mark.parametrize(("name", "edit", "said"), [
    ("single_followup", _marker_type, 'marks seq 3 as "turn/start"'),
    # Without its crash note, the dead process's markers name the stored log's repair closers.
    ("resume_crash_mid_turn", _no_crash_note, "marks seq 11 as"),
], ids=["a durable marker names another type", "the dead process's reports without a crash note"])
def test_a_stream_whose_markers_name_other_events_is_not_this_logs(tmp_path: Path, name: str, edit: Edit,
                                                                    said: str) -> None:
    """Decisions S9: a marker is the recorder's note of the append it saw, so a marker of another type
    shows a recording of another session (or of a process the log never heard of): the pair is
    unusable input, as render and reproduce say, never a finding against the implementation."""
    live = tmp_path / "x.live.jsonl"
    live.write_text("".join(json.dumps(r) + "\n" for r in edit(_records(name))), encoding="utf-8")
    result = check_file(REAL_TRACES / f"{name}.events.jsonl", CheckOptions(all=True), live=live)
    assert result.status == "unusable", result
    assert result.problem is not None
    assert "is not the live recording of this log" in result.problem
    assert said in result.problem


S5_LOG = [
    {"type": "agent/inbox/spliced", "seq": 0, "time": 1,
     "data": {"target": "next-turn", "start": 0, "inserted": [{"id": "first", "role": "user", "content": [],
                                                               "source": {}}]}},
    {"type": "turn/start", "seq": 1, "time": 2, "data": {"turn": 1}},
    {"type": "agent/inbox/spliced", "seq": 2, "time": 3,
     "data": {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []}},
    {"type": "turn/end", "seq": 3, "time": 4,
     "data": {"turn": 1, "reason": {"kind": "error", "error": {"message": "prompt hook broke", "code": "UNKNOWN"}}}},
]
FIRST = S5_LOG[0]["data"]["inserted"][0]  # type: ignore[index]


def _s5_live(error: Record | None) -> list[Record]:
    records: list[Record] = [
        {"kind": "durable", "seq": 0, "type": "agent/inbox/spliced"},
        {"kind": "live", "type": "agent/inbox/inserted", "nextSeq": 1, "message": FIRST},
        {"kind": "live", "type": "agent/status", "nextSeq": 1, "status": "running"},
        {"kind": "durable", "seq": 1, "type": "turn/start"},
        {"kind": "durable", "seq": 2, "type": "agent/inbox/spliced"},
        {"kind": "live", "type": "agent/inbox/claimed", "nextSeq": 3, "message": FIRST, "turn": 1},
    ]
    if error is not None:
        records.append({"kind": "live", "type": "agent/error", "nextSeq": 3, **error})
    records += [{"kind": "durable", "seq": 3, "type": "turn/end"},
                {"kind": "live", "type": "agent/status", "nextSeq": 4, "status": "idle"}]
    return records


@pytest.mark.rule("END-2", "DECIDE-7")
def test_an_error_end_needs_agent_error_first(tmp_path: Path) -> None:
    """Scenario S5: a throwing pre-step listener: agent/error {turn 1, step 0}, then turn/end error."""
    log = tmp_path / "s5.events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in S5_LOG), encoding="utf-8")
    good = {"turn": 1, "step": 0, "error": {"message": "prompt hook broke"}}
    assert _check(tmp_path, log, _s5_live(good)) == ()
    assert _check(tmp_path, log, _s5_live(None)) == ("END-2",)
    assert _check(tmp_path, log, _s5_live({**good, "step": 1})) == ("END-2",)


@pytest.mark.rule("LOG-1")
def test_an_unreadable_live_record_is_reported(tmp_path: Path) -> None:
    log = REAL_TRACES / "single_followup.events.jsonl"
    live = tmp_path / "x.live.jsonl"
    live.write_bytes((REAL_TRACES / "single_followup.live.jsonl").read_bytes() + b"{not json\n")
    result = check_file(log, CheckOptions(all=True), live=live)
    assert result.rules == ("LOG-1",)
    assert result.violations[0].file == str(live)


GRACEFUL = REPO / "examples" / "logs" / "valid" / "graceful-disposal-then-restart"


def _graceful() -> tuple[Path, list[Record]]:
    lines = GRACEFUL.with_suffix(".live.jsonl").read_text(encoding="utf-8").splitlines()
    return GRACEFUL.with_suffix(".events.jsonl"), [json.loads(line) for line in lines]


def _boundary(records: list[Record]) -> int:
    return _index(records, kind="note", crash=False)


def _disposal_before_the_note(r: list[Record]) -> list[Record]:
    """The disposal's own writes (marked: they are persisted) may come before the note, too."""
    note = _boundary(r)
    end = next(i for i in range(note + 1, len(r)) if r[i].get("kind") == "note")
    return [*r[:note], *r[note + 1 : end], r[note], *r[end:]]


def _no_successor_note(r: list[Record]) -> list[Record]:
    note = _boundary(r)
    successor = next(i for i in range(note + 1, len(r)) if r[i].get("kind") == "note")
    return _without(successor, r)


@pytest.mark.rule("LOG-5", "REPAIR-2", "STATUS-1")
@pytest.mark.parametrize("edit", [lambda r: r, _disposal_before_the_note, _no_successor_note],
                         ids=["as recorded", "disposal before the note", "no successor note"])
def test_a_graceful_boundary_leaves_the_end_seed_unmarked(tmp_path: Path, edit: Edit) -> None:
    """After a disposal (note crash: false) the next process writes session/end-seed while nothing records."""
    log, records = _graceful()
    assert _check(tmp_path, log, edit(records)) == ()


def _mark_nothing_new(r: list[Record]) -> list[Record]:
    """Without the boundary note the unmarked end-seed is a skipped durable event."""
    return _without(_boundary(r), r)


def _unmark_a_disposal_write(r: list[Record]) -> list[Record]:
    """A disposal write goes unmarked, yet a later one of the same process is marked: an observer the
    teardown detached hears nothing more of that process (decisions G2)."""
    note = _boundary(r)
    return _without(next(i for i in range(note, len(r)) if r[i].get("type") == "step/end"), r)


def _unheard_tail(r: list[Record]) -> list[Record]:
    """The teardown detached the observer before the session: the turn's closing writes are persisted
    but unheard, and so is everything after them (seen on the published packages, decisions G2)."""
    note = _boundary(r)
    first = next(i for i in range(note, len(r)) if r[i].get("type") == "step/end")
    successor = next(i for i in range(note + 1, len(r)) if r[i].get("kind") == "note")
    return [*r[:first], *r[successor:]]


@pytest.mark.rule("LOG-5")
@pytest.mark.parametrize("edit", [_mark_nothing_new, _unmark_a_disposal_write],
                         ids=["no boundary note", "a disposal write unmarked before a marked one"])
def test_only_a_tail_of_the_disposal_goes_unmarked_after_a_graceful_boundary(tmp_path: Path, edit: Edit) -> None:
    log, records = _graceful()
    assert _check(tmp_path, log, edit(records))[0] == "LOG-5"


@pytest.mark.rule("LOG-5")
def test_the_disposal_s_last_writes_may_go_unheard(tmp_path: Path) -> None:
    log, records = _graceful()
    assert _check(tmp_path, log, _unheard_tail(records)) == ()
