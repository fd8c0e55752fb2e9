"""The exploration over several processes: frontier partitions, one coordinator deduplicating keys.

The coordinator runs the first levels itself (:class:`LevelSearch`, the same code a worker runs)
until the frontier is wide enough, then deals the frontier out to the workers.  From then on each
level is one round: every worker expands its own frontier and reports the keys of the states it
found that were not yet known; the coordinator keeps, for each new key, the finding of the worker
whose next frontier is smallest (so the partitions stay balanced), and every worker learns the
level's new keys.  States never travel after the deal — only keys — so a round costs little more
than the expansion itself.

Counts are those of the serial search (each key is expanded once, by one worker).  Row pairs
that meet at a state (a way in, a way out) are joined by key at the end, over all workers.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import time
from collections.abc import Hashable
from multiprocessing.connection import Connection
from typing import Any

from loopspec.explore.invariants import Problem
from loopspec.explore.result import Counterexample, Exploration
from loopspec.explore.space import ExplorationSpace, State
from loopspec.loop import commands as cmd
from loopspec.statespace.pairs import Commands, Pair
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Node

WIDE = 64  # frontier states per worker before the coordinator deals the frontier out


class LevelSearch:
    """One partition of a level-synchronous breadth-first search, with keyed coverage bookkeeping."""

    def __init__(self, scope: Scope, classes: bool, depth: int, visited: set[Hashable],
                 frontier: list[tuple[State, Commands]]) -> None:
        self.space = ExplorationSpace(scope, classes=classes)
        self.max_depth = scope.depth
        self.depth = depth
        self.visited = visited
        self.frontier: list[tuple[Node[State], Hashable]] = [
            (_rooted(state, path), self.space.key(state)) for state, path in frontier]
        self.candidates: list[tuple[Node[State], Hashable]] = []
        self.transitions = self.commands = 0
        self.rows: dict[str, Commands] = {}
        self.inner: dict[Pair, Commands] = {}
        self.ways_in: dict[Hashable, dict[str, Commands]] = {}
        self.ways_out: dict[Hashable, dict[str, cmd.LoopCommand]] = {}

    def expand(self) -> tuple[list[Hashable], Counterexample | None]:
        """Expand the frontier one level; the new keys found (in order) and the first problem."""
        self.depth += 1
        found: dict[Hashable, Node[State]] = {}
        for node, key in self.frontier:
            for edge in self.space.expand(node.state):
                self.transitions += 1
                self.commands += edge.size
                if edge.problem is not None:
                    assert isinstance(edge.problem, Problem)
                    return [], Counterexample((*node.path(), edge.command), edge.problem)
                if edge.state is None:
                    continue
                child = found.get(edge.key)
                if child is None and edge.key not in self.visited:
                    child = found[edge.key] = Node(edge.state, node, edge.command, self.depth)
                self._cover(node, key, edge.command, edge.fired, edge.key)
        self.candidates = [(n, k) for k, n in found.items()]
        return [k for _, k in self.candidates], None

    def _cover(self, node: Node[State], key: Hashable, command: cmd.LoopCommand, fired: tuple[str, ...],
               child: Hashable) -> None:
        if not fired:
            return
        length = node.depth + 1
        path: Commands | None = None
        for row in fired:
            if row not in self.rows or len(self.rows[row]) > length:
                path = path or (*node.path(), command)
                self.rows[row] = path
        for pair in itertools.pairwise(fired):
            if pair not in self.inner or len(self.inner[pair]) > length:
                path = path or (*node.path(), command)
                self.inner[pair] = path
        self.ways_out.setdefault(key, {}).setdefault(fired[0], command)
        ways = self.ways_in.setdefault(child, {})
        if fired[-1] not in ways or len(ways[fired[-1]]) > length:
            ways[fired[-1]] = path or (*node.path(), command)

    def settle(self, won: list[bool], new_keys: list[Hashable]) -> None:
        """Keep the candidates this partition won as its next frontier; learn every new key."""
        self.frontier = [c for c, keep in zip(self.candidates, won, strict=True) if keep]
        self.candidates = []
        self.visited.update(new_keys)

    def coverage(self) -> tuple[Any, ...]:
        return self.rows, self.inner, self.ways_in, self.ways_out, self.transitions, self.commands


def _rooted(state: State, path: Commands) -> Node[State]:
    """A node whose path is ``path`` (a chain of placeholder nodes carries the prefix)."""
    node: Node[State] | None = None
    for depth, command in enumerate(path):
        node = Node(state, node, command, depth + 1)  # placeholders: only their commands are read
    return node if node is not None else Node(state, None, None, 0)


def _worker(conn: Connection, scope: Scope, classes: bool) -> None:
    search: LevelSearch | None = None
    while True:
        message = conn.recv()
        if message[0] == "start":
            _, depth, visited, frontier = message
            search = LevelSearch(scope, classes, depth, visited, frontier)
        elif message[0] == "expand":
            assert search is not None
            conn.send(search.expand())
        elif message[0] == "settle":
            assert search is not None
            search.settle(message[1], message[2])
            conn.send(len(search.frontier))
        else:
            assert search is not None
            conn.send(search.coverage())
            return


def explore_parallel(scope: Scope, workers: int, *, classes: bool = True, max_states: int | None = None,
                     seconds: float | None = None) -> Exploration:
    started, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    space = ExplorationSpace(scope, classes=classes)
    root = space.root()
    coordinator = LevelSearch(scope, classes, 0, {space.key(root)}, [(root, ())])
    levels: list[int] = [1]
    problem: Counterexample | None = None
    partitions: list[LevelSearch | Connection] = [coordinator]
    processes: list[Any] = []
    while (len(levels) <= scope.depth and levels[-1] and len(coordinator.frontier) < WIDE * workers
           and not _cut(levels, max_states, started, seconds)):
        keys, problem = coordinator.expand()
        if problem is not None:
            break
        coordinator.settle([True] * len(keys), keys)
        levels.append(len(keys))
    if problem is None and len(levels) <= scope.depth and levels[-1]:
        context = mp.get_context("fork")
        for i in range(workers):
            share = [(n.state, n.path()) for n, _ in coordinator.frontier[i::workers]]
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(theirs, scope, classes), daemon=True)
            process.start()
            mine.send(("start", len(levels) - 1, coordinator.visited, share))
            partitions.append(mine)
            processes.append(process)
        coordinator.frontier = []
        conns = [p for p in partitions if isinstance(p, Connection)]
        problem = _rounds(conns, coordinator, levels, scope, max_states, started, seconds)
    closed = levels[-1] == 0
    complete = problem is None and (closed or len(levels) > scope.depth)
    if closed:
        levels.pop()
    rows, pairs, transitions, commands = _merge(partitions, scope.depth)
    for process in processes:
        process.join()
    used = time.process_time() - cpu + _children_cpu() - children
    return Exploration(scope, sum(levels), transitions, commands, len(levels) - 1, tuple(levels), complete,
                       closed, time.perf_counter() - started, used, workers, rows, pairs, problem)


def _rounds(conns: list[Connection], coordinator: LevelSearch, levels: list[int], scope: Scope,
            max_states: int | None, started: float, seconds: float | None) -> Counterexample | None:
    sizes = [0] * len(conns)
    while len(levels) <= scope.depth and levels[-1] and not _cut(levels, max_states, started, seconds):
        for conn in conns:
            conn.send(("expand",))
        replies = [conn.recv() for conn in conns]
        problems: list[Counterexample] = [p for _, p in replies if p is not None]
        if problems:
            return problems[0]
        owner: dict[Hashable, int] = {}
        for index, (keys, _) in enumerate(replies):
            for key in keys:
                best = owner.get(key)
                if best is None or sizes[index] < sizes[best]:
                    if best is not None:
                        sizes[best] -= 1
                    owner[key] = index
                    sizes[index] += 1
        new_keys = list(owner)
        for index, (conn, (keys, _)) in enumerate(zip(conns, replies, strict=True)):
            conn.send(("settle", [owner[k] == index for k in keys], new_keys))
        sizes = [conn.recv() for conn in conns]
        coordinator.visited.update(new_keys)
        levels.append(len(new_keys))
    return None


def _cut(levels: list[int], max_states: int | None, started: float, seconds: float | None) -> bool:
    return (max_states is not None and sum(levels) >= max_states) or (
        seconds is not None and time.perf_counter() - started > seconds)


def _merge(partitions: list[LevelSearch | Connection], depth: int) -> tuple[
        dict[str, Commands], dict[Pair, Commands], int, int]:
    rows: dict[str, Commands] = {}
    pairs: dict[Pair, Commands] = {}
    ways_in: dict[Hashable, dict[str, Commands]] = {}
    ways_out: dict[Hashable, dict[str, cmd.LoopCommand]] = {}
    transitions = commands = 0
    for part in partitions:
        if isinstance(part, LevelSearch):
            got = part.coverage()
        else:
            part.send(("finish",))
            got = part.recv()
        part_rows, inner, part_in, part_out, part_transitions, part_commands = got
        transitions, commands = transitions + part_transitions, commands + part_commands
        _shortest(rows, part_rows)
        _shortest(pairs, inner)
        for key, ways in part_in.items():
            _shortest(ways_in.setdefault(key, {}), ways)
        for key, outs in part_out.items():
            for row, command in outs.items():
                ways_out.setdefault(key, {}).setdefault(row, command)
    for key, ways in ways_in.items():
        for row_in, path in ways.items():
            if len(path) >= depth:
                continue
            for row_out, command in ways_out.get(key, {}).items():
                _shortest(pairs, {(row_in, row_out): (*path, command)})
    return rows, pairs, transitions, commands


def _shortest(table: dict[Any, Commands], more: dict[Any, Commands]) -> None:
    for key, path in more.items():
        if key not in table or len(path) < len(table[key]):
            table[key] = path


def _children_cpu() -> float:
    """CPU seconds the finished (joined) child processes of this process have used so far."""
    times = os.times()
    return times.children_user + times.children_system
