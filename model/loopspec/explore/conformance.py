"""Exhaustive conformance: every transition of a scope asked of an implementation, as the model answers it.

``loopspec explore --ids K --depth N -- ADAPTER...`` explores the model's scope as usual and, on
every transition (an accepted command and a refused one alike), replays the command sequence that
reached it against the adapter (``reset``, the sequence, ``state`` after each command, in one
pipelined batch: :class:`loopspec.vectors.drive_check.Checker`) and compares each answer with the
model's.  Breadth first, the first disagreement found is a shortest one among the explored
sequences, and it is written as a vector case whose expectations are the model's.

A fresh case is what an implementation spends most on (a real one builds an agent, a session and
a store), and most transitions are loops that leave the model as it was (refusals, edits that
change nothing): a state's loops share one sequence (:meth:`ConformanceSpace._judge`), and the
sequences of a state may be spread over worker processes (:mod:`.adapter_pool`).

What this proves, and what not: every sequence the exploration visits is compared, and the search
visits one sequence per distinct *model* state (the key of :class:`~.space.ExplorationSpace`)
together with the lifecycle-table rows fired since the agent was last idle.  The rows are in the
key because an implementation's state can remember what the model's forgets: after a clearing
cancel the model is where it would be had no wake ever been latched, but an implementation that
keeps the latch is not, and it shows only on the path that latched.  Paths through the same rows
to the same model state are compared on the first one only; ``drive`` samples the rest.  Commands
are stepped one by one (no command classes: a class is an argument about the model's code, which
an implementation does not share), and commands outside the adapter's capability profile, or
needing a capability it lacks (its hello's ``lacks``), are neither sent nor followed.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from loopspec.explore.adapter_pool import Checks
from loopspec.explore.invariants import Problem
from loopspec.explore.space import ExplorationSpace
from loopspec.explore.space import State as ModelState
from loopspec.loop import commands as cmd
from loopspec.loop.phases import IDLE
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Edge
from loopspec.vectors.capabilities import needs_lacked
from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive_check import Expected
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profiles import ops_of
from loopspec.vectors.reference_model import Model, initial

CONFORMS = "the implementation answers every command as the model does"

State = tuple[ModelState, Model, tuple[Expected, ...], frozenset[str]]
"""The explored state, the vector model in the same state, the commands that first reached it
with the model's answers (what the adapter is sent to get there, and what it must answer), and
the table rows fired since the agent was last idle."""


class ConformanceSpace:
    """The exploration space, each transition also compared with an implementation's answers."""

    def __init__(self, scope: Scope, checks: Checks) -> None:
        self.model = ExplorationSpace(scope, classes=False)
        self.checks = checks
        self.profile = checks.profile
        self.skipped = 0  # transitions whose command the adapter's profile or capabilities lack

    def root(self) -> State:
        return (self.model.root(), initial(self.profile.name), (), frozenset())

    def key(self, state: State) -> Hashable:
        return (self.model.key(state[0]), state[3])

    def expand(self, state: State) -> Iterator[Edge[State]]:
        model_state, vector_model, path, rows = state
        planned: list[tuple[Edge[ModelState], Model, Expected | None]] = []
        for edge in self.model.expand(model_state):
            if edge.problem is not None:  # the model itself broke an invariant: that is the finding
                planned.append((edge, vector_model, None))
                continue
            encoded = encode_command(edge.command)
            if not self.profile.runs(ops_of(encoded)) or needs_lacked(self.checks.lacks, vector_model, edge.command):
                self.skipped += 1  # outside the profile, or a state the adapter cannot be driven to (I4)
                continue
            # The model's answer to this one command, from the state the path left it in (the
            # vector model answers in the protocol's terms; the explored agent keys the search).
            after, observation = observe(vector_model, edge.command)
            planned.append((edge, after, Expected(edge.command, encoded, observation,
                                                  self.profile.state(state_of(after)))))
        problems = self._judge(vector_model, path, planned)
        for (edge, after, step), problem in zip(planned, problems, strict=True):
            if step is None or problem is not None:
                yield Edge(edge.command, edge.size, None, None, edge.fired, problem or edge.problem)
            elif edge.state is None:
                yield Edge(edge.command, edge.size, None, edge.key, edge.fired, None)
            else:
                since_idle = frozenset() if edge.state[0].phase == IDLE else rows.union(edge.fired)
                child = (edge.state, after, (*path, step), since_idle)
                yield Edge(edge.command, edge.size, child, (edge.key, since_idle), edge.fired, None)

    def _judge(self, before: Model, path: tuple[Expected, ...],
               planned: list[tuple[Edge[ModelState], Model, Expected | None]]) -> list[Problem | None]:
        """Each planned transition's disagreement (or None), all of one state's sent together.

        A transition that leaves the vector model as it was (a refusal, an edit that changes
        nothing) is a loop: the loops of a state are sent as one sequence after the path, each
        expected to answer as from the state itself.  Only when that sequence disagrees is each
        loop sent alone, so the problem found is the one a sequence per transition would find;
        a disagreement that needs several loops in a row is reported with the loops it needs.
        """
        loops = [i for i, (_, after, step) in enumerate(planned) if step is not None and after == before]
        alone = [i for i, (_, after, step) in enumerate(planned) if step is not None and after != before]
        sequences = [(*path, _step(planned[i])) for i in alone]
        if loops:
            sequences.append((*path, *(_step(planned[i]) for i in loops)))
        found = self.checks.run(sequences)
        problems: list[Problem | None] = [None] * len(planned)
        for i, finding in zip(alone, found, strict=False):
            problems[i] = problem_of(finding, len(path) + 1)
        if loops and found[-1] is not None:
            each = self.checks.run([(*path, _step(planned[i])) for i in loops])
            for i, finding in zip(loops, each, strict=True):
                problems[i] = problem_of(finding, len(path) + 1)
            if all(p is None for p in each):  # only the loops together disagree
                needed = found[-1][1]
                first = max(needed - len(path) - 1, 0)
                problems[loops[first]] = problem_of(found[-1], needed, tuple(
                    planned[i][0].command for i in loops[:first]))
        return problems


def _step(planned: tuple[Edge[ModelState], Model, Expected | None]) -> Expected:
    step = planned[2]
    assert step is not None
    return step


def problem_of(found: tuple[str, int] | None, length: int, before: tuple[cmd.LoopCommand, ...] = ()) -> Problem | None:
    """The disagreement a checked sequence of ``length`` commands found, as the search reports it."""
    if found is None:
        return None
    message, needed = found
    # The checker names the command already (counted from 1, "command 3 (append): ...").
    own = f"command {needed} "
    text = " " + message.removeprefix(own) if message.startswith(own) else ": " + message
    return Problem(CONFORMS, "", f"command {needed} of {length}{text}", before)
