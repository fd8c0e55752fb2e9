"""Commands worth sending next, for the vector generator and the differential driver.

:func:`next_command` looks at the agent's phase and picks, mostly, a command the lifecycle table
accepts there (the await point's answer is the likeliest), plus edits and sends at any time and,
now and then, an answer for the wrong phase (INPUT-4) or an id that is already pending
(SPLICE-3).  Choices go through a :class:`Chooser`, so the same generator runs on a seeded
``random.Random`` (``vectors generate``) and on Hypothesis draws (``drive``, which then shrinks).

Rare paths without luck: ``drive`` hands the generators of one example a :class:`.swarm.Swarm`, a
mix of the choices below for that example (a theme per group of spec areas, one option favoured,
some left out), and about a quarter of the commands follow a *hint* (:mod:`.command_hints`): an
input the spec makes interesting in the agent's current state (the abort window, a long turn, a
listener chain, a long list, a pending id).  Every choice is named (:meth:`Generator.choose`) so a
swarm can weigh it; without a swarm the plain mix applies.  A few options serve rare rules
directly: an id that differs from a pending one only by case (DATA-1), a replacement keeping the
replaced id (SPLICE-9), a drop of an id another listener adds (DECIDE-3), splice coordinates
relative to the edited list and an edit on the fuller list (NORM).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.state import NO_TURN_HOPS, Agent
from loopspec.vectors.command_builders import (
    ACTION_BUILDERS,
    ANSWER_BUILDERS,
    ANSWERS,
    COUNTS,
    EDIT_BUILDERS,
    LISTENER_BUILDERS,
    MOVES,
    SEND_BUILDERS,
)
from loopspec.vectors.command_hints import hinted

T = TypeVar("T")


class Swarm(Protocol):
    """What a generator asks of an example's swarm (:class:`loopspec.vectors.swarm.Swarm`); named
    here as a protocol because the swarm module reads this module's option tuples."""

    def mix(self, name: str, options: Sequence[T], labels: Sequence[str] | None = None) -> Sequence[T]: ...

# A small id pool makes duplicates, same-id replacements and misses frequent (SPLICE-3, SPLICE-9).
ID_POOL = ("a", "b", "c", "d", "e", "f")
NUMBERS: tuple[JsNumber, ...] = (0, 1, 2, -1, -2, 3, 0.5, -0.5, -1.5, math.nan, math.inf, -math.inf, -0.0, 10**20)
MENU = ("answer",) * 6 + ("send",) * 3 + ("edit",) * 2 + ("cancel", "restart", "wrong-answer")


EDITS = ("append", "prepend", "splice", "replace", "remove", "clear")
SENDS = ("followup", "steer", "inject", "send")
LISTENERS = ("wrap", "wrap", "veto", "throw")
ACTIONS = ("send", "send", "edit", "cancel")
TRANSFORMS = ("keep", "drop-batch", "drop-first", "add", "replace", "drop-pool")
ID_CHOICES = ("fresh", "fresh", "fresh", "fresh", "pool", "pending")
PENDING_CHOICES = ("pending", "pending", "pool", "near-miss")
LANES = ("fuller", "next-turn", "next-step")  # "fuller": the list holding more messages, where an edit does most
RELATIVE = ("len", "-len", "len-1", "1-len")  # splice coordinates relative to the edited list's length
AFTER_ABORT = ("answer", "answer", "send", "cancel", "edit")  # what an "answer" is once the turn is aborted
HINT_CHOICES = ("plain", "plain", "plain", "hinted")  # how often a command follows a hint (.command_hints)
# How often a command of the loop stops at a hop it passes (spec/loop-grain.md; the language's stop),
# and what a command at a hop mostly is: the loop going on (advance), or a call landing there.
STOP_CHOICES = ("run", "run", "run", "run", "hop")
AT_HOP_CHOICES = ("advance", "advance", "call")


COORDINATES = (*dict.fromkeys(repr(n) for n in NUMBERS), *RELATIVE)
"""The names of the splice coordinates a swarm weighs: the special numbers, then the relative ones."""


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


def _near_miss(mid: MessageId) -> MessageId:
    """An id that differs from ``mid`` only by letter case (DATA-1: ids are compared exactly)."""
    return MessageId(mid.value.swapcase() if mid.value.swapcase() != mid.value else mid.value + "A")


class Generator:
    """Builds commands; keeps a counter so fresh text distinguishes replacements."""

    def __init__(self, chooser: Chooser, serial: int = 0, swarm: Swarm | None = None) -> None:
        self.ch = chooser
        self.serial = serial
        self.swarm = swarm

    def choose(self, name: str, options: Sequence[T], labels: Sequence[str] | None = None) -> T:
        """One of ``options`` (a choice of :data:`SWARM_CHOICES`), weighted by the swarm if there is one."""
        return self.ch.pick(options if self.swarm is None else self.swarm.mix(name, options, labels))

    def msg(self, agent: Agent | None = None, mid: str | None = None) -> UserMessage:
        self.serial += 1
        pending = [m.id.value for m in agent.inbox.next_turn + agent.inbox.next_step] if agent else []
        fresh = [i for i in ID_POOL if i not in pending] or list(ID_POOL)
        # Mostly a fresh id; sometimes any id of the pool, possibly one that is pending.
        how = self.choose("id", ID_CHOICES)
        source = {"fresh": fresh, "pool": ID_POOL}.get(how) or pending or fresh
        mid = mid or self.ch.pick(source)
        return message(mid, f"{mid}#{self.serial}", extra=self.ch.integer(0, 7) == 0)

    def msgs(self, agent: Agent | None, most: int) -> Messages:
        return tuple(self.msg(agent) for _ in range(self.ch.integer(0, most)))

    def pending_id(self, agent: Agent) -> MessageId:
        ids = [m.id for m in agent.inbox.next_turn + agent.inbox.next_step]
        how = self.choose("pending", PENDING_CHOICES) if ids else "pool"
        if how == "pool":
            return MessageId(self.ch.pick(ID_POOL))
        found = self.ch.pick(ids)
        return _near_miss(found) if how == "near-miss" else found

    def lane(self, agent: Agent) -> InboxTarget:
        how = self.choose("lane", LANES)
        if how == "fuller":
            inbox = agent.inbox
            return InboxTarget.NEXT_STEP if len(inbox.next_step) > len(inbox.next_turn) else InboxTarget.NEXT_TURN
        return InboxTarget(how)

    def coordinate(self, length: int) -> JsNumber:
        """A splice start or count: a special number (NaN, -0, fractions, infinities) or one relative to the list."""
        relative: tuple[JsNumber, ...] = (length, -length, length - 1, 1 - length)
        return self.choose("coordinate", (*NUMBERS, *relative), COORDINATES)

    def edit(self, agent: Agent) -> cmd.InboxEdit:
        kind = self.choose("edit", EDITS)
        target = self.lane(agent)  # drawn for every edit, so a choice keeps its meaning while shrinking
        return EDIT_BUILDERS[kind](self, agent, target)

    def send(self, agent: Agent) -> cmd.Send:
        kind = self.choose("send", SENDS)
        return SEND_BUILDERS[kind](self, self.msg(agent))

    def cancel(self) -> cmd.Cancel:
        cause = self.ch.pick((cmd.USER_CAUSE, cmd.USER_CAUSE, freeze({"kind": "disposed"})))
        return cmd.Cancel(cause, self.ch.pick((False, True)))

    def action(self, agent: Agent) -> cmd.ListenerActionT:
        return ACTION_BUILDERS[self.choose("action", ACTIONS)](self, agent)

    def actions(self, agent: Agent, most: int) -> tuple[cmd.ListenerActionT, ...]:
        return tuple(self.action(agent) for _ in range(min(self.choose("actions", COUNTS), most)))

    def decision(self, agent: Agent) -> ls.PreStepDecision:
        options: tuple[ls.PreStepDecision, ...] = (ls.Enter(self.msgs(agent, 2)), ls.Reject())
        return self.ch.pick(options)

    def when(self, agent: Agent) -> ls.When:
        """Mostly every payload; sometimes only this or the next boundary's step, or this turn (DECIDE-1)."""
        run = agent.running
        # At a hop with no turn open (a started driver, a turn just ended) the next pre-step is the
        # next turn's first; the driver's turn field still holds the last turn there.
        turn, step = (run.turn, run.step + 1) if run and agent.phase not in NO_TURN_HOPS else (agent.last_turn + 1, 1)
        options = (ls.ALWAYS, ls.ALWAYS, ls.ALWAYS, ls.When(step=step), ls.When(step=step + 1), ls.When(turn=turn))
        return self.ch.pick(options)

    def listener(self, agent: Agent) -> ls.Listener:
        return LISTENER_BUILDERS[self.choose("listener", LISTENERS)](self, agent)

    def wrap(self, agent: Agent) -> ls.Listener:
        batch = agent.running.batch if agent.running else ()
        transforms: tuple[ls.Transform, ...] = (
            ls.Keep(),
            ls.Drop(tuple(m.id for m in batch)),
            ls.Drop(tuple(m.id for m in batch[:1])),
            ls.Add(self.msgs(agent, 1)),
            ls.Replace(self.decision(agent)),
            ls.Drop((MessageId(self.ch.pick(ID_POOL)),)),  # maybe what an inner listener adds (DECIDE-3)
        )
        chosen = self.choose("transform", transforms, TRANSFORMS)
        # DECIDE-9: actions that depend on what the rest of the chain decided.
        return ls.Wrap(chosen, self.actions(agent, 1), self.actions(agent, 1),
                       self.actions(agent, 1), self.actions(agent, 1), self.when(agent))

    def answer(self, agent: Agent, which: str) -> cmd.Command:
        """The answer ``which`` (a value of :data:`ANSWERS`) to the await point."""
        return ANSWER_BUILDERS[which](self, agent)

    def next_command(self, agent: Agent) -> cmd.Command:
        """One command for ``agent``: usually valid for its phase, sometimes deliberately not."""
        # One menu for every phase, so a drawn choice keeps its meaning when the shrinker deletes
        # earlier commands; while idle there is no await point and "answer" means a send.
        if self.choose("hint", HINT_CHOICES) == "hinted":
            command = hinted(self, agent)
            if command is not None:
                return command
        kind = self.choose("menu", MENU)
        answer = ANSWERS.get(agent.phase)
        if kind == "answer" and agent.running is not None and agent.running.aborted is not None:
            # An aborted turn ends at its next answer (a drained tool's result aside, CANCEL-5); what
            # happens before that (redirected and latched sends, a clearing cancel, CANCEL-4) is
            # reached only by not answering yet.
            kind = self.choose("after-abort", AFTER_ABORT)
        if kind == "answer":
            kind = answer if answer is not None else "send"
        return MOVES[kind](self, agent)
