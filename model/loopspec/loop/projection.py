"""The lifecycle half of replay: what the log alone says about turns and steps (TURN, STEP).

:func:`project` folds ``turn/*`` and ``step/*`` events into a :class:`LifecycleView` and refuses
the structural violations that would make the view meaningless (TURN-1 … TURN-3, STEP-1,
STEP-2).  The richer checks a conformance run needs live in :mod:`loopspec.check`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import JsonObject
from loopspec.data.messages import shown
from loopspec.log.events import SessionEvent, is_safe_integer
from loopspec.log.kinds import STEP_END, STEP_START, TURN_END, TURN_START
from loopspec.loop.state import LifecycleView


def _number(event: SessionEvent, key: str) -> int:
    data = event.data
    value = data.get(key) if isinstance(data, JsonObject) else None
    # An integer token only: 1.0 is refused, as the checker refuses it (LOG-8, decisions.md G3).
    if not is_safe_integer(value):
        raise InvalidEvent("LOG-1", f"{event.type} needs an integer '{key}', got {shown(value)}", event.seq)
    assert isinstance(value, int)
    return value


def apply(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    """Fold one event; events other than turn/step boundaries return ``view`` itself.

    Contracts (checked by CrossHair, see docs/contracts.md), for a view that keeps the invariants
    :func:`project` keeps: the last turn number grows, by exactly one and only at ``turn/start``
    (TURN-1); an open step implies an open turn, which is the last one started (TURN-2, STEP-1);
    the open step is the turn's last step; within a turn the step count never goes down; any
    other event type returns ``view`` itself.

    raises: InvalidEvent
    pre: view.open_step is None or view.open_turn is not None
    pre: view.open_turn is None or view.open_turn == view.last_turn
    pre: view.open_step is None or view.open_step == view.steps_in_turn
    post: (__return__.last_turn == view.last_turn + 1) == (event.type == TURN_START)
    post: __return__.last_turn in (view.last_turn, view.last_turn + 1)
    post: __return__.open_step is None or __return__.open_turn is not None
    post: __return__.open_turn is None or __return__.open_turn == __return__.last_turn
    post: __return__.open_step is None or __return__.open_step == __return__.steps_in_turn
    post: __return__.open_turn != view.open_turn or __return__.steps_in_turn >= view.steps_in_turn
    post: event.type in (TURN_START, TURN_END, STEP_START, STEP_END) or __return__ is view
    """
    applies = _BOUNDARIES.get(event.type)
    return view if applies is None else applies(view, event)


def _turn_start(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    turn = _number(event, "turn")
    if view.open_turn is not None:
        raise InvalidEvent("TURN-2", f"turn/start {turn} while turn {view.open_turn} is open", event.seq)
    if turn != view.last_turn + 1:
        raise InvalidEvent("TURN-1", f"turn/start {turn}, expected {view.last_turn + 1}", event.seq)
    return LifecycleView(turn, turn, None, 0)


def _turn_end(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    turn = _number(event, "turn")
    if view.open_turn != turn:
        opened = "no turn is open" if view.open_turn is None else f"the open turn is {view.open_turn}"
        raise InvalidEvent("TURN-3", f"turn/end {turn} but {opened}", event.seq)
    if view.open_step is not None:
        raise InvalidEvent("TURN-3", f"turn/end {turn} while step {view.open_step} is open", event.seq)
    return LifecycleView(view.last_turn)


def _step_start(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    turn, step = _number(event, "turn"), _number(event, "step")
    if view.open_turn != turn or view.open_step is not None or step != view.steps_in_turn + 1:
        raise InvalidEvent(
            "STEP-1",
            f"step/start {turn}.{step} but "
            + ("no turn is open" if view.open_turn is None else f"the open turn is {view.open_turn}")
            + ("" if view.open_step is None else f", step {view.open_step} is open")
            + f", next step {view.steps_in_turn + 1}",
            event.seq,
        )
    return attrs.evolve(view, open_step=step, steps_in_turn=step)


def _step_end(view: LifecycleView, event: SessionEvent) -> LifecycleView:
    turn, step = _number(event, "turn"), _number(event, "step")
    if view.open_turn != turn or view.open_step != step:
        raise InvalidEvent(
            "STEP-2", f"step/end {turn}.{step} but the open step is {view.open_turn}.{view.open_step}", event.seq
        )
    return attrs.evolve(view, open_step=None)


# The boundary events the view folds, by type; any other type leaves the view as it is.
_BOUNDARIES: Mapping[str, Callable[[LifecycleView, SessionEvent], LifecycleView]] = MappingProxyType({
    TURN_START: _turn_start,
    TURN_END: _turn_end,
    STEP_START: _step_start,
    STEP_END: _step_end,
})


def project(events: Iterable[SessionEvent]) -> LifecycleView:
    """Fold a whole log from the empty view (the lifecycle half of FOLD-5 / REPAIR-4).

    Contracts (checked by CrossHair, see docs/contracts.md; they read ``events`` as a sequence):
    the last turn number is the number of ``turn/start`` events (TURN-1: numbered 1, 2, ...); a
    turn is open exactly when the last turn boundary is a ``turn/start``, a step only inside an
    open turn and only when the last step boundary is a ``step/start``.

    raises: InvalidEvent
    post: __return__.last_turn == sum(e.type == TURN_START for e in events)
    post: (__return__.open_turn is not None) == ([e.type for e in events if e.type in (TURN_START, TURN_END)][-1:] == [TURN_START])
    post: __return__.open_step is None or __return__.open_turn is not None
    post: (__return__.open_step is not None) == ([e.type for e in events if e.type in (STEP_START, STEP_END)][-1:] == [STEP_START])
    """  # noqa: E501 (PEP 316 conditions are one line each)
    view = LifecycleView()
    for event in events:
        view = apply(view, event)
    return view
