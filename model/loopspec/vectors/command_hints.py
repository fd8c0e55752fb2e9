"""Targeted generation: the inputs the spec makes interesting in the agent's current state.

Some rules show only on paths that need several particular inputs in a row: a latched wake is
disarmed only by a clearing cancel, and the difference shows only if non-waking input arrives
before the aborted turn ends (CANCEL-4); max-tokens is sticky only if the turn goes on after it
(RESULT-1); transforms apply in an order that matters only for two listeners whose transforms do
not commute (DECIDE-3); a negative or ``-0`` start matters only on a list long enough
(NORM-1 … NORM-5); a step's results show their order only with several calls open, and an abort
drains and skips them only when some started and some did not (LOG-11, CANCEL-5).  A *hint*
pairs a predicate on the agent with a builder of such inputs;
:meth:`~loopspec.vectors.command_gen.Generator.next_command` now and then asks for one, and a
swarm can favour hints and a kind of hint like any other choice.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol, TypeVar

import attrs

from loopspec.data.messages import InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.phases import DECIDING, FAILING, HOPS, STEPPING, STOPPING
from loopspec.loop.state import Agent, RunningTurn
from loopspec.vectors.command_builders import ANSWERS

T = TypeVar("T")


class _Chooser(Protocol):
    def pick(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class Generator(Protocol):
    """What a hint asks of :class:`loopspec.vectors.command_gen.Generator`, which calls into this
    module (named as a protocol so the two modules do not import each other)."""

    @property
    def ch(self) -> _Chooser: ...

    def choose(self, name: str, options: Sequence[T], labels: Sequence[str] | None = None) -> T: ...

    def msg(self, agent: Agent | None = None, mid: str | None = None) -> UserMessage: ...

    def msgs(self, agent: Agent | None, most: int) -> Messages: ...

    def answer(self, agent: Agent, which: str) -> cmd.Command: ...

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
STARTS: tuple[JsNumber, ...] = (-1, -2, -1.5, -0.5, -0.0, 1.5, math.nan, -math.inf)
COUNTS: tuple[JsNumber, ...] = (1, 2, 0.9, math.inf, math.nan, -1)


@attrs.frozen
class Hint:
    """Where a hint applies, and the inputs it offers there."""

    applies: Callable[[Agent], bool]
    build: Callable[[Generator, Agent], cmd.Command]


def _aborted(agent: Agent) -> bool:
    return agent.running is not None and agent.running.aborted is not None


def _answer(gen: Generator, agent: Agent) -> cmd.Command:
    """The await point's answer; at a hop, which awaits nothing, a follow-up lands there instead."""
    answer = ANSWERS.get(agent.phase)
    return gen.answer(agent, answer) if answer is not None else cmd.followup(_fresh(gen, agent))


def _fresh(gen: Generator, agent: Agent) -> UserMessage:
    """A message whose id is outside the generator's pool and not pending: never a duplicate."""
    taken = {m.id.value for m in _pending(agent)}
    return gen.msg(agent, gen.ch.pick([i for i in ("p", "q", "r", "s") if i not in taken] or ["t"]))


def _pending(agent: Agent) -> tuple[UserMessage, ...]:
    return agent.inbox.next_turn + agent.inbox.next_step


def _latched_wake(gen: Generator, agent: Agent) -> cmd.Command:
    """CANCEL-4: a latched wake is disarmed by a clearing cancel, after which non-waking input stays parked."""
    options: tuple[Callable[[], cmd.Command], ...] = (
        cmd.Cancel, cmd.Cancel, lambda: cmd.inject(_fresh(gen, agent)), lambda: _answer(gen, agent))
    return gen.ch.pick(options)()


def _abort_window(gen: Generator, agent: Agent) -> cmd.Command:
    """CANCEL-4, DATA-5: after an abort a waking send is redirected and latched, a non-waking one is not and
    parks when the turn ends; the redirected insertion is checked against next-step too."""
    step_ids = [m.id.value for m in agent.inbox.next_step]
    if not agent.inbox.has_pending:
        options: tuple[Callable[[], cmd.Command], ...] = (
            lambda: cmd.inject(_fresh(gen, agent)), lambda: cmd.inject(_fresh(gen, agent)),
            lambda: cmd.steer(_fresh(gen, agent)), lambda: cmd.followup(_fresh(gen, agent)),
            lambda: _answer(gen, agent))
    else:
        options = (lambda: _answer(gen, agent), lambda: _answer(gen, agent), lambda: cmd.steer(_fresh(gen, agent)),
                   lambda: cmd.steer(gen.msg(agent, gen.ch.pick(step_ids)) if step_ids else _fresh(gen, agent)))
    return gen.ch.pick(options)()


def _long_turn(gen: Generator, agent: Agent) -> cmd.Command:
    """RESULT-1 … RESULT-4, CHAIN-1, DECIDE-1, DECIDE-5, DECIDE-6, CANCEL-3, REPAIR-1, INPUT-4: a turn that hits
    max-tokens and goes on (max-tokens stays), tool context behind queued input, tool continuations,
    continuations from turn-stopping, follow-ups queued behind the turn, a reject or an empty entry at a
    later boundary, an abort or a crash inside a step, an answer for another await point."""
    run = agent.running
    assert run is not None
    steer = cmd.steer(_fresh(gen, agent))
    return gen.ch.pick(LONG_TURN_OPTIONS[agent.phase](gen, agent, run, steer))


def _stepping_options(gen: Generator, agent: Agent, run: RunningTurn, steer: cmd.Send) -> tuple[cmd.Command, ...]:
    first, then = cmd.MaxTokens(), cmd.Stop()
    tools = cmd.ToolCalls((_fresh(gen, agent), gen.msg(agent, "v")))
    options = (first, first, then, steer, tools, cmd.ToolCalls(), cmd.Cancel(), cmd.Restart(),
               cmd.Decide())
    return (then, then, first, *options[3:]) if run.turn_ends is not None else options


def _stopping_options(_: Generator, __: Agent, run: RunningTurn, steer: cmd.Send) -> tuple[cmd.Command, ...]:
    extend, stop = cmd.TurnStopping((steer,)), cmd.TurnStopping()
    again = run.turn_ends == "max-tokens" and run.step < 3
    return (extend, extend, stop, cmd.Decide()) if again else (stop, stop, extend, cmd.Decide())


def _deciding_options(gen: Generator, agent: Agent, run: RunningTurn, _: cmd.Send) -> tuple[cmd.Command, ...]:
    later = (cmd.Decide((ls.Veto(ls.Reject()),)),) * 2 if run.turn_ends is not None else ()
    empty = (cmd.Decide((ls.Veto(ls.Enter()),)),) if run.step > 0 else ()
    return (cmd.Decide(), cmd.Decide(), cmd.followup(_fresh(gen, agent)), cmd.Stop(), *empty, *later)


LONG_TURN_OPTIONS: Mapping[str, Callable[[Generator, Agent, RunningTurn, cmd.Send], tuple[cmd.Command, ...]]] = (
    MappingProxyType({STEPPING: _stepping_options, STOPPING: _stopping_options, DECIDING: _deciding_options}))
"""The long-turn hint's inputs for each phase of a running turn (the hint never applies while idle)."""


def _listener_chains(gen: Generator, agent: Agent) -> cmd.Command:
    """DECIDE-3, DECIDE-7, NORM-5, SPLICE-3: transforms that do not commute, listener edits that are refused;
    CANCEL-4, DATA-5: a listener that cancels and then sends, where the whole abort window fits in one answer."""
    x, y = _fresh(gen, agent), gen.msg(agent, "u")
    pending = _pending(agent)
    keep = cmd.Cancel(keep_inbox=True)
    chains: tuple[tuple[ls.Listener, ...], ...] = (
        (ls.Wrap(ls.Add((x,))), ls.Wrap(ls.Add((y,)))),
        (ls.Wrap(ls.Drop((x.id,))), ls.Wrap(ls.Add((x,)))),
        (ls.Wrap(ls.Add((x,))), ls.Wrap(ls.Replace(ls.Enter((y,))))),
        (ls.Wrap(ls.Replace(ls.Reject())), ls.Wrap(ls.Replace(ls.Enter((y,))))),
        (ls.Wrap(before=(cmd.Splice(gen.ch.pick((NT, NS)), gen.ch.pick((-0.0, -0.5)), 0, (x,)),)),),
        (ls.Wrap(before=(cmd.Append(NT, gen.msg(agent, gen.ch.pick(pending).id.value)),)),) if pending else (),
        (ls.Wrap(before=(keep, cmd.steer(x), cmd.Cancel(), cmd.inject(y))),),
        (ls.Wrap(before=(keep, cmd.inject(x), cmd.steer(gen.msg(agent, x.id.value)))),),
        (ls.Wrap(before=(keep, cmd.followup(x))),),
    )
    return cmd.Decide(gen.ch.pick(chains))


def _long_lane(gen: Generator, agent: Agent) -> cmd.Command:
    """NORM-1 … NORM-5, SPLICE-1: odd coordinates on a list long enough for them to matter."""
    lane = NT if len(agent.inbox.next_turn) >= len(agent.inbox.next_step) else NS
    inserted = gen.msgs(agent, 1)
    return cmd.Splice(lane, gen.ch.pick(STARTS), gen.ch.pick(COUNTS), inserted)


def _addresses(gen: Generator, agent: Agent) -> cmd.Command:
    """DATA-1, SPLICE-3, SPLICE-9: the same id again, an id differing only by case, an id pending elsewhere."""
    target = gen.ch.pick(_pending(agent))
    mid = target.id.value
    near = MessageId(mid.swapcase() if mid.swapcase() != mid else mid + "A")
    other = NS if target in agent.inbox.next_turn else NT
    options: tuple[Callable[[], cmd.Command], ...] = (
        lambda: cmd.Replace(target.id, gen.msg(agent, mid)), lambda: cmd.Remove(near),
        lambda: cmd.Replace(near, _fresh(gen, agent)), lambda: cmd.Append(other, gen.msg(agent, mid)))
    return gen.ch.pick(options)()


def _tool_phase(gen: Generator, agent: Agent) -> cmd.Command:
    """LOG-11, CANCEL-5: several calls of one step, started and answered one by one, and an abort
    among them: the started tools are drained (a latching send in between), the rest skipped."""
    run = agent.running
    assert run is not None
    if run.aborted is not None:
        options: tuple[Callable[[], cmd.Command], ...] = (
            lambda: cmd.ToolResult(), lambda: cmd.ToolResult(),
            lambda: cmd.followup(_fresh(gen, agent)), lambda: _answer(gen, agent))
    elif len(run.calls) >= 2:  # the order shows: answer, start, or abort among them
        options = (lambda: cmd.ToolResult(), lambda: cmd.ToolResult(),
                   lambda: cmd.ToolStart(), lambda: cmd.Cancel(keep_inbox=True))
        if run.calls[1][1]:  # two tools running: an abort now is what lets a drain keep the step open
            options += (lambda: cmd.Cancel(keep_inbox=True),) * 2
    else:
        # Started calls twice as often as unstarted ones: a drain needs two calls running at the abort
        # (the last one's answer closes the step, finding F9).
        options = (lambda: cmd.ToolCall(), lambda: cmd.ToolCall(),
                   lambda: cmd.ToolCall(started=False))
        if run.calls:  # one call announced: an abort now is CANCEL-5's shortest path (its drain or skip)
            options += (lambda: cmd.Cancel(keep_inbox=gen.ch.pick((True, False))),)
    return gen.ch.pick(options)()


def hop_call(gen: Generator, agent: Agent) -> cmd.Command:
    """spec/loop-grain.md: the calls that land at a hop (a wake, a cancel, a removal of the input the
    loop is about to take, a crash), so that each hop's public rows come up, an aborted hop's too."""
    pending = _pending(agent)
    if _aborted(agent):  # a wake after the abort: redirected and latched, or not (CANCEL-4)
        return gen.ch.pick((cmd.followup, cmd.steer, cmd.inject))(_fresh(gen, agent))
    if agent.phase == FAILING and gen.ch.pick((True, False)):
        # END-3: a cancel while agent/error is emitted leaves the end an error.
        return cmd.Cancel(keep_inbox=gen.ch.pick((False, True)))
    options: tuple[Callable[[], cmd.Command], ...] = (
        lambda: cmd.followup(_fresh(gen, agent)), lambda: cmd.Cancel(keep_inbox=gen.ch.pick((False, True))),
        lambda: cmd.Restart(), lambda: cmd.steer(_fresh(gen, agent)), lambda: cmd.inject(_fresh(gen, agent)),
        lambda: cmd.Remove(gen.ch.pick(pending).id) if pending else cmd.Clear())
    return gen.ch.pick(options)()


HINTS: Mapping[str, Hint] = MappingProxyType({
    "latched-wake": Hint(lambda a: _aborted(a) and a.running is not None and a.running.wake_requested, _latched_wake),
    "abort-window": Hint(lambda a: _aborted(a) and a.running is not None and not a.running.wake_requested,
                         _abort_window),
    "long-turn": Hint(lambda a: a.phase in LONG_TURN_OPTIONS and not _aborted(a), _long_turn),
    "listener-chains": Hint(lambda a: a.phase == DECIDING and not _aborted(a), _listener_chains),
    # Inside an abort window only its own hints apply: what happens there is decided by a few inputs.
    "long-lane": Hint(lambda a: not _aborted(a) and max(len(a.inbox.next_turn), len(a.inbox.next_step)) >= 2,
                      _long_lane),
    "addresses": Hint(lambda a: not _aborted(a) and bool(_pending(a)), _addresses),
    # A step's tool phase, before and after an abort (an aborted step with calls pending drains them).
    "tool-phase": Hint(lambda a: a.phase == STEPPING and a.running is not None and (
        not _aborted(a) or bool(a.running.calls)), _tool_phase),
    "hop-calls": Hint(lambda a: a.phase in HOPS, hop_call),
})
"""The hints by name, in the order a swarm weighs them."""


def hinted(gen: Generator, agent: Agent) -> cmd.Command | None:
    """A command from one of the hints that apply to ``agent`` (the swarm weighs which), or None."""
    names = tuple(name for name, hint in HINTS.items() if hint.applies(agent))
    if not names:
        return None
    return HINTS[gen.choose("hint-kind", names)].build(gen, agent)
