"""The lifecycle half of replay: what the log alone says about turns and steps (TURN, STEP).

:func:`project` folds ``turn/*`` and ``step/*`` events into a :class:`LifecycleView` and refuses
the structural violations that would make the view meaningless (TURN-1 … TURN-3, STEP-1,
STEP-2).  The richer checks a conformance run needs live in :mod:`loopspec.check`.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from loopspec.agent_state import LifecycleView
from loopspec.errors import InvalidEvent
from loopspec.events import SessionEvent
from loopspec.json_value import JsonObject
from loopspec.lifecycle_records import STEP_END, STEP_START, TURN_END, TURN_START


def _number(event: SessionEvent, key: str) -> int:
    data = event.data
    value = data.get(key) if isinstance(data, JsonObject) else None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEvent("LOG-1", f"{event.type} needs an integer '{key}', got {value!r}", event.seq)
    return value


def apply(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    """Fold one event; events other than turn/step boundaries return ``view`` itself."""
    if event.type == TURN_START:
        turn = _number(event, "turn")
        if view.open_turn is not None:
            raise InvalidEvent("TURN-2", f"turn/start {turn} while turn {view.open_turn} is open", event.seq)
        if turn != view.last_turn + 1:
            raise InvalidEvent("TURN-1", f"turn/start {turn}, expected {view.last_turn + 1}", event.seq)
        return LifecycleView(turn, turn, None, 0)
    if event.type == TURN_END:
        turn = _number(event, "turn")
        if view.open_turn != turn:
            raise InvalidEvent("TURN-3", f"turn/end {turn} but the open turn is {view.open_turn}", event.seq)
        if view.open_step is not None:
            raise InvalidEvent("TURN-3", f"turn/end {turn} while step {view.open_step} is open", event.seq)
        return LifecycleView(view.last_turn)
    if event.type == STEP_START:
        turn, step = _number(event, "turn"), _number(event, "step")
        if view.open_turn != turn or view.open_step is not None or step != view.steps_in_turn + 1:
            raise InvalidEvent(
                "STEP-1",
                f"step/start {turn}.{step} but open turn is {view.open_turn}, open step {view.open_step}, "
                f"next step {view.steps_in_turn + 1}",
                event.seq,
            )
        return attrs.evolve(view, open_step=step, steps_in_turn=step)
    if event.type == STEP_END:
        turn, step = _number(event, "turn"), _number(event, "step")
        if view.open_turn != turn or view.open_step != step:
            raise InvalidEvent(
                "STEP-2", f"step/end {turn}.{step} but the open step is {view.open_turn}.{view.open_step}", event.seq
            )
        return attrs.evolve(view, open_step=None)
    return view


def project(events: Iterable[SessionEvent]) -> LifecycleView:
    """Fold a whole log from the empty view (the lifecycle half of FOLD-5 / REPAIR-4)."""
    view = LifecycleView()
    for event in events:
        view = apply(view, event)
    return view
