"""Commands worth sending next, for the vector generator and the differential driver.

:func:`next_command` looks at the agent's phase and picks, mostly, a command the lifecycle table
accepts there (the await point's answer is the likeliest), plus edits and sends at any time and,
now and then, an answer for the wrong phase (INPUT-4) or an id that is already pending
(SPLICE-3).  Choices go through a :class:`Chooser`, so the same generator runs on a seeded
``random.Random`` (``vectors generate``) and on Hypothesis draws (``drive``, which then shrinks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol, TypeVar

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.state import Agent
from loopspec.loop.table import DECIDING, STEPPING, STOPPING

T = TypeVar("T")

# A small id pool makes duplicates, same-id replacements and misses frequent (SPLICE-3, SPLICE-9).
ID_POOL = ("a", "b", "c", "d", "e", "f")
NUMBERS: tuple[JsNumber, ...] = (0, 1, 2, -1, -2, 3, 0.5, -0.5, math.nan, math.inf, -math.inf, -0.0, 10**20)
TARGETS = (InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP)
ANSWERS: Mapping[str, str] = MappingProxyType(
    {DECIDING: "decide", STEPPING: "step-result", STOPPING: "turn-stopping"})
MENU = ("answer",) * 6 + ("send",) * 3 + ("edit",) * 2 + ("cancel", "restart", "wrong-answer")


class Chooser(Protocol):
    """Where the choices come from; ``pick`` prefers earlier options when shrinking."""

    def pick(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class RandomChooser:
    """Seeded choices for the vector generator: same seed, same commands."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


def message(mid: str, text: str = "", *, extra: bool = False) -> UserMessage:
    """A user message; ``extra`` adds a field the model does not know (kept losslessly, DATA-2)."""
    body: dict[str, object] = {
        "id": mid,
        "role": "user",
        "content": [{"type": "text", "text": text or f"text of {mid}"}],
        "source": {"kind": "user"},
    }
    if extra:
        body["meta"] = {"note": "unknown field", "n": 1}
    return UserMessage.from_json(body)


class Generator:
    """Builds commands; keeps a counter so fresh text distinguishes replacements."""

    def __init__(self, chooser: Chooser, serial: int = 0) -> None:
        self.ch = chooser
        self.serial = serial

    def msg(self, agent: Agent | None = None) -> UserMessage:
        self.serial += 1
        pending = [m.id.value for m in agent.inbox.next_turn + agent.inbox.next_step] if agent else []
        fresh = [i for i in ID_POOL if i not in pending] or list(ID_POOL)
        # Mostly a fresh id; sometimes any id of the pool, possibly one that is pending.
        mid = self.ch.pick([*fresh, *fresh, *fresh, *ID_POOL])
        return message(mid, f"{mid}#{self.serial}", extra=self.ch.integer(0, 7) == 0)

    def msgs(self, agent: Agent | None, most: int) -> Messages:
        return tuple(self.msg(agent) for _ in range(self.ch.integer(0, most)))

    def pending_id(self, agent: Agent) -> MessageId:
        ids = [m.id for m in agent.inbox.next_turn + agent.inbox.next_step]
        return self.ch.pick([*ids, *ids, MessageId(self.ch.pick(ID_POOL))])

    def edit(self, agent: Agent) -> cmd.InboxEdit:
        kind = self.ch.pick(tuple(EDITS))
        target = self.ch.pick(TARGETS)
        return EDITS[kind](self, agent, target)

    def send(self, agent: Agent) -> cmd.Send:
        kind = self.ch.pick(tuple(SENDS))
        return SENDS[kind](self, self.msg(agent))

    def cancel(self) -> cmd.Cancel:
        cause = self.ch.pick((cmd.USER_CAUSE, cmd.USER_CAUSE, freeze({"kind": "disposed"})))
        return cmd.Cancel(cause, self.ch.pick((False, True)))

    def action(self, agent: Agent) -> cmd.ListenerActionT:
        return ACTIONS[self.ch.pick(("send", "send", "edit", "cancel"))](self, agent)

    def actions(self, agent: Agent, most: int) -> tuple[cmd.ListenerActionT, ...]:
        return tuple(self.action(agent) for _ in range(self.ch.integer(0, most)))

    def decision(self, agent: Agent) -> ls.PreStepDecision:
        options: tuple[ls.PreStepDecision, ...] = (ls.Enter(self.msgs(agent, 2)), ls.Reject())
        return self.ch.pick(options)

    def when(self, agent: Agent) -> ls.When:
        """Mostly every payload; sometimes only this or the next boundary's step, or this turn (DECIDE-1)."""
        run = agent.running
        turn, step = (run.turn, run.step + 1) if run else (1, 1)
        options = (ls.ALWAYS, ls.ALWAYS, ls.ALWAYS, ls.When(step=step), ls.When(step=step + 1), ls.When(turn=turn))
        return self.ch.pick(options)

    def listener(self, agent: Agent) -> ls.Listener:
        return LISTENERS[self.ch.pick(("wrap", "wrap", "veto", "throw"))](self, agent)

    def wrap(self, agent: Agent) -> ls.Wrap:
        batch = agent.running.batch if agent.running else ()
        transforms: tuple[ls.Transform, ...] = (
            ls.Keep(),
            ls.Drop(tuple(m.id for m in batch)),
            ls.Drop(tuple(m.id for m in batch[:1])),
            ls.Add(self.msgs(agent, 1)),
            ls.Replace(self.decision(agent)),
        )
        # DECIDE-9: actions that depend on what the rest of the chain decided.
        return ls.Wrap(self.ch.pick(transforms), self.actions(agent, 1), self.actions(agent, 1),
                       self.actions(agent, 1), self.actions(agent, 1), self.when(agent))

    def answer(self, agent: Agent, which: str) -> cmd.Command:
        return AWAIT_ANSWERS[which](self, agent)

    def step_result(self, agent: Agent) -> cmd.StepResult:
        kind = self.ch.pick(("stop", "tool-calls", "stop", "max-tokens", "tool-calls", "request-error", "fail",
                             "tool-call", "tool-call", "tool-start", "tool-result"))
        # The flags are always drawn, so a choice keeps its meaning while shrinking, and used
        # only by the kind they belong to (StepResult refuses them elsewhere).
        conclude, retry = self.ch.integer(0, 3) == 0, self.ch.pick((True, False))
        started = self.ch.integer(0, 2) != 0
        tools = kind == "tool-calls"
        return cmd.StepResult(kind, self.msgs(agent, 1) if tools else (),
                              conclude=conclude and tools, retry=retry and kind == "request-error",
                              started=started or kind != "tool-call")

    def turn_stopping(self, agent: Agent) -> cmd.TurnStopping:
        raises = self.ch.pick((None, None, None, "turn-stopping listener broke"))
        return cmd.TurnStopping(self.actions(agent, 2), raises)

    def next_command(self, agent: Agent) -> cmd.Command:
        """One command for ``agent``: usually valid for its phase, sometimes deliberately not."""
        # One menu for every phase, so a drawn choice keeps its meaning when the shrinker deletes
        # earlier commands; while idle there is no await point and "answer" means a send.
        kind = self.ch.pick(MENU)
        answer = ANSWERS.get(agent.phase)
        if kind == "answer":
            kind = answer if answer is not None else "send"
        return NEXT_COMMANDS[kind](self, agent)

    def wrong_answer(self, agent: Agent) -> cmd.Command:
        """An answer at the wrong await point: INPUT-4 refuses it."""
        return self.answer(agent, self.ch.pick([a for p, a in ANSWERS.items() if p != agent.phase]))

    def restart(self, agent: Agent) -> cmd.Command:
        return cmd.Restart() if self.ch.integer(0, 2) == 0 else self.send(agent)


# Each kind of command and its builder, in the order the choosers pick from (the first options
# are where Hypothesis shrinks to, so the order is part of the generator's behaviour).
EDITS: Mapping[str, Callable[[Generator, Agent, InboxTarget], cmd.InboxEdit]] = MappingProxyType({
    "append": lambda g, agent, target: cmd.Append(target, g.msg(agent)),
    "prepend": lambda g, agent, target: cmd.Prepend(target, g.msg(agent)),
    "splice": lambda g, agent, target: cmd.Splice(target, g.ch.pick(NUMBERS), g.ch.pick(NUMBERS), g.msgs(agent, 2)),
    "replace": lambda g, agent, _: cmd.Replace(g.pending_id(agent), g.msg(agent)),
    "remove": lambda g, agent, _: cmd.Remove(g.pending_id(agent)),
    "clear": lambda g, agent, _: cmd.Clear(),
})
SENDS: Mapping[str, Callable[[Generator, UserMessage], cmd.Send]] = MappingProxyType({
    "followup": lambda _, m: cmd.followup(m),
    "steer": lambda _, m: cmd.steer(m),
    "inject": lambda _, m: cmd.inject(m),
    "send": lambda g, m: cmd.Send(m, g.ch.pick(TARGETS), g.ch.pick((False, True))),
})
ACTIONS: Mapping[str, Callable[[Generator, Agent], cmd.ListenerActionT]] = MappingProxyType({
    "send": Generator.send,
    "edit": Generator.edit,
    "cancel": lambda g, _: g.cancel(),
})
LISTENERS: Mapping[str, Callable[[Generator, Agent], ls.Listener]] = MappingProxyType({
    "wrap": Generator.wrap,
    "veto": lambda g, agent: ls.Veto(g.decision(agent), g.actions(agent, 1), g.when(agent)),
    "throw": lambda g, agent: ls.Throw("listener broke", g.actions(agent, 1), g.when(agent)),
})
AWAIT_ANSWERS: Mapping[str, Callable[[Generator, Agent], cmd.Command]] = MappingProxyType({
    "decide": lambda g, agent: cmd.Decide(tuple(g.listener(agent) for _ in range(g.ch.integer(0, 2)))),
    "step-result": Generator.step_result,
    "turn-stopping": Generator.turn_stopping,
})
NEXT_COMMANDS: Mapping[str, Callable[[Generator, Agent], cmd.Command]] = MappingProxyType({
    "send": Generator.send,
    "edit": Generator.edit,
    "cancel": lambda g, _: g.cancel(),
    "restart": Generator.restart,
    "wrong-answer": Generator.wrong_answer,
    **AWAIT_ANSWERS,
})
