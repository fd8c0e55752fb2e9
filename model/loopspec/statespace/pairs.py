"""Lifecycle-table rows and row pairs a search reaches, each with a shortest witness.

A command fires a sequence of rows (:attr:`AgentTransition.fired`: the command's row, its listener
actions' rows, the choice points it passed).  A *row pair* ``(r1, r2)`` is two rows fired one
right after the other in some execution, inside one command or across two consecutive commands.

Pairs across commands meet at a state: ``r1`` is the last row of a command into the state, ``r2``
the first row of a command out of it.  What a state can do next depends only on its key, so every
way into a state combines with every way out of it; :class:`RowPairs` keeps, per state, the
shortest way in for each last row and the ways out for each first row, and joins them whichever
arrives second.  A witness is a shortest command sequence (within the search's depth bound) whose
last command fires the pair's second row right after its first.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import Any

from loopspec.loop import commands as cmd
from loopspec.statespace.search import Edge, Node

Pair = tuple[str, str]
Commands = tuple[cmd.LoopCommand, ...]


class _Witness:
    """A witness kept as links (parent node, commands after it) and spelled out on demand."""

    __slots__ = ("after", "length", "node")

    def __init__(self, node: Node[Any], after: Commands) -> None:
        self.node = node
        self.after = after
        self.length = node.depth + len(after)

    def commands(self) -> Commands:
        return (*self.node.path(), *self.after)


class RowPairs:
    """The ``arrive`` hook of :func:`~loopspec.statespace.search.breadth_first` that records coverage."""

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.rows: dict[str, _Witness] = {}
        self.pairs: dict[Pair, _Witness] = {}
        self._ins: dict[int, dict[str, _Witness]] = {}  # per state: last row -> shortest way in
        self._outs: dict[int, dict[str, cmd.LoopCommand]] = {}  # per state: first row -> a command out

    def arrive(self, parent: Node[Any], edge: Edge[Any], child: Node[Any], new: bool) -> None:
        fired = edge.fired
        if not fired:
            return
        here = _Witness(parent, (edge.command,))
        for row in fired:
            self._keep(self.rows, row, here)
        for pair in itertools.pairwise(fired):
            self._keep(self.pairs, pair, here)
        first, last = fired[0], fired[-1]
        for row_in, way_in in self._ins.get(id(parent), {}).items():
            self._keep(self.pairs, (row_in, first), _Witness(way_in.node, (*way_in.after, edge.command)))
        self._outs.setdefault(id(parent), {}).setdefault(first, edge.command)
        ways_in = self._ins.setdefault(id(child), {})
        known = ways_in.get(last)
        if known is None or here.length < known.length:
            ways_in[last] = here
            for row_out, command in self._outs.get(id(child), {}).items():
                self._keep(self.pairs, (last, row_out), _Witness(parent, (edge.command, command)))

    def _keep(self, table: dict[Any, _Witness], key: Hashable, witness: _Witness) -> None:
        if witness.length > self.max_depth:
            return
        known = table.get(key)
        if known is None or witness.length < known.length:
            table[key] = witness

    def row_witnesses(self) -> dict[str, Commands]:
        return {row: w.commands() for row, w in self.rows.items()}

    def pair_witnesses(self) -> dict[Pair, Commands]:
        return {pair: w.commands() for pair, w in self.pairs.items()}
