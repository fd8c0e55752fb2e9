"""The map a conformance tour walks: every model state of a scope, every class of command at each.

A tour (:mod:`.tour`) sends an implementation long walks instead of one fresh case per explored
path, so it needs the model's state graph up front: which states the scope reaches (breadth first,
to the scope's depth), the classes of commands at each (:meth:`Alphabet.members`) and where each
class leads.  States are keyed by :func:`~loopspec.statespace.canon.agent_key` with ids *kept as
they are* (no symmetry reduction): a walk is a run of concrete commands, so a state met in a walk
must be the very state of the map, not a renaming of it, for the map's commands to apply.  The
log checker is not part of the key either: a tour is about the implementation's answers, and
the model's own exploration checks the log rules over the same scope.

The map also gives the ways between states a walk needs when the state it is at has nothing left
to send: the states as first met, from which the tour finds its ways between states of the map
over the commands an adapter can take, and for a state past the depth bound the distinct states
one command away (:meth:`TourPlan.moves_beyond`, stepped when a walk first gets there).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from loopspec.data.errors import CommandRefused
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run_command, step, stops_along
from loopspec.loop.state import Agent
from loopspec.statespace.alphabet import Alphabet
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.scope import HOP_STOPS, Scope
from loopspec.statespace.search import Edge, Outcome, breadth_first

Classes = tuple[tuple[cmd.LoopCommand, ...], ...]


class TourPlan:
    """The scope's states, each expanded state's classes and successors, and the states as first met.

    States are numbered as they are met (0 is a fresh agent): a key is a deep tuple of messages,
    and a walk looks states up far more often than it meets new ones, so each key is hashed once.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.alphabet = Alphabet(scope)
        self._numbers: dict[Hashable, int] = {}
        self.classes: dict[int, Classes] = {}  # the expanded states' classes, in alphabet order
        self.agents: dict[int, Agent] = {}  # the expanded states, as the search first met them
        self.successors: dict[int, tuple[int | None, ...]] = {}  # per class: the state it leads to
        self._moves: dict[int, tuple[tuple[int, cmd.LoopCommand], ...]] = {}
        self.outcome: Outcome[Agent] = breadth_first(_Recorder(self), scope.depth)

    def state(self, agent: Agent) -> int:
        """The number of ``agent``'s state: its key with message ids as they are."""
        key = agent_key(agent, Renaming(symmetric=False))
        return self._numbers.setdefault(key, len(self._numbers))

    def expanded(self, state: int) -> bool:
        return state in self.classes

    def moves_beyond(self, key: int, agent: Agent) -> tuple[tuple[int, cmd.LoopCommand], ...]:
        """The distinct other states one command from ``agent``, a state past the depth bound, each with a
        command there (stepped once, when a walk first gets here)."""
        known = self._moves.get(key)
        if known is not None:
            return known
        seen: dict[int, cmd.LoopCommand] = {}
        for members in self.alphabet.members(agent):
            if isinstance(members[0], cmd.Restart):
                continue  # a restart goes nowhere a walk needs, and reloads the whole session
            try:
                after = self.state(step(agent, members[0]).agent)
            except CommandRefused:
                continue
            if after != key:
                seen.setdefault(after, members[0])
        moves = self._moves[key] = tuple(seen.items())
        return moves


class _Recorder:
    """The model as a search space, recording the map as the search expands it."""

    def __init__(self, plan: TourPlan) -> None:
        self.plan = plan

    def root(self) -> Agent:
        return Agent()

    def key(self, state: Agent) -> Hashable:
        return self.plan.state(state)

    def expand(self, state: Agent) -> Iterator[Edge[Agent]]:
        plan, key = self.plan, self.plan.state(state)
        classes: Classes = plan.alphabet.members(state)
        successors: list[int | None] = []
        plan.classes[key], plan.agents[key] = classes, state
        hops = HOP_STOPS in plan.scope.kinds
        if hops:  # the loop going on from a hop (refused anywhere else), and stops at the hops passed
            classes = plan.classes[key] = (*classes, (cmd.Advance(),))
        stops: list[tuple[cmd.LoopCommand, ...]] = []
        for members in classes:
            try:
                transition = run_command(state, members[0])
            except CommandRefused:
                successors.append(None)
                yield Edge(members[0], len(members), None, None)
                continue
            after = plan.state(transition.agent)
            successors.append(after)
            yield Edge(members[0], len(members), transition.agent, after, transition.fired)
            stops += [(stopped,) for stopped in (stops_along(members[0], transition) if hops else ())]
        for stop in stops:
            transition = run_command(state, stop[0])
            after = plan.state(transition.agent)
            successors.append(after)
            yield Edge(stop[0], 1, transition.agent, after, transition.fired)
        plan.classes[key] = (*classes, *stops)
        plan.successors[key] = tuple(successors)
