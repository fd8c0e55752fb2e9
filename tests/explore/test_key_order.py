"""The search key is a congruence: the states found do not depend on the order commands are tried in.

A key that keeps something the future never reads (a seq, a turn number inside a call id) splits
states that behave alike, and a key that drops something it reads merges states that do not; either
way how many states a search meets depends on which path reached each one first.  The checker's
"last tool/call" slot was keyed by its seq and not by whether it is the event right before the next
one (what CANCEL-5 reads), and the serial and two-process searches of the ci scope found 14,846 and
14,834 states.  Searching in reverse order must find exactly the same keys.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from loopspec.explore.space import ExplorationSpace, State
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Edge, breadth_first


class _Reversed:
    """The exploration space with every state's commands tried last to first."""

    def __init__(self, scope: Scope) -> None:
        self.space = ExplorationSpace(scope)

    def root(self) -> State:
        return self.space.root()

    def key(self, state: State) -> Hashable:
        return self.space.key(state)

    def expand(self, state: State) -> Iterator[Edge[State]]:
        return reversed(list(self.space.expand(state)))


def _keys(space: ExplorationSpace | _Reversed, depth: int) -> set[Hashable]:
    found: set[Hashable] = set()

    def arrive(node: object, edge: Edge[State], child: object, new: bool) -> None:
        if new:
            found.add(edge.key)

    outcome = breadth_first(space, depth, arrive=arrive)
    assert outcome.complete
    assert outcome.found is None
    return found


def test_the_keys_found_do_not_depend_on_the_order_commands_are_tried() -> None:
    scope = Scope(2, 5)
    assert _keys(ExplorationSpace(scope), scope.depth) == _keys(_Reversed(scope), scope.depth)
