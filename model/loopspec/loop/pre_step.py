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
class PreStepPayload:
    """What ``agent/pre-step`` hands every listener besides the batch (DECIDE-1).

    ``turn`` is the running turn's number and ``step`` the number the step gets if the decision
    enters (the last opened step + 1).  The abort signal of the real payload is the model's
    ``cancel`` command, so it is not repeated here.
    """

    turn: int
    step: int


FIRST_BOUNDARY = PreStepPayload(turn=1, step=1)


@attrs.frozen
class When:
    """The payloads a listener acts on; a field left ``None`` matches any value (DECIDE-1).

    A listener whose ``when`` does not match is transparent: it calls ``next()``, returns what
    came back and performs no action, as a real listener that checks ``step`` and returns early.
    """

    turn: int | None = None
    step: int | None = None

    def matches(self, payload: PreStepPayload) -> bool:
        return self.turn in (None, payload.turn) and self.step in (None, payload.step)


ALWAYS = When()


@attrs.frozen
class Wrap:
    """Run ``before``, call ``next()``, run ``after``, then ``after_enter`` or ``after_reject``
    according to what ``next()`` returned, and return ``transform(next())`` (DECIDE-3, DECIDE-9).

    The conditional actions are how a listener's side effects depend on the downstream decision:
    the workspace pattern removes a staged item only when the step is entered.
    """

    transform: Transform = Keep()
    before: tuple[ListenerActionT, ...] = ()
    after: tuple[ListenerActionT, ...] = ()
    after_enter: tuple[ListenerActionT, ...] = ()
    after_reject: tuple[ListenerActionT, ...] = ()
    when: When = ALWAYS


@attrs.frozen
class Veto:
    """Run ``before`` and return ``decision`` without calling ``next()``: later listeners never run."""

    decision: PreStepDecision
    before: tuple[ListenerActionT, ...] = ()
    when: When = ALWAYS


@attrs.frozen
class Throw:
    """Run ``before``, then throw ``message``: the turn ends ``error`` (DECIDE-7)."""

    message: str
    before: tuple[ListenerActionT, ...] = ()
    when: When = ALWAYS


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


def run_chain(
    claimed: Messages, listeners: tuple[Listener, ...], payload: PreStepPayload = FIRST_BOUNDARY
) -> ChainRun:
    """Evaluate the waterfall over the claimed batch and the payload (DECIDE-1, DECIDE-3, DECIDE-9).

    Contracts (checked by CrossHair, see docs/contracts.md): exactly one of decision and raised
    message; an empty chain enters the claimed batch and acts on nothing; an outermost listener
    whose ``when`` does not match the payload is transparent (the chain behaves as without it);
    otherwise the first listener that is not a ``Wrap`` ends the descent, so a ``Throw`` there is
    the raised message, and an outermost ``Veto`` or ``Throw`` alone decides, with only its own
    actions; a chain of keeping wraps enters the claimed batch; an ``enter`` holds only claimed
    messages and messages a listener supplied (an ``Add``, a ``Replace`` or a ``Veto`` decision);
    an outermost acting ``Drop`` leaves none of its ids; an outer acting ``Wrap`` brackets the
    inner chain's actions: its ``before``, then the rest of the chain's, then (unless something
    threw) its ``after`` and the conditional actions for what the inner chain decided.

    post: (__return__.decision is None) != (__return__.raised is None)
    post: len(listeners) > 0 or __return__ == ChainRun(Enter(claimed), None, ())
    post: len(listeners) == 0 or listeners[0].when.matches(payload) or __return__ == run_chain(claimed, listeners[1:], payload)
    post: __return__.raised == next((getattr(x, "message", None) for x in listeners if x.when.matches(payload) and not isinstance(x, Wrap)), None)
    post: len(listeners) == 0 or not (x := listeners[0]).when.matches(payload) or isinstance(x, Wrap) or __return__.actions == x.before
    post: len(listeners) == 0 or not (x := listeners[0]).when.matches(payload) or not isinstance(x, Veto) or __return__.decision == x.decision
    post: not all(getattr(x, "transform", None) == Keep() for x in listeners) or __return__.decision == Enter(claimed)
    post: all(m in claimed or any(m in getattr(getattr(t, "decision", t), "messages", ()) for t in (getattr(x, "transform", x) for x in listeners)) for m in getattr(__return__.decision, "messages", ()))
    post: len(listeners) == 0 or not listeners[0].when.matches(payload) or not isinstance(d := getattr(listeners[0], "transform", None), Drop) or set(d.ids).isdisjoint(m.id for m in getattr(__return__.decision, "messages", ()))
    post: len(listeners) == 0 or not isinstance(w := listeners[0], Wrap) or not w.when.matches(payload) or __return__.actions == w.before + (inner := run_chain(claimed, listeners[1:], payload)).actions + ((w.after + (w.after_enter if isinstance(inner.decision, Enter) else w.after_reject)) if __return__.raised is None else ())
    """  # noqa: E501 (PEP 316 conditions are one line each)
    actions: list[ListenerActionT] = []

    def call(index: int) -> PreStepDecision:
        if index == len(listeners):
            return Enter(claimed)  # DECIDE-3: the innermost default enters the claimed batch
        listener = listeners[index]
        if not listener.when.matches(payload):
            return call(index + 1)  # DECIDE-1: a listener that does not act on this payload passes through
        actions.extend(listener.before)
        if isinstance(listener, Throw):
            raise _Thrown(listener.message)
        if isinstance(listener, Veto):
            return listener.decision  # later listeners and the default never run
        result = call(index + 1)
        actions.extend(listener.after)
        # DECIDE-9: the side actions may depend on what the rest of the chain decided.
        actions.extend(listener.after_enter if isinstance(result, Enter) else listener.after_reject)
        return _transform(result, listener.transform)

    try:
        decision = call(0)
    except _Thrown as thrown:
        return ChainRun(None, thrown.message, tuple(actions))
    return ChainRun(decision, None, tuple(actions))
