"""The timeline value: every event marked, every message's bar is the model's fate, turns and decisions.

The bars must be exactly :func:`loopspec.loop.consumed_work.message_fates` of the log (WORK-2),
the turn and step bands exactly the log's boundaries with their end reasons (END-1), and the
decisions the ones the boundaries show (DECIDE-5 … DECIDE-8).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, dumps, valid_logs
from check.synthetic_logs import generate
from loopspec.log.reader import read_events
from loopspec.loop.consumed_work import message_fates
from loopspec.render.build import build
from loopspec.render.labels import reason_label
from loopspec.render.timeline import Timeline
from loopspec.render.window import WindowSpec
from render.drawing import EXAMPLE_LOGS, EXAMPLES, WHOLE, live_of, recordings, whole

SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
ALL_LOGS = EXAMPLE_LOGS + recordings()
VALID = EXAMPLES / "valid"


def _lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def _partition(timeline: Timeline) -> list[int]:
    return [seq for mark in timeline.events for seq in range(mark.first, mark.last + 1)]


def _plain(event: dict[str, object]) -> Any:
    return json.loads(json.dumps(event))


def assert_matches_the_model(path: Path, timeline: Timeline) -> None:
    """Bars are the model's fates (whole window), bands are the log's boundaries."""
    events = list(read_events(path))
    fates = message_fates(events)
    got = [(b.id, b.inserted, b.fate, b.left, b.turn, b.entered) for b in timeline.bars]
    assert got == [(f.id.value, f.inserted_seq, f.fate, f.left_seq, f.turn, f.entered) for f in fates]
    raw = [e.to_json() for e in events]
    for bar in timeline.bars:
        if bar.entered_seq is not None:
            entry = _plain(raw[bar.entered_seq])
            assert entry["type"] == "user/message"
            assert entry["data"]["id"] == bar.id
    starts = {r["data"]["turn"]: r["seq"] for r in map(_plain, raw) if r["type"] == "turn/start"}
    ends = {r["data"]["turn"]: (r["seq"], reason_label(r["data"]["reason"])) for r in map(_plain, raw)
            if r["type"] == "turn/end"}
    turns = [(b.turn, b.start, b.end, b.reason) for b in timeline.bands if b.step is None]
    assert turns == [(t, s, *ends.get(t, (None, None))) for t, s in starts.items()]


@pytest.mark.rule("WORK-2")
@pytest.mark.parametrize("log", ALL_LOGS, ids=lambda p: p.name)
def test_every_event_has_exactly_one_mark(log: Path) -> None:
    timeline = whole(log, live_of(log))
    assert (timeline.first, timeline.last, timeline.total) == (0, _lines(log) - 1, _lines(log))
    assert _partition(timeline) == list(range(timeline.total))
    assert timeline.before is None
    assert timeline.after is None


@pytest.mark.rule("WORK-2", "END-1", "TURN-1", "STEP-1")
@pytest.mark.parametrize("log", sorted(VALID.glob("S*.jsonl")) + recordings(), ids=lambda p: p.name)
def test_bars_are_the_models_fates_and_bands_the_logs_turns(log: Path) -> None:
    timeline = whole(log)
    assert timeline.stop is None
    assert_matches_the_model(log, timeline)


@pytest.mark.rule("WORK-2", "FOLD-5")
@SLOW
@given(valid_logs(max_events=300))
def test_synthetic_sessions_match_the_model(tmp_path: Path, log: Log) -> None:
    path = tmp_path / "s.events.jsonl"
    path.write_bytes(dumps(log))
    timeline = whole(path)
    assert _partition(timeline) == list(range(len(log)))
    assert_matches_the_model(path, timeline)
    splices = [e["seq"] for e in log if e["type"] == "agent/inbox/spliced"]
    assert [s.seq for s in timeline.splices] == splices


@pytest.mark.rule("DECIDE-5", "DECIDE-6", "DECIDE-7", "DECIDE-8", "VARIANT-1")
@pytest.mark.parametrize(("name", "decisions"), [
    ("S03-reject-first-prompt-second-queued", [(1, 1, "reject"), (2, 1, "enter [safe]"), (3, 1, "enter [wake]")]),
    ("S04-empty-enter-at-first-boundary", [(1, 1, "enter []")]),
    ("S05-pre-step-listener-throws", [(1, 1, "threw")]),
    ("S13-continuation-rewritten-to-empty", [(1, 1, "enter [A]"), (1, 2, "enter []")]),
    ("S11-tool-continuation-without-steer", [(1, 1, "enter [A]"), (1, 2, "enter []")]),
    ("S14-rejection-at-later-boundary", [(1, 1, "enter [A]"), (1, 2, "reject")]),
    ("S22-request-retry-v0.1.5", [(1, 1, "enter [A]")]),
    ("S18-cancel-from-step-start-observer-v0.1.1", [(1, 1, "enter [A]")]),
    ("S18-cancel-from-step-start-observer-v0.1.5", [(1, 1, "enter [?]")]),  # VARIANT-1: not written yet
])
def test_decisions_read_off_the_log(name: str, decisions: list[tuple[int, int, str]]) -> None:
    timeline = whole(VALID / f"{name}.events.jsonl")
    assert [(d.turn, d.step, d.label) for d in timeline.decisions] == decisions
    assert {d.source for d in timeline.decisions} == {"log"}


def test_a_step_open_where_the_window_ends_may_have_more_entries() -> None:
    timeline = build(VALID / "S13-continuation-rewritten-to-empty.events.jsonl", WindowSpec(first=0, last=5))
    assert [d.label for d in timeline.decisions] == ["enter [A, ?]"]


@pytest.mark.rule("DECIDE-1", "DECIDE-2")
@pytest.mark.parametrize("log", [p for p in recordings() if live_of(p)], ids=lambda p: p.name)
def test_a_live_recording_gives_the_observed_decisions(log: Path) -> None:
    live = live_of(log)
    assert live is not None
    observed = []
    for line in live.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") == "agent/pre-step" and rec.get("phase") in ("decided", "threw"):
            kind = rec["decision"]["kind"] if rec["phase"] == "decided" else "threw"
            observed.append((rec["turn"], rec["step"], kind))
    timeline = whole(log, live)
    assert [(d.turn, d.step, d.kind) for d in timeline.decisions] == observed
    assert {d.source for d in timeline.decisions} <= {"live"}


def _long_log(tmp_path: Path, size: int, seed: int = 3) -> Path:
    path = tmp_path / "long.events.jsonl"
    path.write_bytes(dumps(list(generate(random.Random(seed).randrange, size, chunks=4))))
    return path


def test_the_default_window_is_the_last_turns_and_summarizes_the_rest(tmp_path: Path) -> None:
    path = _long_log(tmp_path, 3000)
    events = list(read_events(path))
    timeline = build(path, WindowSpec(turns=3))
    assert timeline.last == len(events) - 1
    assert events[timeline.first - 1].type == "turn/end"  # a window starts after a turn, with its sends
    starts = [e for e in events[timeline.first :] if e.type == "turn/start"]
    assert len(starts) == 3, "the last three turns, whatever follows the last of them"
    before = timeline.before
    assert before is not None
    assert timeline.after is None
    assert (before.first, before.last) == (0, timeline.first - 1)
    fates = message_fates(events)
    assert before.inserted == sum(1 for f in fates if f.inserted_seq < timeline.first)
    assert before.claimed == sum(1 for f in fates if f.fate == "claimed" and (f.left_seq or 0) < timeline.first
                                 and f.left_seq is not None)
    assert before.turns == sum(1 for e in events[: timeline.first] if e.type == "turn/start")
    assert _partition(timeline) == list(range(timeline.first, timeline.last + 1))


@SLOW
@given(st.data())
def test_any_range_window_shows_every_message_alive_in_it(tmp_path: Path, data: st.DataObject) -> None:
    path = _long_log(tmp_path, 600, seed=data.draw(st.integers(0, 5)))
    events = list(read_events(path))
    first = data.draw(st.integers(0, len(events) - 1))
    last = data.draw(st.integers(first, len(events) - 1))
    timeline = build(path, WindowSpec(first=first, last=last))
    assert _partition(timeline) == list(range(first, last + 1))
    alive = [(f.id.value, f.inserted_seq, f.fate, f.left_seq) for f in message_fates(events)
             if f.inserted_seq <= last and (f.left_seq is None or f.left_seq >= first)]
    assert [(b.id, b.inserted, b.fate, b.left) for b in timeline.bars] == alive
    outside = (timeline.before.events if timeline.before else 0) + (timeline.after.events if timeline.after else 0)
    assert outside + (last - first + 1) == len(events)


@pytest.mark.parametrize(("name", "rule", "seq"), [
    ("FOLD-2-removes-beyond-end", "FOLD-2", 1),
    ("FOLD-3-id-pending-in-both-lists", "FOLD-3", 1),
    ("TURN-2-turn-start-while-open", "TURN-2", 4),
    ("LOG-2-seq-gap", "LOG-2", 1),
    ("LOG-1-line-is-not-json", "LOG-1", 1),
])
def test_a_log_the_model_refuses_is_drawn_uninterpreted_from_there(name: str, rule: str, seq: int) -> None:
    path = EXAMPLES / "invalid" / f"{name}.events.jsonl"
    timeline = build(path, WHOLE)
    assert timeline.stop is not None
    assert (timeline.stop.rule, timeline.stop.seq) == (rule, seq)
    assert timeline.cut == seq
    assert _partition(timeline) == list(range(_lines(path)))
    assert all(m.interpreted == (m.last < seq) for m in timeline.events)
    assert all(b.inserted < seq and (b.left is None or b.left < seq) for b in timeline.bars)
