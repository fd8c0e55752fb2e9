"""Which pairs of consecutive lifecycle-table rows the model can produce, each with a short witness.

A run of the model fires a sequence of table rows (:attr:`AgentTransition.fired`: the command's
row, the choice points it passes, the rows of listener actions); two rows are *consecutive* when
one follows the other in that sequence, within one command or across two commands (a refused
command fires nothing and so separates nothing).  :func:`reachable_pairs` returns every such pair
with a command sequence whose run produces it.

Method: a breadth-first walk over *abstract* agent states with a small command alphabet
(:data:`ALPHABET`: every kind of input, listener chains with side actions, every step result and
turn-stopping answer).  The abstraction keeps exactly what the table's guards read — the phase,
whether each inbox list holds zero, one or more messages, and the running turn's flags (first
boundary or not, abort cause kind, latch, the end its steps set, an empty batch, whether the open
step's started pending tool calls, zero, one or more; a driver started inside a call), and at a point
inside a call the phase underneath and the cancel it owes — so two agents
with one key fire the same rows for the same command.  The walk visits every reachable key once
(it is finite, so the walk is exhaustive for the alphabet, not bounded by a depth) and records,
per key, the shortest path entering it through each row; a pair ``(r1, r2)`` across commands is
then "enter a key through ``r1``, then send a command whose first row is ``r2`` from there".
``tests/vectors/test_row_pairs.py`` checks the abstraction against long random walks of the full
command generator: every pair they produce must be in this set.

The interface is one function, so an exhaustive explorer can replace this walk later.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import JsonObject
from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.actions import DISPOSED_CAUSE
from loopspec.loop.lifecycle import run_command, stops_along
from loopspec.loop.phase_names import HOPS
from loopspec.loop.state import Agent
from loopspec.vectors.command_gen import message

Pair = tuple[str, str]
Builder = Callable[[Agent], "cmd.Command | None"]
Key = tuple[object, ...]
Node = tuple[Key, "str | None"]
NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP


def _fresh(agent: Agent, k: int = 0) -> UserMessage:
    """A message whose id no pending message has: ids are minted from the log's length."""
    return message(f"m{len(agent.log)}-{k}")


def _remove_first(agent: Agent) -> cmd.Command | None:
    pending = agent.inbox.next_turn + agent.inbox.next_step
    return cmd.Remove(pending[0].id) if pending else None


def _listener(*before: Callable[[Agent, int], cmd.ListenerActionT]) -> Builder:
    def build(agent: Agent) -> cmd.Command:
        return cmd.Decide((ls.Wrap(before=tuple(b(agent, k) for k, b in enumerate(before))),))

    return build


def _steer(agent: Agent, k: int) -> cmd.ListenerActionT:
    return cmd.steer(_fresh(agent, k))


def _keep_cancel(_: Agent, __: int) -> cmd.ListenerActionT:
    return cmd.Cancel(keep_inbox=True)


def _stopping(*actions: Callable[[Agent, int], cmd.ListenerActionT]) -> Builder:
    def build(agent: Agent) -> cmd.Command:
        return cmd.TurnStopping(tuple(a(agent, k) for k, a in enumerate(actions)))

    return build


def _inject(agent: Agent, k: int) -> cmd.ListenerActionT:
    return cmd.inject(_fresh(agent, k))


ALPHABET: Mapping[str, Builder] = MappingProxyType({
    "followup": lambda a: cmd.followup(_fresh(a)),
    "steer": lambda a: cmd.steer(_fresh(a)),
    "inject": lambda a: cmd.inject(_fresh(a)),
    "send-next-turn": lambda a: cmd.Send(_fresh(a), NT, False),
    "append-next-turn": lambda a: cmd.Append(NT, _fresh(a)),
    "remove": _remove_first,
    "clear": lambda _: cmd.Clear(),
    "cancel": lambda _: cmd.Cancel(),
    "cancel-keep": lambda _: cmd.Cancel(keep_inbox=True),
    "cancel-disposed": lambda _: cmd.Cancel(DISPOSED_CAUSE, keep_inbox=True),
    "decide": lambda _: cmd.Decide(),
    "reject": lambda _: cmd.Decide((ls.Veto(ls.Reject()),)),
    "enter-nothing": lambda _: cmd.Decide((ls.Veto(ls.Enter()),)),
    "enter-other": lambda a: cmd.Decide((ls.Veto(ls.Enter((_fresh(a),))),)),
    "throw": lambda _: cmd.Decide((ls.Throw("listener broke"),)),
    "decide-steering": _listener(_steer),
    "decide-canceling": _listener(_keep_cancel),
    "decide-canceling-steering": _listener(_keep_cancel, _steer),
    "stop": lambda _: cmd.Stop(),
    "max-tokens": lambda _: cmd.MaxTokens(),
    "tool-calls": lambda _: cmd.ToolCalls(),
    "tool-context": lambda a: cmd.ToolCalls((_fresh(a),)),
    "tool-concludes": lambda _: cmd.ToolCalls(conclude=True),
    "retry": lambda _: cmd.RequestError(retry=True),
    "request-error": lambda _: cmd.RequestError(),
    "fail": lambda _: cmd.Fail(),
    # Tool calls inside a step, one point at a time (announce, start, answer): the crash points of REPAIR-1.
    "tool-call": lambda _: cmd.ToolCall(),
    "tool-call-announced": lambda _: cmd.ToolCall(started=False),
    "tool-start": lambda _: cmd.ToolStart(),
    "tool-result": lambda _: cmd.ToolResult(),
    "stopping": _stopping(),
    "stopping-steers": _stopping(_steer),
    "stopping-injects": _stopping(_inject),
    "stopping-raises": lambda _: cmd.TurnStopping(raises="turn-stopping listener broke"),
    "restart": lambda _: cmd.Restart(),
})
"""The walk's commands, each built from the agent it is sent to (fresh ids, a pending id to remove)."""


def _count(n: int) -> int:
    return min(n, 2)


def abstract_key(agent: Agent) -> Key:
    """What the table's guards can read of an agent; see the module docstring."""
    inbox = (_count(len(agent.inbox.next_turn)), _count(len(agent.inbox.next_step)))
    # At a point inside a call (loop-grain row 22): the phase underneath, the cancel still owed, and
    # whether a send made there is held at its own hop (decisions G30).
    call = agent.call
    inside = None if call is None else (call.phase, None if call.cancel is None else _kind(call.cancel.cause),
                                        call.held)
    run = agent.running
    if run is None:
        return (agent.phase, inbox, inside)
    cause = _kind(run.aborted)
    # CANCEL-5: how many results an aborted step drains (its started calls, a prefix: LOG-11).
    drains = _count(sum(started for _, started in run.calls))
    # At a hop after the pre-step: what the turn is about to act on (a decision's kind and whether it
    # enters anything, or a throw); at the hop after agent/error: that a failure is held.
    held = None if run.held is None else (
        type(run.held.decision).__name__, bool(getattr(run.held.decision, "messages", ())), run.held.raised is None)
    return (agent.phase, inbox, min(run.step, 1), run.step_open, cause, run.wake_requested,
            run.turn_ends is not None, bool(run.batch), run.normal_exit, drains, held, run.failure is not None,
            inside, run.prompting)


def _kind(cause: object) -> object:
    """A cancel cause as the guards read it: its kind (CANCEL-4 tells ``disposed`` apart)."""
    return cause.get("kind") if isinstance(cause, JsonObject) else cause


def _apply(agent: Agent, command: cmd.LoopCommand
           ) -> tuple[Agent, tuple[str, ...], tuple[cmd.LoopCommand, ...]] | None:
    """The agent after ``command``, the rows it fired and the same command stopping at each hop it
    passed; None if refused."""
    try:
        transition = run_command(agent, command)
    except CommandRefused:
        return None
    return transition.agent, transition.fired, stops_along(command, transition)


def _moves(agent: Agent, stops: bool) -> Iterator[tuple[cmd.LoopCommand, tuple[Agent, tuple[str, ...]]]]:
    """Every command of the alphabet the model accepts at ``agent``, and with ``stops`` the same
    command stopping at each hop it passes, and the loop going on from a hop (spec/loop-grain.md)."""
    for build in (*ALPHABET.values(), _advance) if stops else ALPHABET.values():
        command = build(agent)
        result = None if command is None else _apply(agent, command)
        if command is None or result is None:
            continue
        after, fired, stopped_variants = result
        yield command, (after, fired)
        for stopped in stopped_variants if stops else ():
            at_hop = _apply(agent, stopped)
            assert at_hop is not None, "a command the model accepted stops at a hop it passed"
            yield stopped, at_hop[:2]


def _advance(agent: Agent) -> cmd.LoopCommand | None:
    return cmd.Advance() if agent.phase in HOPS else None


def reachable_pairs() -> dict[Pair, tuple[cmd.LoopCommand, ...]]:
    """Every pair of consecutive rows the walk reaches, with the shortest command sequence producing it.

    A node of the walk is an abstract key plus the last row fired to reach it, so a pair across
    two commands is observed on a real run, never inferred.  Deterministic: nodes are visited in
    breadth-first order and the alphabet is tried in order.  A pair that commands running to the
    loop's await points reach gets such a witness, which every implementation can run; only the
    others (calls landing at a hop) get one with commands stopping at hops.
    """
    pairs = _walk(stops=False)
    for pair, witness in _walk(stops=True).items():
        pairs.setdefault(pair, witness)
    return dict(sorted(pairs.items()))


def _walk(stops: bool) -> dict[Pair, tuple[cmd.LoopCommand, ...]]:
    start: Node = (abstract_key(Agent()), None)
    seen: dict[Node, tuple[Agent, tuple[cmd.LoopCommand, ...]]] = {start: (Agent(), ())}
    pairs: dict[Pair, tuple[cmd.LoopCommand, ...]] = {}
    queue: deque[Node] = deque([start])
    while queue:
        node = queue.popleft()
        agent, path = seen[node]
        for command, (after, fired) in _moves(agent, stops):
            walked = (*path, command)
            rows = fired if node[1] is None else (node[1], *fired)
            for pair in itertools.pairwise(rows):
                pairs.setdefault(pair, walked)
            next_node = (abstract_key(after), fired[-1])
            if next_node not in seen:
                seen[next_node] = (after, walked)
                queue.append(next_node)
    return pairs
