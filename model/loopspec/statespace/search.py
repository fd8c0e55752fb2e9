"""The one breadth-first search over the model's state space.

Two users share it: ``loopspec explore`` runs it over a scope's whole alphabet and stops at the
first broken invariant; the trace-validation judge runs it over the commands a log allows and
stops at a run that wrote the whole log.  A :class:`Space` says what a state is, how to key it and
how to expand it; the search does the rest: level by level, each key visited once, parent links
for the shortest path to anything it finds (breadth-first gives "shortest" for free).

The search is a function of its space: no module state, no randomness.  Level order is the
order :meth:`Space.expand` yields edges, so two runs of one space visit the same states in the
same order and report the same witnesses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, NamedTuple, Protocol, TypeVar

import attrs

from loopspec.loop import commands as cmd

S = TypeVar("S")


class Edge(NamedTuple, Generic[S]):
    """One stepped command: its class size, the state it leads to (None if refused), rows fired, a problem."""

    command: cmd.LoopCommand
    size: int
    state: S | None
    key: Hashable
    fired: tuple[str, ...] = ()
    problem: object = None


class Node(Generic[S]):
    """A visited state with the link back to the state and command it was first reached by."""

    __slots__ = ("command", "depth", "parent", "state")

    def __init__(self, state: S, parent: Node[S] | None, command: cmd.LoopCommand | None, depth: int) -> None:
        self.state = state
        self.parent = parent
        self.command = command
        self.depth = depth

    def path(self) -> tuple[cmd.LoopCommand, ...]:
        """The commands from the root to this state."""
        out: list[cmd.LoopCommand] = []
        node: Node[S] | None = self
        while node is not None and node.command is not None:
            out.append(node.command)
            node = node.parent
        return tuple(reversed(out))


class Space(Protocol[S]):
    def root(self) -> S: ...

    def key(self, state: S) -> Hashable: ...

    def expand(self, state: S) -> Iterable[Edge[S]]: ...


Arrival = Callable[[Node[S], Edge[S], Node[S], bool], None]
"""``(parent, edge, child, new)``: called for every edge that leads to a state (new or not)."""


@attrs.frozen
class Found(Generic[S]):
    """What stopped the search: a problem on an edge, or a goal state; ``path`` reaches it."""

    path: tuple[cmd.LoopCommand, ...]
    problem: object
    state: S | None


@attrs.define
class Outcome(Generic[S]):
    """The search's account: counts, how deep it got, whether it searched its whole bound."""

    states: int = 0
    transitions: int = 0
    commands: int = 0
    depth: int = 0
    complete: bool = False
    closed: bool = False
    seconds: float = 0.0
    found: Found[S] | None = None
    levels: list[int] = attrs.Factory(list)


def breadth_first(
    space: Space[S],
    max_depth: int,
    *,
    arrive: Arrival[S] | None = None,
    goal: Callable[[S], object] | None = None,
    max_states: int | None = None,
    deadline: float | None = None,
) -> Outcome[S]:
    """Search ``space`` level by level to ``max_depth`` commands.

    Stops at the first edge with a problem, or at the first state ``goal`` says something about
    (a truthy value, kept as the found problem).  ``complete`` is true when every execution up to
    ``max_depth`` was searched (no problem, goal, budget or deadline cut it short); ``closed`` when
    the last level found no new state, so the bound was not needed.
    """
    started = time.perf_counter()
    out: Outcome[S] = Outcome()
    root = space.root()
    first = Node(root, None, None, 0)
    visited: dict[Hashable, Node[S]] = {space.key(root): first}
    out.states, out.levels = 1, [1]
    if goal is not None and (hit := goal(root)):
        out.found = Found((), hit, root)
        return _done(out, started)
    frontier = [first]
    for depth in range(1, max_depth + 1):
        level: list[Node[S]] = []
        for node in frontier:
            for edge in space.expand(node.state):
                out.transitions += 1
                out.commands += edge.size
                if edge.problem is not None:
                    out.found = Found((*node.path(), edge.command), edge.problem, edge.state)
                    out.depth = depth
                    return _done(out, started)
                if edge.state is None:
                    continue
                seen = visited.get(edge.key)
                if seen is None:
                    child = Node(edge.state, node, edge.command, depth)
                    visited[edge.key] = child
                    level.append(child)
                    if arrive is not None:
                        arrive(node, edge, child, True)
                    if goal is not None and (hit := goal(edge.state)):
                        out.states += len(level)
                        out.found = Found(child.path(), hit, edge.state)
                        out.depth = depth
                        return _done(out, started)
                elif arrive is not None:
                    arrive(node, edge, seen, False)
            if (max_states is not None and out.states + len(level) >= max_states) or (
                deadline is not None and time.perf_counter() > deadline
            ):
                out.states += len(level)
                out.depth = depth
                return _done(out, started)
        out.states += len(level)
        out.levels.append(len(level))
        out.depth = depth if level else depth - 1
        if not level:
            out.closed = True
            break
        frontier = level
    out.complete = True
    return _done(out, started)


def _done(out: Outcome[S], started: float) -> Outcome[S]:
    out.seconds = time.perf_counter() - started
    return out
