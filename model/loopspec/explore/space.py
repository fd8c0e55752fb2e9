"""The exploration space: the model stepped over a scope's alphabet, every transition checked.

A state is the agent plus the log checker that has read the agent's log.  Expanding it steps each
class representative of the alphabet (:mod:`loopspec.statespace.alphabet`) and, for every command
the model accepts, checks in order: nothing but a rule refusal is ever raised; the headline
invariants (:mod:`.invariants`); notifications follow their records and edits follow the
coordinate rules (:mod:`.emission`); ids are unique and the checker's inbox is the model's; and
the log checker accepts the new events (:mod:`.log_rules`).  The key is the agent's canonical
key together with the checker's, both under one renaming of message ids.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from loopspec.check.machine import LogChecker
from loopspec.data.errors import CommandRefused, InvalidEvent
from loopspec.explore import log_rules
from loopspec.explore.emission import edit_semantics, emission
from loopspec.explore.invariants import REPLAY, Problem, Reading, headline
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.state import Agent, AgentTransition
from loopspec.statespace import scope as sc
from loopspec.statespace.alphabet import Alphabet
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Edge

State = tuple[Agent, LogChecker]
RAISES = "no command raises anything but a rule refusal"
LOG_RULES = "the log checker accepts every log the model writes"


class ExplorationSpace:
    def __init__(self, scope: Scope, *, classes: bool = True) -> None:
        self.scope = scope
        self.alphabet = Alphabet(scope, classes=classes)

    def root(self) -> State:
        return (Agent(), log_rules.fresh())

    def key(self, state: State, names: Renaming | None = None) -> Hashable:
        names = names or Renaming()
        agent, checker = state
        return (agent_key(agent, names), log_rules.checker_key(checker, names))

    def expand(self, state: State) -> Iterator[Edge[State]]:
        agent, checker = state
        names = Renaming()
        self.key(state, names)  # the ids the key mentions: the others are interchangeable
        moves: list[tuple[cmd.LoopCommand, int]] = list(self.alphabet.entries(agent, names.numbers))
        hops = sc.HOP_STOPS in self.scope.kinds
        if hops:
            moves.append((cmd.Advance(), 1))  # refused (INPUT-4) anywhere but at a hop
        for command, size in moves:
            edge, passed = self._edge(agent, checker, command, size)
            yield edge
            # The same command stopping at each hop it passed: the states where a call lands there.
            for stopped in lifecycle.stops_along(command, passed) if hops and passed else ():
                yield self._edge(agent, checker, stopped, size)[0]

    def _edge(self, agent: Agent, checker: LogChecker, command: cmd.LoopCommand, size: int
              ) -> tuple[Edge[State], AgentTransition | None]:
        """The edge of one move, checked, and its transition (None where it was refused or raised)."""
        acting = _acting(command)
        try:
            # Looked up at call time, so a patched model (a mutant) is the one explored.
            tr = lifecycle.run_command(agent, command)
        except CommandRefused as refusal:
            return Edge(command, size, None, None, (), edit_semantics(agent, acting, None, refusal)), None
        except Exception as err:  # the invariant is about exactly this: anything but a rule refusal
            raised = Problem(RAISES, "", f"{type(err).__name__}: {err}")
            return Edge(command, size, None, None, (), raised), None
        # A command that wrote nothing leaves the checker as it was: share it (checkers are
        # only ever fed after a fork, so a shared one is never changed).
        child = log_rules.fork(checker) if tr.events else checker
        problem = self.check(agent, acting, tr, child)
        next_state = (tr.agent, child)
        key = None if problem is not None else self.key(next_state)
        return Edge(command, size, next_state, key, tr.fired, problem), tr

    def check(self, before: Agent, command: cmd.Command | None, tr: AgentTransition, checker: LogChecker
              ) -> Problem | None:
        """Every check of one transition; ``command`` is None when the loop went on by itself."""
        try:
            reading = Reading(before, tr)
        except InvalidEvent as err:
            return Problem(REPLAY, err.rule, f"the model's own log does not fold: {err.message}")
        problem: Problem | None = (headline(before, command, tr, reading) or emission(before, tr, reading)
                                   or edit_semantics(before, command, reading,
                                                     inside=before.call is None and tr.agent.call is not None))
        if problem is not None or not tr.events:
            return problem
        violation = log_rules.feed(checker, tr.events)
        if violation is not None:
            return Problem(LOG_RULES, violation.rule, f"seq {violation.seq}: {violation.message}")
        inbox = tr.agent.inbox
        live = (tuple(m.id.value for m in inbox.next_turn), tuple(m.id.value for m in inbox.next_step))
        if log_rules.pending_ids(checker) != live:
            return Problem(REPLAY, "FOLD-5", f"the checker's fold of the log holds {log_rules.pending_ids(checker)}, "
                           f"the live inbox {live}")
        return None


def _acting(command: cmd.LoopCommand) -> cmd.Command | None:
    """The command whose effects a move's checks judge; None when the loop goes on by itself."""
    if isinstance(command, cmd.Stopping):
        return command.command
    return None if isinstance(command, cmd.Advance) else command
