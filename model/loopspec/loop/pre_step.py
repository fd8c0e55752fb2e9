"""The ``agent/pre-step`` waterfall as data (spec area DECIDE).

Real listeners are code; the model describes them with a small language so a run stays pure
and vectors can carry them.  :func:`run_chain` evaluates a chain exactly as the vendored Cordis
waterfall does (DECIDE-3): outermost first; a listener may act on the inbox, call ``next()``
and keep, transform or replace what comes back, or veto everything after it; the innermost
``next`` enters the claimed batch; the outermost return value is the decision.

Evaluation is pure: it yields the decision (or the raised message) and the listeners' side
actions in execution order.  The agent then performs those actions; an action the model refuses
counts as the listener throwing at that point.
"""

from __future__ import annotations

from typing import Literal

import attrs

from loopspec.data.messages import MessageId, Messages
from loopspec.loop.actions import ListenerActionT


@attrs.frozen
class Reject:
    kind: Literal["reject"] = "reject"


@attrs.frozen
class Enter:
    messages: Messages = ()
    kind: Literal["enter"] = "enter"


PreStepDecision = Reject | Enter
"""DECIDE-2: ``{kind: 'reject'} | {kind: 'enter', messages}``."""


@attrs.frozen
class Keep:
    """Return what ``next()`` returned."""


@attrs.frozen
class Replace:
    """Discard what ``next()`` returned and return ``decision`` instead."""

    decision: PreStepDecision


@attrs.frozen
class Drop:
    """Remove messages with these ids from an ``enter`` (a ``reject`` passes through)."""

    ids: tuple[MessageId, ...]


@attrs.frozen
class Add:
    """Append messages to an ``enter`` (a ``reject`` passes through)."""

    messages: Messages


Transform = Keep | Replace | Drop | Add


@attrs.frozen
class Wrap:
    """Run ``before``, call ``next()``, run ``after``, return ``transform(next())``."""

    transform: Transform = Keep()
    before: tuple[ListenerActionT, ...] = ()
    after: tuple[ListenerActionT, ...] = ()


@attrs.frozen
class Veto:
    """Run ``before`` and return ``decision`` without calling ``next()``: later listeners never run."""

    decision: PreStepDecision
    before: tuple[ListenerActionT, ...] = ()


@attrs.frozen
class Throw:
    """Run ``before``, then throw ``message``: the turn ends ``error`` (DECIDE-7)."""

    message: str
    before: tuple[ListenerActionT, ...] = ()


Listener = Wrap | Veto | Throw


@attrs.frozen
class ChainRun:
    """A chain's evaluation: the decision, or the message a listener threw, plus its actions in order."""

    decision: PreStepDecision | None
    raised: str | None
    actions: tuple[ListenerActionT, ...]


def _transform(result: PreStepDecision, transform: Transform) -> PreStepDecision:
    if isinstance(transform, Keep):
        return result
    if isinstance(transform, Replace):
        return transform.decision
    if isinstance(result, Reject):
        return result
    if isinstance(transform, Drop):
        return Enter(tuple(m for m in result.messages if m.id not in transform.ids))
    return Enter(result.messages + transform.messages)


class _Thrown(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def run_chain(claimed: Messages, listeners: tuple[Listener, ...]) -> ChainRun:
    """Evaluate the waterfall over the claimed batch (DECIDE-3).

    Contracts (checked by CrossHair, see docs/contracts.md): exactly one of decision and raised
    message; an empty chain enters the claimed batch and acts on nothing; the first listener that
    is not a ``Wrap`` ends the descent, so a ``Throw`` there is the raised message, and an outermost
    ``Veto`` or ``Throw`` alone decides, with only its own actions; a chain of keeping wraps enters
    the claimed batch; an ``enter`` holds only claimed messages and messages a listener supplied
    (an ``Add``, a ``Replace`` or a ``Veto`` decision); an outermost ``Drop`` leaves none of its
    ids; an outer ``Wrap`` brackets the inner chain's actions: its ``before``, then the rest of the
    chain's, then (unless something threw) its ``after`` — so actions are every ``before`` in chain
    order, then every ``after`` inside out.

    post: (__return__.decision is None) != (__return__.raised is None)
    post: len(listeners) > 0 or __return__ == ChainRun(Enter(claimed), None, ())
    post: __return__.raised == next((getattr(x, "message", None) for x in listeners if not isinstance(x, Wrap)), None)
    post: len(listeners) == 0 or isinstance(x := listeners[0], Wrap) or __return__.actions == x.before
    post: len(listeners) == 0 or not isinstance(x := listeners[0], Veto) or __return__.decision == x.decision
    post: not all(getattr(x, "transform", None) == Keep() for x in listeners) or __return__.decision == Enter(claimed)
    post: all(m in claimed or any(m in getattr(getattr(t, "decision", t), "messages", ()) for t in (getattr(x, "transform", x) for x in listeners)) for m in getattr(__return__.decision, "messages", ()))
    post: len(listeners) == 0 or not isinstance(d := getattr(listeners[0], "transform", None), Drop) or set(d.ids).isdisjoint(m.id for m in getattr(__return__.decision, "messages", ()))
    post: len(listeners) == 0 or not isinstance(w := listeners[0], Wrap) or __return__.actions == w.before + run_chain(claimed, listeners[1:]).actions + (w.after if __return__.raised is None else ())
    """  # noqa: E501 (PEP 316 conditions are one line each)
    actions: list[ListenerActionT] = []

    def call(index: int) -> PreStepDecision:
        if index == len(listeners):
            return Enter(claimed)  # DECIDE-3: the innermost default enters the claimed batch
        listener = listeners[index]
        actions.extend(listener.before)
        if isinstance(listener, Throw):
            raise _Thrown(listener.message)
        if isinstance(listener, Veto):
            return listener.decision  # later listeners and the default never run
        result = call(index + 1)
        actions.extend(listener.after)
        return _transform(result, listener.transform)

    try:
        decision = call(0)
    except _Thrown as thrown:
        return ChainRun(None, thrown.message, tuple(actions))
    return ChainRun(decision, None, tuple(actions))
