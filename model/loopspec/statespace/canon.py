"""The canonical key of an agent state, with symmetry reduction over message ids.

Two agents with equal keys behave the same under every future command sequence (up to renaming
ids and to the numbers the log counts with), so a search visits one of them.  The key holds:

* the phase, both inbox lists and the running turn (step number, open step, abort cause, latched
  wake, the reason the steps set, the claimed batch, the open step's tool calls, and at a hop the
  pre-step's held outcome or the failure about to end the turn), and at a point inside a call the
  phase it came in and the cancel it still owes — what the table's guards and effects read;
* of the log, only what a future command reads: whether it ends with ``session/end-seed`` (a restart
  writes no second marker, REPAIR-2).  A restart also reads the open turn, step and pending tool
  calls and folds the inbox and the turn count out of the log; the explorer checks at every state
  that those equal the running turn, the inbox and the turn count (replay equals live state), so
  they are already in the key.

It leaves out what only *numbers* the future: the turn counter (turn numbers are session-global
and only compared for succession, TURN-1), ``seq`` (the log's length, LOG-2) and ``time`` (the
log's clock; the only rule reading it compares a closer's time with the event before, REPAIR-3).

**Symmetry.**  The alphabet treats every message id alike and the model never looks into an id
(data independence), so states equal up to a renaming of ids behave alike.  :class:`Renaming`
numbers ids by first appearance while the key is built; a message becomes ``(number, text)``,
the texts being id-free by construction of the alphabet.  Renamed states get equal keys, and
states with equal keys are renamings of each other.
"""

from __future__ import annotations

import re
from collections.abc import Hashable

from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import Messages, UserMessage
from loopspec.log.kinds import END_SEED
from loopspec.loop.pre_step import Enter
from loopspec.loop.state import Agent

_QUOTED = re.compile(r'"([^"]*)"')


class Renaming:
    """Message ids numbered by first appearance; with ``symmetric=False`` ids are kept as they are."""

    __slots__ = ("numbers", "symmetric")

    def __init__(self, symmetric: bool = True) -> None:
        self.symmetric = symmetric
        self.numbers: dict[str, int] = {}

    def id(self, value: str) -> Hashable:
        if not self.symmetric:
            return value
        number = self.numbers.get(value)
        if number is None:
            number = self.numbers[value] = len(self.numbers)
        return number

    def message(self, m: UserMessage) -> Hashable:
        if not self.symmetric:
            return m
        return (self.id(m.id.value), m.text)

    def messages(self, ms: Messages) -> tuple[Hashable, ...]:
        return tuple(self.message(m) for m in ms)


def _failure(failure: Frozen, names: Renaming) -> Hashable:
    """The failure a turn holds at the hop before its error end: its text names an id when a refused
    insertion failed the step (``message "a" is already pending``), so each quoted name is renamed
    like any id, or two renamings of one state would get different keys (a listener's held throw
    likewise)."""
    if not isinstance(failure, JsonObject):
        return failure
    text = failure.get("message")
    if not isinstance(text, str):
        return failure
    rest = tuple((key, failure[key]) for key in failure if key != "message")
    return (_renamed(text, names), rest)


def _renamed(text: str, names: Renaming) -> str:
    """An error's text with each quoted name renamed as an id (the model quotes ids and nothing else)."""
    return _QUOTED.sub(lambda m: f"#{names.id(m.group(1))}", text)


def agent_key(agent: Agent, names: Renaming) -> Hashable:
    """The agent's part of a state key (see the module docstring for what is in and out)."""
    inbox = agent.inbox
    # First appearance order: next-turn, next-step, then the claimed batch.
    lanes = (names.messages(inbox.next_turn), names.messages(inbox.next_step))
    run = agent.running
    running: Hashable = None
    if run is not None:
        held: Hashable = None
        if run.held is not None:  # at a hop after the pre-step: what the turn is about to act on
            decision = run.held.decision
            entered = names.messages(decision.messages) if isinstance(decision, Enter) else None
            raised = run.held.raised
            held = (type(decision).__name__, entered, None if raised is None else _renamed(raised, names))
        running = (
            run.step, run.step_open, run.aborted, run.wake_requested, run.turn_ends, names.messages(run.batch),
            tuple(started for _, started in run.calls), run.announced, run.normal_exit, held,
            _failure(run.failure, names), run.prompting,
        )
    events = agent.log.events
    marked = bool(events) and events[-1].type == END_SEED
    call = agent.call  # at a point inside a call: the phase it came in, the cancel still to finish,
    inside = None if call is None else (call.phase, call.cancel, call.held)  # a send held at its hop
    return (agent.phase, lanes, running, marked, inside)
