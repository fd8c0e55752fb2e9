"""The model alone as a search space.

:class:`ModelSpace` steps the agent (:func:`loopspec.loop.lifecycle.step`) over a scope's alphabet and
keys states by :func:`.canon.agent_key`; refused commands lead nowhere.  It checks nothing — the
invariants and the log checker are added one layer up (:mod:`loopspec.explore`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from loopspec.data.errors import CommandRefused
from loopspec.loop.lifecycle import step
from loopspec.loop.state import Agent
from loopspec.statespace.alphabet import Alphabet
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Edge


class ModelSpace:
    """Agents reachable by a scope's commands, keyed up to renaming ids."""

    def __init__(self, scope: Scope, *, classes: bool = True) -> None:
        self.alphabet = Alphabet(scope, classes=classes)

    def root(self) -> Agent:
        return Agent()

    def key(self, state: Agent) -> Hashable:
        return agent_key(state, Renaming())

    def expand(self, state: Agent) -> Iterator[Edge[Agent]]:
        names = Renaming()
        agent_key(state, names)  # the ids the key mentions: the others are interchangeable
        for command, size in self.alphabet.entries(state, names.numbers):
            try:
                transition = step(state, command)
            except CommandRefused:
                yield Edge(command, size, None, None)
                continue
            yield Edge(command, size, transition.agent, self.key(transition.agent), transition.fired)
