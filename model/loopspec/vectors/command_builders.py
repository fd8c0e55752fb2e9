"""What each named option of the command generator builds: registries of named functions.

:class:`loopspec.vectors.command_gen.Generator` draws a name for each choice (which edit, which
send, which listener, which answer, which move of the menu) and looks up here what that name
builds; ``tests/vectors/test_command_registries.py`` checks that each registry has a builder for
exactly the options its choice draws from.  The builders call back into the generator for the
parts they share (a message, a pending id, a coordinate), named below as the :class:`Builds`
protocol so the two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

import attrs

from loopspec.data.messages import InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.phases import DECIDING, STEPPING, STOPPING
from loopspec.loop.state import Agent

T = TypeVar("T")

ANSWERS: Mapping[str, str] = MappingProxyType(
    {DECIDING: "decide", STEPPING: "step-result", STOPPING: "turn-stopping"})
"""The answer each await point takes."""
RESULTS = ("stop", "tool-calls", "stop", "max-tokens", "tool-calls", "request-error", "fail",
           "tool-call", "tool-call", "tool-start", "tool-result")
REPLACEMENTS = ("new", "new", "new", "same-id")
COUNTS = (0, 1, 2)


class _Chooser(Protocol):
    def pick(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class Builds(Protocol):
    """What a builder asks of :class:`loopspec.vectors.command_gen.Generator`."""

    @property
    def ch(self) -> _Chooser: ...

    def choose(self, name: str, options: Sequence[T], labels: Sequence[str] | None = None) -> T: ...

    def msg(self, agent: Agent | None = None, mid: str | None = None) -> UserMessage: ...

    def msgs(self, agent: Agent | None, most: int) -> Messages: ...

    def pending_id(self, agent: Agent) -> MessageId: ...

    def coordinate(self, length: int) -> JsNumber: ...

    def edit(self, agent: Agent) -> cmd.InboxEdit: ...

    def send(self, agent: Agent) -> cmd.Send: ...

    def cancel(self) -> cmd.Cancel: ...

    def actions(self, agent: Agent, most: int) -> tuple[cmd.ListenerActionT, ...]: ...

    def decision(self, agent: Agent) -> ls.PreStepDecision: ...

    def when(self, agent: Agent) -> ls.When: ...

    def listener(self, agent: Agent) -> ls.Listener: ...

    def wrap(self, agent: Agent) -> ls.Listener: ...

    def answer(self, agent: Agent, which: str) -> cmd.Command: ...


def _append(gen: Builds, agent: Agent, target: InboxTarget) -> cmd.InboxEdit:
    return cmd.Append(target, gen.msg(agent))


def _prepend(gen: Builds, agent: Agent, target: InboxTarget) -> cmd.InboxEdit:
    return cmd.Prepend(target, gen.msg(agent))


def _splice(gen: Builds, agent: Agent, target: InboxTarget) -> cmd.InboxEdit:
    length = len(agent.inbox.lane(target))
    return cmd.Splice(target, gen.coordinate(length), gen.coordinate(length), gen.msgs(agent, 2))


def _replace(gen: Builds, agent: Agent, _: InboxTarget) -> cmd.InboxEdit:
    old = gen.pending_id(agent)
    keep = gen.choose("replacement", REPLACEMENTS) == "same-id"
    return cmd.Replace(old, gen.msg(agent, old.value if keep else None))


def _remove(gen: Builds, agent: Agent, _: InboxTarget) -> cmd.InboxEdit:
    return cmd.Remove(gen.pending_id(agent))


def _clear(_: Builds, __: Agent, ___: InboxTarget) -> cmd.InboxEdit:
    return cmd.Clear()


EDIT_BUILDERS: Mapping[str, Callable[[Builds, Agent, InboxTarget], cmd.InboxEdit]] = MappingProxyType({
    "append": _append, "prepend": _prepend, "splice": _splice, "replace": _replace, "remove": _remove,
    "clear": _clear,
})


def _send_anywhere(gen: Builds, m: UserMessage) -> cmd.Send:
    return cmd.Send(m, gen.ch.pick(tuple(InboxTarget)), gen.ch.pick((False, True)))


def _alias(make: Callable[[UserMessage], cmd.Send]) -> Callable[[Builds, UserMessage], cmd.Send]:
    def build(_: Builds, m: UserMessage) -> cmd.Send:
        return make(m)

    build.__name__ = make.__name__
    return build


SEND_BUILDERS: Mapping[str, Callable[[Builds, UserMessage], cmd.Send]] = MappingProxyType({
    "followup": _alias(cmd.followup), "steer": _alias(cmd.steer), "inject": _alias(cmd.inject),
    "send": _send_anywhere,
})


def _send(gen: Builds, agent: Agent) -> cmd.Send:
    return gen.send(agent)


def _edit(gen: Builds, agent: Agent) -> cmd.InboxEdit:
    return gen.edit(agent)


def _cancel(gen: Builds, _: Agent) -> cmd.Cancel:
    return gen.cancel()


ACTION_BUILDERS: Mapping[str, Callable[[Builds, Agent], cmd.ListenerActionT]] = MappingProxyType({
    "send": _send, "edit": _edit, "cancel": _cancel,
})


def _wrap(gen: Builds, agent: Agent) -> ls.Listener:
    return gen.wrap(agent)


def _veto(gen: Builds, agent: Agent) -> ls.Listener:
    return ls.Veto(gen.decision(agent), gen.actions(agent, 1), gen.when(agent))


def _throw(gen: Builds, agent: Agent) -> ls.Listener:
    return ls.Throw("listener broke", gen.actions(agent, 1), gen.when(agent))


LISTENER_BUILDERS: Mapping[str, Callable[[Builds, Agent], ls.Listener]] = MappingProxyType({
    "wrap": _wrap, "veto": _veto, "throw": _throw,
})


def _decide(gen: Builds, agent: Agent) -> cmd.Command:
    return cmd.Decide(tuple(gen.listener(agent) for _ in range(gen.choose("listeners", COUNTS))))


def _step_result(gen: Builds, agent: Agent) -> cmd.Command:
    kind = gen.choose("result", RESULTS)
    # Both flags are always drawn, so a choice keeps its meaning while shrinking, and used
    # only by the kind they belong to (the other kinds' classes have no such field).
    conclude, retry = gen.ch.integer(0, 3) == 0, gen.ch.pick((True, False))
    started = gen.ch.integer(0, 2) != 0
    tools = kind == "tool-calls"
    result = cmd.STEP_RESULTS[kind]
    values: dict[str, Any] = {"context": gen.msgs(agent, 1) if tools else (), "conclude": conclude,
                              "retry": retry, "started": started}
    own = attrs.fields_dict(result)
    return result(**{name: value for name, value in values.items() if name in own})


def _turn_stopping(gen: Builds, agent: Agent) -> cmd.Command:
    raises = gen.ch.pick((None, None, None, "turn-stopping listener broke"))
    return cmd.TurnStopping(gen.actions(agent, 2), raises)


ANSWER_BUILDERS: Mapping[str, Callable[[Builds, Agent], cmd.Command]] = MappingProxyType({
    "decide": _decide, "step-result": _step_result, "turn-stopping": _turn_stopping,
})


def _restart(gen: Builds, agent: Agent) -> cmd.Command:
    return cmd.Restart() if gen.ch.integer(0, 2) == 0 else gen.send(agent)


def _wrong_answer(gen: Builds, agent: Agent) -> cmd.Command:
    """An answer at the wrong await point: INPUT-4 refuses it."""
    return gen.answer(agent, gen.ch.pick([a for p, a in ANSWERS.items() if p != agent.phase]))


MOVES: Mapping[str, Callable[[Builds, Agent], cmd.Command]] = MappingProxyType({
    "send": _send, "edit": _edit, "cancel": _cancel, "restart": _restart,
    "wrong-answer": _wrong_answer, **ANSWER_BUILDERS,
})
"""What each option of :data:`MENU` builds, ``answer`` resolved to the phase's answer (or a send when idle)."""
