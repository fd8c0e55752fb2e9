"""The driver: the loop from a waking send to idle, as one generator (spec/07 … spec/12).

The real loop is asynchronous; control leaves it at its await points and at its hops
(spec/loop-grain.md).  Here it is a generator that yields the name of each such point as it
reaches it:

* at an await point (`deciding`, `stepping`, `stopping`) it waits for the environment's answer,
  which the agent sends in (`generator.send(answer)`);
* at a hop (`waking`, `starting`, `decided`, `decision-returned`, `failing`, `chaining`,
  `ending`) it needs nothing: the agent resumes it at once unless the command asked to stop
  there, and then the next command lands at the hop and `advance` resumes it later.

The hops `clearing` and `canceling` are not the driver's: they lie inside a clear or a cancel
(loop-grain row 22), which agent.py runs as generators of their own.

What a hop holds (the pre-step's decision, a failure not yet written as `turn/end`, whether the
ended turn chains) is simply the suspended generator's local state; public calls that land at a
hop change the inbox and the run's abort and latch, which the generator reads when it goes on.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

import tools

from inbox import NEXT_STEP, NEXT_TURN, Refused

if TYPE_CHECKING:
    from agent import Agent

IDLE, DECIDING, STEPPING, STOPPING = "idle", "deciding", "stepping", "stopping"
WAKING, STARTING, DECIDED, DECISION_RETURNED = "waking", "starting", "decided", "decision-returned"
FAILING, CHAINING, ENDING, REPLAYING = "failing", "chaining", "ending", "replaying"
HOPS = (WAKING, STARTING, DECIDED, DECISION_RETURNED, FAILING, CHAINING, ENDING, REPLAYING)  # the loop's (wire.py: all)

# What the driver yields (a point's name) and is sent (an answer at an await point, None at a hop).
Loop = Generator[str, object, None]
# What the agent sends in at `deciding` instead of an answer when the turn, still awaiting its system
# prompt (loop-grain row 4), is aborted by the time it goes on: no pre-step listener is called
# (CANCEL-3, decisions G23; agent.py `Agent.resume`).
PROMPT_ABORTED = "prompt-aborted"
# A part of a turn: None when the turn goes on, or, once it wrote its turn/end, whether it chains.
Part = Generator[str, object, "bool | None"]


class ListenerThrew(Exception):
    """A listener (or its action, refused) threw; the turn ends error (DECIDE-7)."""


class Run:
    """A running driver's state, from its start to idle: the open turn (if any), abort and latch."""

    def __init__(self, turn: int) -> None:
        self.turn = turn  # the open turn's number (at starting: the last turn, none open yet)
        self.step = 0  # the last step opened (STEP-1)
        self.aborted = False
        self.cause: object = None  # the cancel cause, once aborted (the first cause wins)
        self.wake_latched = False  # CANCEL-4
        self.ends: str | None = None  # the end reason the steps set so far (RESULT-1)
        self.batch: list[dict] = []  # the boundary's claimed batch
        self.calls: list[list] = []  # the open step's pending tool calls (tools.py)
        self.announced = 0  # tool calls the open step announced, answered or not
        # The turn claimed and awaits its system prompt, its pre-step listeners not called yet: it was
        # started by a call made at a point inside another call, which returned there (loop-grain
        # row 4, decisions G23).  It goes on only when the outer call's rest has run.  Also set on a
        # driver a cancel aborted at its start there, which goes idle only then (G30).
        self.prompting = False


def drive(agent: Agent) -> Loop:
    """A driver's life.  It is created by a waking send from idle, right after the send's insert."""
    yield WAKING  # the message is in, the driver not started: the agent is still idle (G20)
    while True:
        agent.run = Run(agent.last_turn)  # the driver runs and can be aborted, with no turn yet (G19)
        agent.notify_status("running")
        yield STARTING
        while not agent.run.aborted:  # a turn checks for an abort before its turn/start
            if not (yield from turn(agent)):
                break
            # CHAIN-1: a fresh abort signal, the latch dropped, before the next turn starts.
            agent.run.aborted, agent.run.cause, agent.run.wake_latched = False, None, False
            yield CHAINING
        yield ENDING  # the turn ended (or never started) and does not chain; not idle yet
        agent.notify_status(IDLE)
        latched, agent.run = agent.run.wake_latched, None
        if not latched:
            return  # CHAIN-2: the agent parks, idle
        # CANCEL-4: the agent is idle and its status's listeners act (a waking send there starts a
        # driver of its own, agent.py); then the latched wake starts a new driver if input is pending.
        yield REPLAYING
        if not agent.inbox.pending():
            return


def turn(agent: Agent) -> Generator[str, object, bool]:
    """One turn, from turn/start to turn/end; returns whether it chains (CHAIN-1)."""
    agent.last_turn += 1  # TURN-1
    run = agent.run = Run(agent.last_turn)
    agent.session.append("turn/start", {"turn": run.turn})
    target = NEXT_TURN  # TURN-4: the first claim right after turn/start takes one next-turn message
    while True:
        run.batch = agent.inbox.claim(target, run.turn)  # CLAIM-1, CLAIM-6
        target = NEXT_STEP
        for part in (pre_step, step):
            chains = yield from part(agent, run)
            if chains is not None:
                return chains
        if run.ends is not None and not agent.inbox.lists[NEXT_STEP]:  # RESULT-4: turn-stopping is due
            chains = yield from turn_stopping(agent, run)
            if chains is not None:
                return chains


def pre_step(agent: Agent, run: Run) -> Part:
    """The decision on the claimed batch, then the step/start it opens (DECIDE-1 … DECIDE-8)."""
    decision_of = yield DECIDING
    if decision_of == PROMPT_ABORTED:  # CANCEL-3: aborted before the prompt's wait ended, no listener
        return end(agent, run, {"kind": "aborted", "reason": run.cause})  # called, no hop passed (G23)
    assert callable(decision_of)
    decision, raised = None, None
    if not run.aborted:  # CANCEL-3: an aborted turn's answer runs no listener
        try:
            decision = decision_of(run.batch)
        except ListenerThrew as threw:
            raised = str(threw)
    yield DECIDED  # the waterfall settled; the pre-step has not checked for an abort yet
    if run.aborted:
        return end(agent, run, {"kind": "aborted", "reason": run.cause})
    if raised is not None:
        return (yield from fail(agent, run, raised, "UNKNOWN"))  # DECIDE-7
    assert decision is not None
    yield DECISION_RETURNED  # the turn has not acted on the decision yet
    # A reject or an empty entry is acted on without another abort check (loop-grain row 6).
    if decision["kind"] == "reject":
        return end(agent, run, {"kind": "blocked"})  # DECIDE-5
    entered = decision["messages"]
    if not entered and run.ends is not None:
        return end(agent, run, {"kind": run.ends}, normal=True)  # DECIDE-6, after a finished step
    if not entered and run.step == 0:
        return end(agent, run, {"kind": "completed"})  # DECIDE-6, first boundary
    if run.aborted:  # the check before step/start
        return end(agent, run, {"kind": "aborted", "reason": run.cause})
    run.step += 1
    run.batch, run.calls, run.announced = [], [], 0
    agent.session.append("step/start", {"turn": run.turn, "step": run.step})  # DECIDE-8
    for m in entered:
        agent.session.append("user/message", m, surface_op="append")  # LOG-7
    return None


def step(agent: Agent, run: Run) -> Part:
    """The open step, answer by answer, until it ends (RESULT-1 … RESULT-3, CANCEL-5)."""
    session = agent.session
    while True:
        result = yield STEPPING
        assert isinstance(result, dict)
        kind = result["kind"]
        if run.aborted:  # CANCEL-3, CANCEL-5: no tool starts; the started ones are answered, the rest skipped
            # A started tool finished while another started one still runs: the step stays open.
            # The last started tool's answer closes the step (finding F9).
            if kind == "tool-result" and len(run.calls) > 1 and run.calls[0][1] and run.calls[1][1]:
                tools.answer(session, run.turn, run.step, run.calls[:1], aborted=True)
                run.calls = run.calls[1:]
                continue
            started = [c for c in run.calls if c[1]]
            tools.answer(session, run.turn, run.step, started, True)
            if kind == "tool-calls" and started:  # a drained tool's deferred context still goes in
                for m in result["context"]:
                    try:
                        agent.inbox.append(NEXT_STEP, m)
                    except Refused:  # the turn ends aborted all the same (decisions G28)
                        break
            tools.answer(session, run.turn, run.step, [], True, skipped=[c for c in run.calls if not c[1]])
            run.calls = []
            close_step(agent, run)
            return end(agent, run, {"kind": "aborted", "reason": run.cause})
        if kind == "request-error" and result["retry"]:
            continue  # RESULT-3: the same step goes on
        if kind in ("tool-call", "tool-start", "tool-result"):
            tool_point(agent, run, kind, result["started"])
            continue
        if kind in ("fail", "request-error"):
            close_step(agent, run)
            return (yield from fail(agent, run, result["error"], result["code"]))
        if kind == "tool-calls":
            # RESULT-2: the results are committed before the tools' context, which is inserted at
            # the end of next-step one message at a time.
            tools.answer(session, run.turn, run.step, run.calls, False)
            run.calls = []
            for m in result["context"]:
                try:
                    agent.inbox.append(NEXT_STEP, m)
                except Refused as refused:  # the tool threw; what it inserted before stays written
                    close_step(agent, run)
                    return (yield from fail(agent, run, refused.message, "UNKNOWN"))
        ends = {"stop": "completed", "max-tokens": "max-tokens"}.get(kind)
        if kind == "tool-calls" and result["conclude"]:
            ends = "completed"
        run.ends = "max-tokens" if run.ends == "max-tokens" else ends  # RESULT-1: sticky
        tools.answer(session, run.turn, run.step, run.calls, False)  # every pending call is answered (LOG-4)
        run.calls = []
        close_step(agent, run)
        return None


def tool_point(agent: Agent, run: Run, kind: str, started: bool) -> None:
    """tool-call / tool-start / tool-result: a point inside the step (RESULT-2); it stays open."""
    if kind == "tool-call":
        run.announced += 1
        run.calls.append(tools.announce(agent.session, run.turn, run.step, run.announced))
    if kind == "tool-start" or (kind == "tool-call" and started):
        tools.start_next(agent.session, run.turn, run.step, run.calls)
    elif kind == "tool-result" and run.calls:  # the oldest pending call's tool finished
        tools.answer(agent.session, run.turn, run.step, run.calls[:1], False)
        run.calls = run.calls[1:]


def turn_stopping(agent: Agent, run: Run) -> Part:
    """agent/turn-stopping: end the turn, or go on when input was steered in (RESULT-4, RESULT-5)."""
    answer = yield STOPPING
    assert isinstance(answer, tuple)
    run_actions, raises = answer
    if run.aborted:
        return end(agent, run, {"kind": "aborted", "reason": run.cause})
    raised = run_actions()
    if raised is None:
        raised = raises
    if run.aborted:  # a listener canceled
        return end(agent, run, {"kind": "aborted", "reason": run.cause})
    if raised is not None:
        return (yield from fail(agent, run, raised, "UNKNOWN"))
    if not agent.inbox.lists[NEXT_STEP]:
        return end(agent, run, {"kind": run.ends}, normal=True)  # RESULT-5
    return None  # RESULT-4: the turn goes on with a claim at its next boundary


def fail(agent: Agent, run: Run, message: str, code: str) -> Part:
    """END-2: agent/error (turn, last opened step), then the error turn/end after the hop failing."""
    error = {"message": message, "code": code}
    agent.emit(("note", {"type": "agent/error", "turn": run.turn, "step": run.step, "error": error}))
    yield FAILING  # its listeners act here; whatever they do, the end is this error (END-3)
    return end(agent, run, {"kind": "error", "error": error})


def close_step(agent: Agent, run: Run) -> None:
    agent.session.append("step/end", {"turn": run.turn, "step": run.step})  # STEP-2


def end(agent: Agent, run: Run, reason: dict, normal: bool = False) -> bool:
    """turn/end; the turn chains when it ended normally with input pending (CHAIN-1, CHAIN-2)."""
    agent.session.append("turn/end", {"turn": run.turn, "reason": reason})
    return normal and agent.inbox.pending()

