"""Shared helpers of the state-space tests: the shortest witness of every row pair of a scope."""

from __future__ import annotations

from loopspec.statespace.model_space import ModelSpace
from loopspec.statespace.pairs import Commands, Pair, RowPairs
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import breadth_first


def shortest_witnesses(scope: Scope) -> dict[Pair, Commands]:
    """For every row pair reachable within ``scope``, a shortest command sequence firing it.

    The last command of a witness fires the pair's second row right after its first (the first
    may be fired by the command before).  Deterministic: same scope, same witnesses.
    """
    pairs = RowPairs(scope.depth)
    breadth_first(ModelSpace(scope), scope.depth, arrive=pairs.arrive)
    return pairs.pair_witnesses()
