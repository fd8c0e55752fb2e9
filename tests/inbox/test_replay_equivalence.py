"""The fast paths behind :func:`fold.replay` and :func:`fold.apply` equal the plain fold (FOLD-5).

``replay`` and ``apply`` keep each list as a Python list with a moving head (``loopspec.inbox.lane.Lane``)
and track pending ids in a set (``loopspec.inbox.pending.PendingLists``); ``reference_apply``
(``tests/inbox/fixtures.py``) states the fold on tuples.  For random logs — valid splices placed
against the current lists, invalid ones (out of range, duplicate ids, malformed data) and foreign
events interleaved — both must end in the same state, or fail with the same rule, seq and
message.  Long lanes with many front removals push ``Lane.head`` past 64 so its compaction runs
between edits at the front, back and middle.  Replaying a log *file* skips freezing the data of
non-splice lines (``EventReader.only``); random files with bad and deeply nested lines show it
fails or succeeds exactly as folding every event does.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from inbox.fixtures import reference_apply
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget
from loopspec.inbox import fold
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import read_events

TARGETS = ("next-turn", "next-step")


def body(mid: str) -> dict[str, object]:
    return {"id": mid, "role": "user", "content": [{"type": "text", "text": mid}], "source": {"kind": "user"}}


def outcome_of(run: Any) -> Any:
    try:
        return run()
    except InvalidEvent as err:
        return ("invalid", err.rule, err.seq, str(err))


def both(events: list[SessionEvent]) -> tuple[Any, Any]:
    normative = outcome_of(lambda: functools.reduce(reference_apply, events, EMPTY_INBOX))
    stepwise = outcome_of(lambda: functools.reduce(fold.apply, events, EMPTY_INBOX))
    fast = outcome_of(lambda: fold.replay(events))
    assert stepwise == normative
    return normative, fast


class LogBuilder:
    """Builds a log while tracking the normative state, so most splices fit and some deliberately do not."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []
        self.state = EMPTY_INBOX
        self.fresh = 0

    def new_id(self) -> str:
        self.fresh += 1
        return f"m{self.fresh}"

    def gone_ids(self) -> list[str]:
        """Ids written before but no longer pending: inserting them again is valid."""
        pending = set(pending_ids(self.state))
        return [f"m{i}" for i in range(1, self.fresh + 1) if f"m{i}" not in pending]

    def lane_ids(self, target: str, start: int, stop: int) -> list[str]:
        lane = self.state.next_turn if target == "next-turn" else self.state.next_step
        return [m.id.value for m in lane[start:stop]]

    def length(self, target: str) -> int:
        return len(self.state.next_turn if target == "next-turn" else self.state.next_step)

    def add(self, etype: str, data: object) -> None:
        stamped = SessionEvent(etype, len(self.events), 0, freeze(data))
        self.events.append(stamped)
        # Keep building past a bad record: the folds must agree on the *first* failure.
        with contextlib.suppress(InvalidEvent):
            self.state = reference_apply(self.state, stamped)

    def splice(self, target: str, start: int, removed: int, inserted: list[str], canceled: bool = False) -> None:
        data: dict[str, object] = {"target": target, "start": start}
        if removed:
            data["removedCount"] = removed
        data["inserted"] = [body(mid) for mid in inserted]
        if canceled:
            data["outcome"] = "canceled"
        self.add(SPLICED, data)


def pending_ids(state: InboxState) -> list[str]:
    return [m.id.value for m in state.next_turn + state.next_step]


@st.composite
def logs(draw: st.DrawFn, max_ops: int = 40) -> list[SessionEvent]:
    b = LogBuilder()
    # A per-log rate of invalid records, so failures land early, late, or never.
    bad_one_in = draw(st.integers(2, 80))
    for _ in range(draw(st.integers(0, max_ops))):
        if draw(st.integers(1, bad_one_in)) == 1:
            kind = draw(st.sampled_from(("bad", "raw")))
        else:
            kind = draw(st.sampled_from(("append", "append", "claim", "cancel", "middle", "foreign")))
        target = draw(st.sampled_from(TARGETS))
        n = b.length(target)
        if kind == "append":
            gone = b.gone_ids()
            ids: list[str] = []
            for _ in range(draw(st.integers(1, 3))):
                reuse = bool(gone) and draw(st.booleans())
                ids.append(draw(st.sampled_from(gone)) if reuse else b.new_id())
            b.splice(target, n, 0, list(dict.fromkeys(ids)))  # reused ids come back (valid), once each
        elif kind == "claim" and n:
            b.splice(target, 0, draw(st.integers(1, n)), [])
        elif kind == "cancel" and n:
            start = draw(st.integers(0, n - 1))
            b.splice(target, start, draw(st.integers(1, n - start)), [], canceled=True)
        elif kind == "middle":
            start = draw(st.integers(0, n))
            removed = draw(st.integers(0, n - start))
            ids = [b.new_id() for _ in range(draw(st.integers(0 if removed else 1, 2)))]
            leaving = b.lane_ids(target, start, start + removed)
            same_id = bool(leaving) and draw(st.booleans())
            if same_id:
                ids.insert(draw(st.integers(0, len(ids))), draw(st.sampled_from(leaving)))  # same-id replacement
            b.splice(target, start, removed, ids, canceled=bool(removed))
        elif kind == "bad":
            pending = pending_ids(b.state)
            bad = draw(st.sampled_from(("range", "start", "dup", "twice", "leaving-twice", "zero")))
            if bad == "range":
                b.splice(target, draw(st.integers(0, n + 1)), n + draw(st.integers(1, 2)), [])
            elif bad == "start":
                b.splice(target, n + draw(st.integers(1, 3)), 0, [b.new_id()])
            elif bad == "dup" and pending:
                b.splice(target, draw(st.integers(0, n)), 0, [draw(st.sampled_from(pending))])
            elif bad == "twice":
                mid = draw(st.sampled_from(b.gone_ids() or [b.new_id()]))
                b.splice(target, n, 0, [mid, mid])
            elif bad == "leaving-twice" and n:
                mid = b.lane_ids(target, 0, 1)[0]
                b.splice(target, 0, 1, [mid, mid], canceled=True)
            else:
                b.splice(target, draw(st.integers(0, n)), 0, [])  # removedCount omitted, nothing inserted: valid no-op
        elif kind == "foreign":
            etype = draw(st.sampled_from(("turn/start", "step/start", "step/end", "user/message", "assistant/chunk")))
            b.add(etype, {"turn": 1, "target": target, "start": -5, "inserted": None})
        elif kind == "raw":
            raw: object = draw(st.sampled_from((None, [], {"target": target}, {"target": target, "start": 0},
                                        {"target": target, "start": 0, "inserted": [1]},
                                        {"target": target, "start": 0, "removedCount": 0, "inserted": []})))
            b.add(SPLICED, raw)
    return b.events


@pytest.mark.rule("FOLD-1", "FOLD-2", "FOLD-3", "FOLD-4", "FOLD-5")
@given(events=logs())
def test_replay_agrees_with_apply_on_random_logs(events: list[SessionEvent]) -> None:
    normative, fast = both(events)
    assert normative == fast
    if isinstance(normative, InboxState):
        event("valid log")
    else:
        event(f"{normative[1]} after {min(normative[2] // 10, 3) * 10}+ events")


@st.composite
def long_lane_logs(draw: st.DrawFn) -> list[SessionEvent]:
    """Hundreds of messages in one list, claimed from the front while new ones arrive at the back,
    with occasional edits in the middle and duplicates: ``Lane.head`` passes 64 repeatedly."""
    b = LogBuilder()
    target = draw(st.sampled_from(TARGETS))
    other = "next-step" if target == "next-turn" else "next-turn"
    b.splice(target, 0, 0, [b.new_id() for _ in range(draw(st.integers(60, 260)))])
    b.splice(other, 0, 0, [b.new_id() for _ in range(draw(st.integers(0, 3)))])
    for _ in range(draw(st.integers(40, 160))):
        n = b.length(target)
        kind = draw(st.sampled_from(("front", "front", "front", "back", "middle", "dup", "front-insert")))
        if kind == "front" and n:
            b.splice(target, 0, draw(st.integers(1, min(n, 4))), [])
        elif kind == "back":
            b.splice(target, n, 0, [b.new_id()])
        elif kind == "middle" and n:
            start = draw(st.integers(0, n - 1))
            b.splice(target, start, draw(st.integers(0, min(2, n - start))), [b.new_id()], canceled=True)
        elif kind == "front-insert":
            b.splice(target, 0, 0, [b.new_id()])
        elif kind == "dup" and draw(st.integers(0, 59)) == 0:
            pending = pending_ids(b.state)
            if pending:
                b.splice(target, draw(st.integers(0, n)), 0, [draw(st.sampled_from(pending))])
    return b.events


@pytest.mark.rule("FOLD-5")
@settings(max_examples=100)  # each example folds up to ~400 events over lists of ~250 messages twice
@given(events=long_lane_logs(), cut=st.floats(0, 1))
def test_replay_agrees_with_apply_on_long_lanes(events: list[SessionEvent], cut: float) -> None:
    # A random prefix too, so the folds are also compared with compaction mid-way through a log.
    prefix = events[: int(len(events) * cut)]
    normative, fast = both(events)
    assert normative == fast
    event("valid log" if isinstance(normative, InboxState) else f"{normative[1]}")
    normative, fast = both(prefix)
    assert normative == fast


@pytest.mark.rule("FOLD-5")
def test_lane_compaction_happens_and_keeps_the_state() -> None:
    """Deterministic walk past the compaction threshold: 200 in, 150 claimed one by one, edits around."""
    b = LogBuilder()
    b.splice("next-turn", 0, 0, [b.new_id() for _ in range(200)])
    for i in range(150):
        b.splice("next-turn", 0, 1, [])
        if i % 10 == 0:
            b.splice("next-turn", b.length("next-turn"), 0, [b.new_id()])
        if i % 25 == 0:
            b.splice("next-turn", b.length("next-turn") // 2, 1, [b.new_id()], canceled=True)
    projector = fold.InboxProjector()
    heads = []
    for e in b.events:
        projector.feed(e)
        heads.append(projector.lists.lanes[InboxTarget.NEXT_TURN].head)
    assert max(heads) > 64  # the moving head crossed the threshold ...
    assert any(later < earlier for earlier, later in itertools.pairwise(heads))  # ... and compacted
    assert projector.state() == functools.reduce(fold.apply, b.events, EMPTY_INBOX) == b.state
    assert b.state == functools.reduce(reference_apply, b.events, EMPTY_INBOX)


def _small_log(*splices: tuple[str, int, int, list[str]]) -> list[SessionEvent]:
    b = LogBuilder()
    for target, start, removed, ids in splices:
        b.splice(target, start, removed, ids, canceled=bool(removed))
    return b.events


NT_, NS_ = "next-turn", "next-step"


@pytest.mark.rule("FOLD-3", "SPLICE-9", "FOLD-5")
@pytest.mark.parametrize(
    ("splices", "expected"),
    [
        pytest.param([(NT_, 0, 0, ["a", "b"]), (NT_, 1, 1, ["b"])], "valid", id="same-id-replacement"),
        pytest.param([(NT_, 0, 0, ["a", "b"]), (NT_, 0, 2, ["b", "a"])], "valid", id="swap-by-replacement"),
        pytest.param([(NT_, 0, 0, ["a"]), (NT_, 0, 1, []), (NS_, 0, 0, ["a"])], "valid", id="reuse-after-claim"),
        pytest.param([(NT_, 0, 0, ["a", "b"]), (NT_, 0, 2, []), (NT_, 0, 0, ["b", "a"])], "valid", id="reuse-both"),
        pytest.param([(NT_, 0, 0, ["a"]), (NT_, 1, 0, ["b", "b"])], "FOLD-3", id="twice-in-one-insert"),
        pytest.param([(NT_, 0, 0, ["a"]), (NT_, 0, 1, ["a", "a"])], "FOLD-3", id="leaving-id-twice"),
        pytest.param([(NT_, 0, 0, ["a", "b"]), (NT_, 0, 1, ["b"])], "FOLD-3", id="replacement-by-staying-id"),
        pytest.param([(NS_, 0, 0, ["a"]), (NT_, 0, 0, ["a"])], "FOLD-3", id="other-lane"),
        pytest.param([(NT_, 0, 0, ["a"]), (NT_, 2, 0, ["b"])], "FOLD-2", id="start-past-end"),
    ],
)
def test_replay_agrees_with_apply_on_id_reuse(splices: list[tuple[str, int, int, list[str]]], expected: str) -> None:
    normative, fast = both(_small_log(*splices))
    assert normative == fast
    assert (isinstance(normative, InboxState) and expected == "valid") or normative[1] == expected


# ------------------------------------------------------------------ the log-file fast path

GOOD_LINE_TYPES = ("turn/start", "step/start", "user/message", "assistant/chunk", "assistant/message")


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _nested_object(depth: int) -> str:
    """Objects nested ``depth`` deep: a well-shaped ``surfaceOp`` (LOG-1: "append" or an object)."""
    return '{"op":' * depth + "{}" + "}" * depth


def _line(etype: str, seq: int, rest: str) -> str:
    """An envelope's text with ``rest`` (raw JSON members, possibly invalid) after its ``time``."""
    return f'{{"type":{json.dumps(etype)},"seq":{seq},"time":0{rest}}}'


@st.composite
def log_files(draw: st.DrawFn) -> list[str]:
    """JSONL text: a valid random log with, sometimes, one bad or deeply nested line spliced in."""
    lines = [json.dumps(e.to_json()) for e in draw(logs(max_ops=25))]
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(lines)))
        seq = at
        etype = draw(st.sampled_from((SPLICED, *GOOD_LINE_TYPES)))
        # Depths far from the stack limit's edge (150 passes, 700 cannot be frozen, 2000 cannot be
        # parsed), so both paths meet them at the same outcome whatever their few frames of difference.
        depth = draw(st.sampled_from((150, 700, 2000)))
        nested = _nested(depth)
        bad = draw(st.sampled_from((
            "",
            "not json",
            _line(etype, seq, ',"data":NaN'),
            _line(etype, seq, ""),  # no data
            _line(etype, seq, ',"data":{},"id":1'),
            _line(etype, -1, ',"data":{}'),
            _line(etype, seq, ',"data":{},"sourceEventSeqs":[1,true]'),
            _line(etype, seq, ',"data":{},"ignorable":false'),
            _line(etype, seq, f',"data":{nested}'),
            _line(etype, seq, f',"data":{{}},"surfaceOp":{nested}'),
            _line(etype, seq, ',"data":{"x":[1,2,{"y":[]}]},"ignorable":true'),  # a valid foreign line
        )))
        lines.insert(at, bad)
    return lines


def _every_event(path: Path) -> Iterator[SessionEvent]:
    """The events one by one through ``__next__``: not an EventReader, so replay takes its generic path."""
    yield from read_events(path)


@pytest.mark.rule("FOLD-4", "FOLD-5", "LOG-1")
@settings(max_examples=200)  # each example writes and reads a small file three times
@given(lines=log_files())
def test_file_fast_path_equals_folding_every_event(lines: list[str]) -> None:
    """``replay(read_events(path))`` freezes only splice lines yet fails or succeeds exactly as folding all does."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.events.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        fast = outcome_of(lambda: fold.replay(read_events(path)))
        generic = outcome_of(lambda: fold.replay(_every_event(path)))
        normative = outcome_of(lambda: functools.reduce(reference_apply, _every_event(path), EMPTY_INBOX))
        stepwise = outcome_of(lambda: functools.reduce(fold.apply, _every_event(path), EMPTY_INBOX))
    assert fast == generic == normative == stepwise
    event("valid file" if isinstance(fast, InboxState) else f"{fast[1]}")


@pytest.mark.rule("LOG-1")
def test_reader_fast_path_continues_where_iteration_stopped() -> None:
    """``only`` reads the lines a partial iteration left, like the generator read_events used to be."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.events.jsonl"
        b = LogBuilder()
        b.add("turn/start", {"turn": 1})
        b.splice("next-turn", 0, 0, ["a"])
        b.splice("next-turn", 1, 0, ["b"])
        path.write_text("".join(json.dumps(e.to_json()) + "\n" for e in b.events), encoding="utf-8")
        reader = read_events(path)
        assert next(reader) == b.events[0]
        assert list(reader.only(SPLICED)) == b.events[1:]
        assert list(reader) == []


@pytest.mark.rule("LOG-1", "FOLD-4")
@pytest.mark.parametrize("etype", [SPLICED, "assistant/chunk"])
@pytest.mark.parametrize("key", ["data", "surfaceOp"])
@pytest.mark.parametrize(("depth", "fails"), [(150, False), (700, True), (2000, True)])
def test_deep_lines_fail_alike_on_both_paths(etype: str, key: str, depth: int, fails: bool) -> None:
    """A payload too deep to freeze (700) or parse (2000) is LOG-1 at its line, even of a type the fold ignores."""
    b = LogBuilder()
    b.splice("next-turn", 0, 0, ["a"])
    head = json.dumps(b.events[0].to_json())
    nested = _nested(depth)
    surface_op = _nested_object(depth)
    deep = _line(etype, 1, f',"data":{nested}' if key == "data" else f',"data":{{}},"surfaceOp":{surface_op}')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.events.jsonl"
        path.write_text(head + "\n" + deep + "\n", encoding="utf-8")
        fast = outcome_of(lambda: fold.replay(read_events(path)))
        generic = outcome_of(lambda: fold.replay(_every_event(path)))
    assert fast == generic
    if fails:
        assert fast[:2] == ("invalid", "LOG-1")
    elif etype == SPLICED:
        assert fast[:2] == ("invalid", "FOLD-1")  # an array, or {} without a target, is no splice data
    else:
        assert fast == InboxState(next_turn=b.state.next_turn)
