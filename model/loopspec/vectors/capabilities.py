"""What an adapter may declare it cannot express (its hello's ``lacks``), and which commands need it.

A profile names the commands an implementation has; a *lacked capability* names commands it has but
cannot be driven to in some states, because its environment never gives that answer there.  The real
dsh loop is the first such implementation: its model call answers a step once, so the command
language's finer tool points (a call announced but not started, a second call announced while the
first runs, a tool's result that leaves its step open) have no way into it.  ``drive`` draws again
where a command needs a lacked capability (spec/adapter-protocol.md, "Lacked capabilities");
``vectors run`` reports the adapter's ``unsupported`` answers as usual.

Each capability is a named predicate over the model's state before the command, in one table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from loopspec.loop import commands as cmd
from loopspec.loop.commands import Stopping
from loopspec.loop.state import Agent


def _inner(command: object) -> object:
    """The command itself, whether or not it stops at a hop (a lacked answer is lacked either way)."""
    return command.command if isinstance(command, Stopping) else command


def _several_answers(agent: object, command: object) -> bool:
    """A step answer that needs the model call to answer its step more than once (or not at once)."""
    command = _inner(command)
    if not isinstance(command, cmd.StepResult) or not isinstance(agent, Agent):
        return False
    run = agent.running
    if run is None or not run.step_open:
        return False
    if isinstance(command, cmd.ToolCall) and (not command.started or run.calls):
        return True  # announced without starting, or a second call while the answer's calls run
    if run.aborted is not None or not run.calls:
        return False  # an aborted step takes any answer; with no call pending every answer is one
    # The answer's call is running: only the tool's own finish (with its context) ends it.
    return not isinstance(command, cmd.ToolCalls | cmd.ToolStart)


# How often drive draws again before it answers the await point the one way the adapter can take.
LACKED_REDRAWS = 8


def _the_answer_it_takes(agent: object, command: object) -> cmd.StepResult:
    """The step answer an adapter with one answer per step can take in ``agent``'s state."""
    run = agent.running if isinstance(agent, Agent) else None
    return cmd.ToolCalls() if run is not None and run.calls else cmd.ToolCall()


def _restart_of_nothing(agent: object, command: object) -> bool:
    """A restart before the first event: a store that keeps sessions by their events has none to load."""
    return isinstance(_inner(command), cmd.Restart) and isinstance(agent, Agent) and len(agent.log.events) == 0


def _nothing(agent: object, command: object) -> cmd.Cancel:
    """What to send instead of a restart of nothing: an idle cancel, which writes nothing."""
    return cmd.Cancel(keep_inbox=True)


def _stops_at_a_hop(agent: object, command: object) -> bool:
    """A command that leaves the loop at a hop (``stop``): an implementation must be able to hold
    its loop between two of its own microtasks (spec/loop-grain.md) for the next command."""
    return isinstance(command, Stopping)


def _without_the_stop(agent: object, command: object) -> cmd.Command:
    """The same command run on to the loop's next await point."""
    assert isinstance(command, Stopping)
    return command.command


# name -> (does this command in this state need it, the command to send instead)
LACKABLE: Mapping[str, tuple[Callable[[object, object], bool], Callable[[object, object], cmd.Command]]] = {
    "one-answer-per-step": (_several_answers, _the_answer_it_takes),
    "restart-before-first-event": (_restart_of_nothing, _nothing),
    "hop-stops": (_stops_at_a_hop, _without_the_stop),
}


def needs_lacked(lacks: tuple[str, ...], agent: object, command: object) -> bool:
    """Whether ``command`` in ``agent``'s state needs a capability the adapter lacks."""
    return any(LACKABLE[name][0](agent, command) for name in lacks)


C = TypeVar("C")
M = TypeVar("M")


def expressible_answer(lacks: tuple[str, ...], agent: object, command: C) -> C | cmd.Command:
    """``command``, or the answer an adapter lacking ``lacks`` takes instead in ``agent``'s state."""
    for name in lacks:
        needs, instead = LACKABLE[name]
        if needs(agent, command):
            return instead(agent, command)
    return command


def expressible(lacks: tuple[str, ...], model: M, commands: Iterable[C], step: Callable[[M, C], M]) -> bool:
    """Whether no command of ``commands`` needs a lacked capability, run from ``model`` by ``step``."""
    for command in commands:
        if needs_lacked(lacks, model, command):
            return False
        model = step(model, command)
    return True
