"""The moves of the lifecycle state machine: command strategies, weighted by phase (``test_agent_stateful``).

Ids come from a pool of five so duplicates and refusals happen.  A phase's moves are its await
point's answer and everything else a caller or listener can do meanwhile; a few scenario fragments
(S11, S13, an abort with a latched wake) are single moves because as separate moves they rarely land
inside one await.  ``OPENINGS`` start a run in every phase, aborted or not, so short runs reach late
states; ``test_transition_coverage`` checks that these moves fire every row of the lifecycle table.
"""

from __future__ import annotations

import attrs
from hypothesis import strategies as st

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as lsn
from loopspec.loop.phases import DECIDING, HOPS, IDLE, STEPPING, STOPPING

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP


@attrs.frozen
class Fine:
    """A move, not a command: apply ``command`` and stop at the first hop the loop reaches
    (spec/loop-grain.md), so that the next move lands there."""

    command: cmd.Command


@attrs.frozen
class GoOn:
    """A move, not a command: the loop goes on by itself from a hop, to its next hop (``fine``) or
    to its next await point."""

    fine: bool = False


Move = cmd.Command | Fine | GoOn
# A clear or a cancel with next-step non-empty stops inside itself, between its lists (the hop
# clearing, loop-grain row 22): an inject first makes sure of that, in every phase.
injects = st.builds(cmd.Send, st.builds(UserMessage.create, st.just("f"), st.just("x")), st.just(InboxTarget.NEXT_STEP),
                    st.just(False))
messages = st.builds(UserMessage.create, st.sampled_from(("a", "b", "c", "d", "e")), st.sampled_from(("x", "y")))
targets = st.sampled_from((NT, NS))
ids = st.sampled_from(("a", "b", "c", "d", "e")).map(MessageId)
numbers = st.one_of(st.integers(-3, 3), st.sampled_from((float("nan"), float("inf"), -float("inf"), -1.5, 2.5)))
causes = st.sampled_from(({"kind": "user"}, {"kind": "disposed"}, {"kind": "hook", "reason": "r"})).map(freeze)
sends = st.builds(cmd.Send, messages, targets, st.booleans())
wakes = st.builds(cmd.Send, messages, targets, st.just(True))
cancels = st.builds(cmd.Cancel, causes, st.booleans())
edits = st.one_of(
    st.builds(cmd.Append, targets, messages),
    st.builds(cmd.Prepend, targets, messages),
    st.builds(cmd.Splice, targets, numbers, numbers, st.lists(messages, max_size=2).map(tuple)),
    st.builds(cmd.Replace, ids, messages),
    st.builds(cmd.Remove, ids),
    st.just(cmd.Clear()),
)
actions = st.lists(st.one_of(sends, st.builds(cmd.Remove, ids), cancels), max_size=2).map(tuple)
decisions = st.one_of(st.just(lsn.Reject()), st.lists(messages, max_size=2).map(lambda ms: lsn.Enter(tuple(ms))))
transforms = st.one_of(
    st.just(lsn.Keep()),
    st.builds(lsn.Replace, decisions),
    st.lists(ids, max_size=2).map(lambda xs: lsn.Drop(tuple(xs))),
    st.lists(messages, min_size=1, max_size=1).map(lambda ms: lsn.Add(tuple(ms))),
)
# DECIDE-1: listeners conditioned on small turn and step numbers act at some boundaries only.
small = st.sampled_from((None, 1, 2))
whens = st.one_of(st.just(lsn.ALWAYS), st.builds(lsn.When, small, small))
listener = st.one_of(
    st.builds(lsn.Wrap, transforms, actions, actions, actions, actions, whens),
    st.builds(lsn.Veto, decisions, actions, whens),
    st.builds(lsn.Throw, st.just("prompt hook broke"), actions, whens),
)
# The bare default, an empty entry and a plain reject get their own share next to generated chains.
decides = st.one_of(
    st.builds(cmd.Decide, st.lists(listener, max_size=3).map(tuple)),
    st.sampled_from(
        (cmd.Decide(), cmd.Decide((lsn.Veto(lsn.Enter()),)), cmd.Decide((lsn.Veto(lsn.Reject()),)))
    ),
)
results = st.one_of(
    st.sampled_from((cmd.Stop(), cmd.MaxTokens())),
    st.just(cmd.RequestError(retry=True)),
    st.sampled_from(
        (cmd.RequestError(error="rate limited", code="RATE_LIMITED"), cmd.Fail(error="x"))
    ),
    st.builds(cmd.ToolCalls, st.lists(messages, max_size=2).map(tuple), st.booleans()),
    st.builds(cmd.ToolCall, started=st.booleans()),  # a crash point inside the step
    st.sampled_from((cmd.ToolStart(), cmd.ToolResult())),
)
steering = st.builds(cmd.Send, messages, st.just(NS), st.booleans()).map(lambda send: (send,))
stoppings = st.builds(cmd.TurnStopping, actions)
ANSWERS: dict[str, st.SearchStrategy[cmd.Command]] = {
    IDLE: wakes,
    DECIDING: decides,
    STEPPING: results,
    STOPPING: st.one_of(
        stoppings,
        st.builds(cmd.TurnStopping, steering),
        st.builds(cmd.TurnStopping, steering),
        st.builds(cmd.TurnStopping, actions, st.just("stop hook broke")),
    ),
}
Moves = st.SearchStrategy[tuple[Move, ...]]
FAILURES: tuple[cmd.Command, ...] = (cmd.Fail(error="x"), cmd.RequestError(error="rate limited", code="RATE_LIMITED"))


INSIDE_A_CALL: dict[str, Moves] = {
    "inject, clear to its point": st.tuples(injects, st.just(Fine(cmd.Clear()))),
    "inject, cancel to its point": st.tuples(injects, cancels.filter(lambda c: not c.keep_inbox).map(Fine)),
    # ... and with next-step as it is (often empty): a cancel of next-turn alone stops before its abort.
    "follow up, cancel to its point": st.tuples(st.builds(cmd.followup, messages),
                                                cancels.filter(lambda c: not c.keep_inbox).map(Fine)),
}


def moves(answer: st.SearchStrategy[cmd.Command]) -> dict[str, Moves]:
    """One phase's moves; ``answer`` answers its await point.  Weighted by repetition in WEIGHTS."""
    return {
        "answer": st.tuples(answer),
        "send": st.tuples(sends),
        "inject": st.tuples(st.builds(cmd.Send, messages, targets, st.just(False))),
        "wake": st.tuples(wakes),
        "edit": st.tuples(edits),
        "cancel": st.tuples(cancels),
        "restart": st.just((cmd.Restart(),)),
        "answer out of phase": st.tuples(st.one_of(decides, results, stoppings)),  # INPUT-4 where no row
        # An abort seen at the await (CANCEL-3) and a wake latched after it (CANCEL-4), S11 (steering
        # during a step) and S13 (turn stopping steers, the decision drops it): one move each, since
        # as separate moves they rarely land inside the same await.
        "cancel, answer": st.tuples(cancels, answer),
        "cancel, wake, answer": st.tuples(cancels, wakes, answer),
        "cancel, wake, cancel, answer": st.tuples(cancels, wakes, cancels, answer),  # a cancel drops the latch
        "steer, answer": st.tuples(st.builds(cmd.steer, messages), answer),
        "steer at turn stopping, enter nothing": st.tuples(
            st.builds(cmd.TurnStopping, steering), st.just(cmd.Decide((lsn.Veto(lsn.Enter()),)))
        ),
        # The answer, then the loop stops at its first hop (and maybe the next): calls land there.
        "answer, to the first hop": st.tuples(answer.map(Fine)),
        "answer, to the second hop": st.tuples(answer.map(Fine), st.just(GoOn(fine=True))),
        # A failing step stops after its agent/error (the hop failing), where its listeners' calls land.
        "fail, to its hop": st.tuples(st.sampled_from(FAILURES).map(Fine)),
        **INSIDE_A_CALL,
    }


def hop_moves() -> dict[str, Moves]:
    """A hop's moves: the loop goes on by itself, or a call lands first (spec/loop-grain.md)."""
    return {
        "go on": st.just((GoOn(),)),
        "go on to the next hop": st.just((GoOn(fine=True),)),
        "send": st.tuples(sends),
        "wake": st.tuples(wakes),
        "edit": st.tuples(edits),
        "cancel": st.tuples(cancels),
        "cancel, wake": st.tuples(cancels, wakes),
        "remove": st.tuples(st.builds(cmd.Remove, ids)),
        "restart": st.just((cmd.Restart(),)),
        "answer out of phase": st.tuples(st.one_of(decides, results, stoppings)),  # INPUT-4: no answer at a hop
        **INSIDE_A_CALL,
    }


MOVES = {**{phase: moves(answer) for phase, answer in ANSWERS.items()},
         **dict.fromkeys(HOPS, hop_moves())}
_FIRST_STEP = (cmd.followup(UserMessage.create("a")), cmd.Decide())
_INJECT = cmd.Send(UserMessage.create("f"), NS, False)
# A turn deciding with a follow-up queued in next-turn.
_WAITING = (cmd.followup(UserMessage.create("a")), cmd.followup(UserMessage.create("b")))
_CHAINING = (cmd.followup(UserMessage.create("a")), cmd.followup(UserMessage.create("b")), cmd.Decide(), cmd.Stop(),
             Fine(cmd.TurnStopping()))
# A wake latched after an abort, then the aborted end, stopped at each hop up to replaying (the
# latched driver gone idle, loop-grain row 21).
_REPLAYING = (cmd.followup(UserMessage.create("a")), cmd.Cancel(keep_inbox=True), cmd.followup(UserMessage.create("b")),
              Fine(cmd.Decide()), GoOn(fine=True), GoOn(fine=True))
# A follow-up inside an idle clear starts a driver; the clear's rest stops at prompting (row 4).
_PROMPTING = (_INJECT, Fine(cmd.Clear()), cmd.followup(UserMessage.create("b")), GoOn(fine=True))
OPENINGS: dict[str, tuple[Move, ...]] = {
    "idle": (),
    "deciding": _FIRST_STEP[:1],
    "stepping": _FIRST_STEP,
    "stopping": (*_FIRST_STEP, cmd.Stop()),
    "deciding, aborted": (*_FIRST_STEP[:1], cmd.Cancel(keep_inbox=True)),
    "stepping, aborted": (*_FIRST_STEP, cmd.Cancel(keep_inbox=True)),
    # CANCEL-5: started calls the abort drains (the draining row needs two calls running at the
    # abort: the last started call's answer closes the step, finding F9).
    "stepping, aborted, tools running": (
        *_FIRST_STEP, cmd.ToolCall(), cmd.ToolCall(), cmd.Cancel(keep_inbox=True),
    ),
    # ... and the drain itself: from the opening above the draining row fired only 5 to 21 times a ci
    # run (the answer must be the one of seven kinds that finishes a tool), and not at all in one run
    # of twelve; here it fires in every run that opens so, and the stateful checks follow the drain.
    "stepping, aborted, a tool drained": (
        *_FIRST_STEP, cmd.ToolCall(), cmd.ToolCall(), cmd.ToolCall(),
        cmd.Cancel(keep_inbox=True), cmd.ToolResult(),
    ),
    "stopping, aborted": (*_FIRST_STEP, cmd.Stop(), cmd.Cancel(keep_inbox=True)),
    # A crash while turn stopping is pending: the rarest row left (5 to 57 times a ci run, by a
    # restart among a stopping phase's rare moves); here it fires in every run that opens so.
    "stopping, restarted": (*_FIRST_STEP, cmd.Stop(), cmd.Restart()),
    # The hop between a chaining turn's end and the next turn (loop-grain row 19): a normal end with
    # input queued, stopped at the hop, so that the moves land calls there.
    "chaining": _CHAINING,
    # ... and the two calls that rarely land there first among a hop's twelve moves (none in some ci runs).
    "chaining, a send landed": (*_CHAINING, cmd.Send(UserMessage.create("c"), NS, False)),
    "chaining, a wake landed": (*_CHAINING, cmd.followup(UserMessage.create("c"))),
    # ... and a cancel there that stops inside itself (loop-grain row 22): none in one ci run.
    "chaining, a cancel stopped inside": (*_CHAINING, cmd.Send(UserMessage.create("c"), NS, False),
                                          Fine(cmd.Cancel())),
    # The hop between a turn's end that does not chain and idle (loop-grain row 20): a follow-up that
    # lands there after a normal end wakes nothing, and the agent goes idle with it pending.
    "ending, a wake landed": (*_FIRST_STEP, cmd.Stop(), Fine(cmd.TurnStopping()),
                              cmd.followup(UserMessage.create("b"))),
    "ending, a send landed": (*_FIRST_STEP, cmd.Stop(), Fine(cmd.TurnStopping()),
                              cmd.Send(UserMessage.create("b"), NS, False)),
    # A cancel of next-turn alone at the hops after the pre-step, which stops inside itself before
    # its abort (loop-grain rows 6, 22): at decision-returned it fired in no run of four, once.
    "decided, a cancel stopped inside": (*_WAITING, Fine(cmd.Decide()), Fine(cmd.Cancel())),
    "decision returned, a cancel landed": (_FIRST_STEP[0], Fine(cmd.Decide()), GoOn(fine=True),
                                           cmd.Cancel(keep_inbox=True)),
    "decision returned, a cancel stopped inside": (*_WAITING, Fine(cmd.Decide()), GoOn(fine=True),
                                                   Fine(cmd.Cancel())),
    # The hop after agent/error (loop-grain row 18), where a cancel's clear may stop inside itself
    # (row 22): the cancels there once fired in no ci run (reached only by one stepping move).
    "failing": (*_FIRST_STEP, Fine(FAILURES[0])),
    "failing, a wake landed": (*_FIRST_STEP, Fine(FAILURES[0]), cmd.followup(UserMessage.create("b"))),
    "failing, a clear stopped inside": (*_FIRST_STEP, Fine(FAILURES[0]), _INJECT, Fine(cmd.Clear())),
    "failing, a cancel stopped inside": (*_FIRST_STEP, Fine(FAILURES[0]), _INJECT,
                                         cmd.followup(UserMessage.create("b")), Fine(cmd.Cancel())),
    "failing, a cancel of next-turn stopped inside": (*_FIRST_STEP, Fine(FAILURES[0]),
                                                      cmd.followup(UserMessage.create("b")), Fine(cmd.Cancel())),
    # A clear or a cancel stopping inside itself while turn stopping is pending, or at chaining with
    # only next-turn to clear: each fired 2 to 7 times in some ci runs from the moves alone.
    "stopping, a clear stopped inside": (*_FIRST_STEP, cmd.Stop(), _INJECT, Fine(cmd.Clear())),
    "stopping, a cancel stopped inside": (*_FIRST_STEP, cmd.Stop(), _INJECT, Fine(cmd.Cancel())),
    "stopping, a cancel of next-turn stopped inside": (*_FIRST_STEP, cmd.Stop(), cmd.followup(UserMessage.create("b")),
                                                       Fine(cmd.Cancel())),
    "chaining, a cancel of next-turn stopped inside": (*_CHAINING, Fine(cmd.Cancel())),
    # Rows the moves above made rarer by drawing more (2 to 4 times in some ci runs): a driver a
    # follow-up starts inside an idle clear, that goes on to the pre-step (row 4); an empty entry
    # after turn stopping steered; a tool started after its call was announced, and its answer.
    "idle, a wake inside a clear": (_INJECT, Fine(cmd.Clear()), cmd.followup(UserMessage.create("b"))),
    "an empty entry after turn stopping steered": (
        *_FIRST_STEP, cmd.Stop(), cmd.TurnStopping((cmd.steer(UserMessage.create("b")),)),
        cmd.Decide((lsn.Veto(lsn.Enter()),))),
    "stepping, a tool started late": (*_FIRST_STEP, cmd.ToolCall(started=False), cmd.ToolStart(), cmd.ToolResult()),
    # The hops prompting and replaying (decisions G25, G26), and the calls that land there: from
    # the moves alone some of their rows fired in no ci run.
    "prompting, a wake landed": (*_PROMPTING, cmd.followup(UserMessage.create("c"))),
    "prompting, a clear stopped inside": (*_PROMPTING, _INJECT, Fine(cmd.Clear())),
    "prompting, a cancel stopped inside": (*_PROMPTING, _INJECT, Fine(cmd.Cancel())),
    "replaying": _REPLAYING,
    "replaying, a wake landed": (*_REPLAYING, cmd.followup(UserMessage.create("c"))),
    "replaying, an edit landed": (*_REPLAYING, cmd.Append(NT, UserMessage.create("c"))),
    "replaying, a clear stopped inside": (*_REPLAYING, _INJECT, Fine(cmd.Clear())),
    "replaying, a cancel stopped inside": (*_REPLAYING, _INJECT, Fine(cmd.Cancel())),
    "replaying, a cancel of next-turn stopped inside": (*_REPLAYING, Fine(cmd.Cancel())),
    "replaying, restarted": (*_REPLAYING, cmd.Restart()),
    "deciding after turn stopping steered": (
        *_FIRST_STEP,
        cmd.Stop(),
        cmd.TurnStopping((cmd.steer(UserMessage.create("b")),)),
    ),
}
RARE = (
    *("edit", "cancel", "restart", "answer out of phase", "cancel, answer", *INSIDE_A_CALL, *INSIDE_A_CALL),
    *("cancel, wake, answer", "cancel, wake, answer", "cancel, wake, cancel, answer"),
)
# Deciding and stepping mostly answer, so runs reach turn stopping; stopping mostly does something else first.
HOPPING = ("answer, to the first hop", "answer, to the second hop")
WEIGHTS = {
    # A wake to its first hop stops at waking (the agent still idle), to its second at starting.
    IDLE: ("answer",) * 6 + ("send", "edit", "cancel", "restart", "answer out of phase", *HOPPING, *HOPPING,
           *INSIDE_A_CALL),
    DECIDING: ("answer",) * 6 + ("send", *RARE, *HOPPING),
    STEPPING: ("answer",) * 6 + ("send", "inject", "steer, answer", "fail, to its hop", *RARE, *HOPPING),
    STOPPING: ("answer",) * 3 + ("wake", "inject", "edit", "steer at turn stopping, enter nothing", *RARE, *HOPPING),
    **dict.fromkeys(HOPS, (
        "go on", "go on", "go on to the next hop", "send", "send", "wake", "edit", "cancel", "cancel", "cancel, wake",
        "remove", "restart", "answer out of phase", *INSIDE_A_CALL, *INSIDE_A_CALL)),
}
