"""The picture's one pass gives the model's fates and stops where the model's folds refuse.

:class:`loopspec.render.fates.FateFold` folds the splices as parsed JSON (with the checker's
lean inbox), for speed; here the pass is held to the plain way: every folded line frozen whole
into an event, the boundaries through
:func:`loopspec.loop.projection.apply` and the whole prefix through
:func:`loopspec.loop.consumed_work.message_fates`.  Same fates, same stop (seq, rule and words),
on every example log, recording, invalid log, and random logs with random damage.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, any_mutation, dumps, valid_logs
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import STEP_END, STEP_START, TURN_END, TURN_START
from loopspec.loop import projection
from loopspec.loop.consumed_work import MessageFate, message_fates
from loopspec.loop.state import LifecycleView
from loopspec.render.scan import scan
from loopspec.render.source import FoldLines, read_folded
from render.drawing import EXAMPLE_LOGS, WHOLE, recordings

SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BOUNDARIES = frozenset({TURN_START, TURN_END, STEP_START, STEP_END})

FOUND_MESSAGE = {"id": "m1", "role": "user", "content": [{"type": "text", "text": "x"}], "source": {"kind": "user"}}

Expected = tuple[tuple[MessageFate, ...], tuple[int, str, str] | None]


def the_plain_way(data: bytes) -> Expected:
    """Fates and stop of the model's folds over every folded line, each read in full."""
    events: list[SessionEvent] = []
    stop: InvalidEvent | None = None
    view = LifecycleView()
    for index, _, line in FoldLines(io.BytesIO(data)):
        try:
            read = read_folded(line, index)
            if read is None:
                continue
            etype, time, body = read
            try:
                event = SessionEvent(etype, index, time, freeze(body))
            except RecursionError:
                raise InvalidEvent("LOG-1", "'data' is nested too deeply", index) from None
            if etype in BOUNDARIES:
                view = projection.apply(view, event)
        except InvalidEvent as err:
            stop = err
            break
        events.append(event)
    try:
        fates = message_fates(events)
    except InvalidEvent as err:  # the fold refused a splice before anything else went wrong
        stop = err
        # The fates are those of the events before the refused splice. Only here: a line refused
        # while read is not among ``events``, even when the seq it names is an earlier one's
        # (found by Hypothesis: a second line naming seq 0 with an unsafe time).
        if stop.seq is not None:
            fates = message_fates([e for e in events if e.seq < stop.seq])
    return fates, None if stop is None else (stop.seq if stop.seq is not None else -1, stop.rule, stop.detail)


def the_pass(tmp_path: Path, data: bytes) -> Expected:
    path = tmp_path / "log.events.jsonl"
    path.write_bytes(data)
    seen = scan(path, WHOLE)
    stop = seen.stop
    if stop is None:
        return seen.fates, None
    return seen.fates, (stop.reported if stop.reported is not None else -1, stop.rule, stop.message)


@pytest.mark.rule("WORK-2", "FOLD-1", "FOLD-2", "FOLD-3", "DATA-2", "LOG-2", "TURN-1", "STEP-1")
@pytest.mark.parametrize("log", EXAMPLE_LOGS + recordings(), ids=lambda p: p.name)
def test_the_pass_gives_the_models_fates_and_stop_on_every_example(tmp_path: Path, log: Path) -> None:
    data = log.read_bytes()
    assert the_pass(tmp_path, data) == the_plain_way(data)


@pytest.mark.rule("WORK-2", "FOLD-2", "FOLD-3")
@SLOW
@given(valid_logs(max_events=200).flatmap(lambda log: st.one_of(st.just(log), any_mutation(log))))
# Found by Hypothesis: a refused line whose own seq (1) is not its index (0) -- the stop names the
# seq the model names; and a splice whose 'start' is an array -- both ways word it as JSON, [].
@example(log=[{"type": "agent/inbox/spliced", "seq": 1, "time": 1_700_000_000_001, "surfaceOp": 0,
               "data": {"target": "next-turn", "start": 0, "inserted": [FOUND_MESSAGE]}}])
# And a second line naming seq 0 with a time past the safe integers: refused as read, so the
# first line's message stays pending in both ways.
@example(log=[{"type": "agent/inbox/spliced", "seq": 0, "time": 1_700_000_000_001,
               "data": {"target": "next-turn", "start": 0, "inserted": [FOUND_MESSAGE]}},
              {"type": "turn/start", "seq": 0, "time": 2**53, "data": {"turn": 1}}])
@example(log=[{"type": "agent/inbox/spliced", "seq": 0, "time": 1_700_000_000_001,
               "data": {"target": "next-turn", "start": [], "inserted": [FOUND_MESSAGE]}}])
def test_the_pass_gives_the_models_fates_and_stop_on_damaged_logs(tmp_path: Path, log: Log) -> None:
    data = dumps(log)
    assert the_pass(tmp_path, data) == the_plain_way(data)
