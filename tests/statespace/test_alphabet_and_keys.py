"""The reductions the search relies on are sound: command classes, symmetric pruning, canonical keys.

* Every member of a command class, stepped, does exactly what its representative does (the same
  next agent, events, notifications): splice coordinates through ``normalize`` (NORM-1 … NORM-3),
  named edits as the splice they are (SPLICE-1, SPLICE-7), listener chains through ``run_chain``
  (DECIDE-3), cancel causes a state never writes (CANCEL-1, CANCEL-3).
* Pruning commands that differ only in unused ids, and classes, change no count of the search.
* States equal up to renaming message ids get one key; a state's key changes when its future does.
"""

from __future__ import annotations

import pytest

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run, step
from loopspec.loop.state import Agent
from loopspec.statespace.alphabet import Alphabet
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.model_space import ModelSpace
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import breadth_first


def _outcome(agent: Agent, command: cmd.Command) -> object:
    try:
        tr = step(agent, command)
    except CommandRefused as err:
        return ("refused", err.rule)
    return (tr.agent, tr.events, tr.notifications)


def _states(scope: Scope) -> list[Agent]:
    """Every representative state of a small scope, reached by the search itself."""
    found: list[Agent] = []
    space = ModelSpace(scope)
    breadth_first(space, scope.depth, arrive=lambda _p, _e, child, new: found.append(child.state) if new else None)
    return found


@pytest.mark.rule("NORM-1", "NORM-2", "NORM-3", "SPLICE-1", "SPLICE-7", "DECIDE-3", "CANCEL-1", "CANCEL-3")
def test_every_member_of_a_class_does_what_its_representative_does() -> None:
    alphabet = Alphabet(Scope(2, 3))
    checked = 0
    for agent in _states(Scope(2, 3)):
        for members in alphabet.members(agent):
            first = _outcome(agent, members[0])
            for other in members[1:]:
                assert _outcome(agent, other) == first, (agent.phase, members[0], other)
                checked += 1
    assert checked > 10_000  # the classes are not a formality: most commands are someone's class member


def test_classes_and_symmetric_pruning_change_no_count() -> None:
    scope = Scope(2, 3)
    counts = []
    for classes in (True, False):
        out = breadth_first(ModelSpace(scope, classes=classes), scope.depth)
        counts.append((out.states, out.levels))
    assert counts[0] == counts[1]


def _renamed(names: dict[str, str]) -> tuple[Agent, Agent]:
    def msg(i: str) -> UserMessage:
        return UserMessage.create(i, "v0")

    first, _ = run(Agent(), cmd.inject(msg("a")), cmd.followup(msg("b")), cmd.steer(msg("c")), cmd.Decide())
    second, _ = run(Agent(), cmd.inject(msg(names["a"])), cmd.followup(msg(names["b"])), cmd.steer(msg(names["c"])),
                    cmd.Decide())
    return first, second


def test_states_equal_up_to_renaming_ids_have_one_key() -> None:
    first, second = _renamed({"a": "c", "b": "a", "c": "b"})
    assert first.inbox != second.inbox or first.running != second.running
    assert agent_key(first, Renaming()) == agent_key(second, Renaming())
    assert agent_key(first, Renaming(symmetric=False)) != agent_key(second, Renaming(symmetric=False))


def test_the_key_sees_what_the_future_reads() -> None:
    """An abort, a latched wake, a pending tool call, a marker at the log's end: each changes the key."""
    base, _ = run(Agent(), cmd.followup(UserMessage.create("a", "v0")), cmd.Decide())
    key = agent_key(base, Renaming())
    for command in (cmd.Cancel(keep_inbox=True), cmd.ToolCall(), cmd.Restart()):
        assert agent_key(step(base, command).agent, Renaming()) != key, command
    idle, _ = run(Agent(), cmd.Restart())
    assert agent_key(idle, Renaming()) != agent_key(Agent(), Renaming())  # the marker: no second one
