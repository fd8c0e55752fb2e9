"""Symbolic pre-step listeners: small chains of wraps, vetoes and throws with bounded actions."""

from __future__ import annotations

from crosshair import SymbolicFactory

from loopspec.data.json_value import JsonObject
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.loop import pre_step as lsn
from loopspec.loop.commands import ListenerActionT, Send


def _send(mid: str) -> Send:
    body = JsonObject((("id", mid), ("role", "user"), ("content", ()), ("source", JsonObject((("kind", "user"),)))))
    return Send(UserMessage(MessageId(mid), body), InboxTarget.NEXT_STEP, True)


SENDS = (_send("s1"), _send("s2"))


def actions(p: SymbolicFactory, name: str) -> tuple[ListenerActionT, ...]:
    return tuple(s for i, s in enumerate(SENDS) if p(bool, f"{name}_{i}"))


def messages(p: SymbolicFactory, name: str) -> tuple[UserMessage, ...]:
    # None, one or two messages: bounded, so the search does not sink into long symbolic
    # tuples (the claimed batch, CrossHair's own tuple, still has any length).
    return tuple(p(UserMessage, f"{name}_{i}") for i in range(2) if p(bool, f"{name}_has{i}"))


def decision(p: SymbolicFactory, name: str) -> lsn.PreStepDecision:
    return lsn.Reject() if p(bool, name + "_reject") else lsn.Enter(messages(p, name + "_messages"))


def transform(p: SymbolicFactory) -> lsn.Transform:
    if p(bool, "_keep"):
        return lsn.Keep()
    if p(bool, "_replace"):
        return lsn.Replace(decision(p, "_replaced"))
    if p(bool, "_drop"):
        return lsn.Drop(tuple(MessageId(i) for i in "abc" if p(bool, f"_drop_{i}")))
    return lsn.Add(messages(p, "_added"))


def wrap(p: SymbolicFactory) -> lsn.Wrap:
    return lsn.Wrap(transform(p), actions(p, "_before"), actions(p, "_after"))


def veto(p: SymbolicFactory) -> lsn.Veto:
    return lsn.Veto(decision(p, "_vetoed"), actions(p, "_before"))


def throw(p: SymbolicFactory) -> lsn.Throw:
    return lsn.Throw("x" if p(bool, "_x") else "y", actions(p, "_before"))
