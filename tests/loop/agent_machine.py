"""Hypothesis state machine over the lifecycle model (:func:`loopspec.loop.lifecycle.step`).

Moves: sends (followup, steer, inject, ``send`` either way), public inbox edits (append, prepend,
splice with odd numbers, replace, remove, clear), cancels (keepInbox or not, causes incl.
``{"kind": "disposed"}``), pre-step decisions as generated listener chains (every listener kind,
with steer/inject/followup/remove/cancel actions and throws), step results, turn stopping (with
actions or a throw) and restarts.  Ids come from a pool of five so duplicates and refusals happen;
await answers are also sent in phases with no table row, which must be refused (INPUT-4).

After every command :class:`LogWitness` reads the new durable events as a checker that sees only
the log would, and builds the exact emission trace the live side owes (NOTIFY-2/4, CLAIM-4,
INPUT-2, END-2, STATUS-1); ``_expect`` states what the command itself must have written.
Invariants after every step: replay equals the live state (FOLD-5, REPAIR-4), ids unique
(DATA-5), claims final (CLAIM-5), one fate per insertion (WORK-2), seq is the index (LOG-2).

A fixtures module: ``test_agent_stateful.py`` runs the machine, other tests reuse it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from loop.lifecycle_moves import MOVES, OPENINGS, WEIGHTS, Fine, GoOn, Move
from loop.lifecycle_witness import (
    DISPOSED,
    NORMAL,
    NS,
    NT,
    Batch,
    LogWitness,
    Shape,
    aborted_result,
    announcement,
    claim_record,
    error_end,
    schema_valid,
    shape,
    skipped_result,
    synthetic_result,
    tool_call,
    tool_result,
    turn_end,
)
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import JsonObject, freeze, thaw
from loopspec.data.messages import MessageId
from loopspec.data.notifications import AgentError, Claimed, StatusChanged
from loopspec.inbox.fold import replay
from loopspec.inbox.operations import send_insert
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import END_SEED, SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop import pre_step as lsn
from loopspec.loop.consumed_work import message_fates
from loopspec.loop.phases import (
    DECIDING,
    FAILING,
    HOPS,
    IDLE,
    IDLE_PHASES,
    LOOP_HOPS,
    REPLAYING,
    STARTING,
    STEPPING,
    STOPPING,
)
from loopspec.loop.projection import project
from loopspec.loop.state import Agent, AgentTransition
from loopspec.vectors.case import CaseSpec, build_case
from loopspec.vectors.codec import encode_command


class AgentMachine(RuleBasedStateMachine):
    CHECKS = True  # the row-coverage test runs the same moves without the checks

    def __init__(self) -> None:
        super().__init__()
        self.agent = Agent()
        self.witness = LogWitness()
        self.statuses: list[str] = []  # this process's status trace (a restart starts a new process)
        self.ends: str | None = None  # the end reason the open turn's steps set so far (RESULT-1)
        self.counts: Counter[str] = Counter()
        self.claims: list[tuple[MessageId, int]] = []
        self.commands: list[cmd.Command] = []  # what this example ran, for LOOPSPEC_EMIT_VECTORS
        self.emittable = True  # no move stopped at a hop (the command language cannot say so yet)

    def teardown(self) -> None:
        """With ``LOOPSPEC_EMIT_VECTORS=DIR``, write what this example ran as a vector case (walk)."""
        out = os.environ.get("LOOPSPEC_EMIT_VECTORS")
        if not out or not self.commands or not self.emittable:
            return
        commands = tuple(self.commands)
        digest = hashlib.sha256(repr([encode_command(c) for c in commands]).encode()).hexdigest()[:12]
        spec = CaseSpec(f"walk/stateful/{digest}", "walk", (), "Run by tests/test_agent_stateful.py", commands)
        case = build_case(spec)
        path = Path(out) / f"{digest}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(case, indent=1) + "\n")

    def record(self, transition: AgentTransition) -> None:
        """Hook for the row-coverage test."""

    def _go_on(self, move: GoOn) -> None:
        """The loop goes on by itself from a hop: only the log's and the stream's rules apply."""
        self.emittable = False  # the command language has no word for it yet
        before = self.agent
        if before.phase not in HOPS:  # the move before it stopped at an await point: nothing goes on
            with pytest.raises(CommandRefused, match="only from a hop"):
                lifecycle.advance(before, fine=move.fine)
            return
        tr = lifecycle.advance(before, fine=move.fine)
        event(f"{before.phase} -> {tr.agent.phase} (by itself)")
        self.record(tr)
        if self.CHECKS:
            call = before.call
            if call is not None and call.cancel is not None and tr.agent.call is None and tr.agent.phase in LOOP_HOPS:
                self.witness.landed(call.cancel, tr.agent.phase)  # the cancel's rest ran: its abort, at its hop
            self._witness(before, None, tr)
        if any(e.type == TURN_START for e in tr.events):
            self.ends = None
        self.agent = tr.agent

    def _apply(self, move: Move) -> None:
        if isinstance(move, GoOn):
            self._go_on(move)
            return
        fine = isinstance(move, Fine)
        command = move.command if isinstance(move, Fine) else move
        self.emittable = self.emittable and not fine
        self.commands.append(command)
        before, batch = self.agent, self.witness.batch
        has_row = bool(lifecycle.rows_at(before, lifecycle.classify(command)))
        try:
            tr = lifecycle.step(before, command, fine=fine)
        except CommandRefused as err:  # refused: there is no new agent, so nothing changed
            self._refused(before, command, err, has_row)
            return
        assert has_row, "INPUT-4: a command with no row was accepted"
        event(f"{before.phase} -> {tr.agent.phase}")
        self.record(tr)
        if self.CHECKS:
            # A call at a hop of the loop (or at a point inside a call made at one); a cancel that
            # stopped inside itself aborts only when its rest runs (loop-grain row 22), in _go_on.
            inside = before.call is None and tr.agent.call is not None
            if before.loop_phase in LOOP_HOPS and not (inside and isinstance(command, cmd.Cancel)):
                self.witness.landed(command, before.loop_phase)
            self._witness(before, command, tr)
            # A command's whole effect is known at its next await point; stopped at a hop it is not.
            if tr.agent.phase not in HOPS:
                self._expect(before, command, tr, batch)
        run = before.running
        finished = isinstance(command, cmd.StepResult) and not isinstance(command, cmd.Fail | cmd.RequestError)
        if finished and run is not None and run.aborted is None:
            assert isinstance(command, cmd.StepResult)
            ends = {"stop": "completed", "max-tokens": "max-tokens"}.get(command.kind)
            ends = "completed" if isinstance(command, cmd.ToolCalls) and command.conclude else ends
            self.ends = "max-tokens" if self.ends == "max-tokens" else ends  # RESULT-1: sticky
        if any(e.type == TURN_START for e in tr.events):
            self.ends = None
        self.agent = tr.agent

    def _refused(self, before: Agent, command: cmd.Command, err: CommandRefused, has_row: bool) -> None:
        event(f"refused {err.rule}")
        if not has_row:
            assert err.rule == "INPUT-4"
        elif isinstance(command, cmd.Send):  # INPUT-3: only a pending id refuses a send
            assert err.rule == "SPLICE-3"
            assert command.message.id in before.inbox.ids()
        else:
            assert err.rule in ("SPLICE-3", "NORM-5")
            assert isinstance(command, cmd.InboxEdit)

    def _witness(self, before: Agent, command: cmd.Command | None, tr: AgentTransition) -> None:
        start, events = len(before.log), tr.agent.log.events
        assert events[:start] == before.log.events  # append only
        assert [e.seq for e in events] == list(range(len(events)))  # LOG-2
        for e in tr.events:
            reason = e.data.get("reason") if isinstance(e.data, JsonObject) else None
            if e.type == TURN_END and self.witness.steps and reason in [freeze({"kind": k}) for k in NORMAL]:
                assert reason == freeze({"kind": self.ends}), "RESULT-1: the turn ends with its steps' reason"
            self.witness.feed(e)
        if tr.agent.phase == FAILING and before.loop_phase != FAILING:
            # Stopped after agent/error: the witness reads the turn and step it names; the error's
            # text it checks against the turn/end that follows.
            assert isinstance(tr.trace[-1], AgentError), "END-2: the hop after agent/error follows it"
            self.witness.failed(tr.trace[-1])
        if tr.agent.phase == STARTING and before.loop_phase != STARTING:
            self.witness.starting()
        if tr.agent.phase == REPLAYING and before.loop_phase != REPLAYING:
            self.witness.replaying()
        # the exact emission order, records and notifications (a turn's sequel may wait at a hop)
        assert list(tr.trace) == self.witness.close(at_hop=tr.agent.phase in HOPS)
        assert tr.events == events[start:] == tuple(x for x in tr.trace if isinstance(x, SessionEvent))
        assert tr.notifications == tuple(x for x in tr.trace if not isinstance(x, SessionEvent))
        self.statuses += [n.status for n in tr.notifications if isinstance(n, StatusChanged)]
        assert all(a != b for a, b in zip(["idle", *self.statuses], self.statuses, strict=False)), "STATUS-1"
        if isinstance(command, cmd.Restart):
            self.witness.status, self.statuses = "idle", []  # the new process starts idle, silently
        assert tr.agent.status == self.witness.status
        self.counts.update(type(n).__name__ for n in tr.notifications)
        self.claims += [(n.message.id, n.turn) for n in tr.notifications if isinstance(n, Claimed)]
        for item in tr.trace:
            schema_valid(item)

    def _acted(self, before: Agent, chain: tuple[cmd.ListenerActionT, ...]) -> tuple[Agent, list[Shape], str | None]:
        """The listeners' actions performed one by one through the public step; the first refusal."""
        agent, written = before, list[Shape]()
        for action in chain:
            try:
                tr = lifecycle.step(agent, action)
            except CommandRefused as err:
                return agent, written, err.message
            agent, written = tr.agent, written + shape(tr.events)
        return agent, written, None

    def _expect(self, before: Agent, command: cmd.Command, tr: AgentTransition, batch: Batch) -> None:
        """What the command itself must have written, beyond the log-level rules."""
        got, run, after = shape(tr.events), before.running, tr.agent
        aborted = run is not None and run.aborted is not None
        if isinstance(command, cmd.Send):
            target = NT if command.wake and aborted else command.target  # CANCEL-4: redirect
            at_end, message = len(before.inbox.lane(target)), thaw(command.message.body)
            assert got[0] == (SPLICED, {"target": target.value, "start": at_end, "inserted": [message]})
            if before.phase in IDLE_PHASES and command.wake:  # INPUT-2: the turn starts inside the send
                assert got[1] == (TURN_START, {"turn": before.last_turn + 1})
                assert after.phase == DECIDING
            else:  # INPUT-1: at the end, and a running driver sees it at its next boundary
                assert (len(got), after.phase) == (1, before.phase)
            if run is not None and after.running is not None:  # CANCEL-4: the latch
                latch = command.wake and aborted and run.aborted != DISPOSED
                assert after.running.wake_requested == (run.wake_requested or latch)
        elif isinstance(command, cmd.Cancel):
            assert after.phase == before.phase  # CANCEL-2: no turn event, no status change
            lanes = [] if command.keep_inbox else [x for x in (NS, NT) if before.inbox.lane(x)]
            assert got == [  # CANCEL-1: clear, next-step first, then abort
                (SPLICED, {**claim_record(x, len(before.inbox.lane(x)))[1], "outcome": "canceled"})  # type: ignore[dict-item]
                for x in lanes
            ]
            if run is not None and after.running is not None:
                assert after.running.aborted == (run.aborted if aborted else command.cause)  # first cause wins
                assert after.running.wake_requested == (run.wake_requested and command.keep_inbox)
        elif isinstance(command, cmd.Restart):
            view, log = before.lifecycle_view(), before.log.events
            closers: list[Shape] = []
            if view.open_turn is not None:  # REPAIR-1: tool results owed, step/end if a step is open, turn/end
                calls = before.running.calls if before.running is not None and view.open_step is not None else ()
                closers += [synthetic_result(view.open_turn, view.open_step, call, started, len(log) + i)
                            for i, (call, started) in enumerate(calls)]
                closers += [(STEP_END, {"turn": view.open_turn, "step": view.open_step})] * (view.open_step is not None)
                closers.append(turn_end(view.open_turn, {"kind": "interrupted"}))
            seed: list[Shape] = [] if log and not closers and log[-1].type == END_SEED else [(END_SEED, {})]
            assert got == closers + seed  # REPAIR-2: never doubled
            assert all(e.time == log[-1].time for e in tr.events[: len(closers)])  # REPAIR-3
            assert (after.phase, after.running, after.last_turn) == (IDLE, None, before.last_turn)  # REPAIR-4
        elif isinstance(command, cmd.Decide | cmd.StepResult | cmd.TurnStopping):
            assert run is not None
            if run.aborted is not None:  # CANCEL-3: the abort wins over any answer
                drains = isinstance(command, cmd.StepResult) and command.kind == "tool-result"
                # CANCEL-5: a started tool finished while another started one runs; the step goes on
                # (the last started tool's answer closes it, finding F9).
                if drains and len(run.calls) > 1 and run.calls[0][1] and run.calls[1][1]:
                    assert (got, after.phase) == ([aborted_result(run.turn, run.step, run.calls[0][0])], STEPPING)
                    return
                # CANCEL-5: the started calls answered (starts go in call order), the context their
                # tools deferred appended to next-step, then a skipped pair per call never started.
                started = [call for call, was_started in run.calls if was_started]
                closing: list[Shape] = [aborted_result(run.turn, run.step, call) for call in started]
                inbox = before.inbox
                for m in command.context if isinstance(command, cmd.ToolCalls) and started else ():
                    try:
                        inbox, start = send_insert(inbox, NS, m).state, len(inbox.next_step)
                    except CommandRefused:  # the turn ends aborted all the same (decisions G28)
                        break
                    closing.append((SPLICED, {"target": "next-step", "start": start, "inserted": [thaw(m.body)]}))
                closing += [record for call, was_started in run.calls if not was_started for record in (
                    tool_call(run.turn, run.step, call), skipped_result(run.turn, run.step, call))]
                closing += [(STEP_END, {"turn": run.turn, "step": run.step})] * (before.phase == STEPPING)
                closing.append(turn_end(run.turn, {"kind": "aborted", "reason": thaw(run.aborted)}))
                assert got[: len(closing)] == closing
                assert (len(got) > len(closing)) == (run.wake_requested and inbox.has_pending)  # CANCEL-4
            elif isinstance(command, cmd.StepResult):
                self._expect_result(before, command, got, after)
            else:
                self._expect_decision(before, command, got, batch)
        else:
            assert after.phase == before.phase
            assert all(t == SPLICED for t, _ in got)

    def _expect_decision(
        self, before: Agent, command: cmd.Decide | cmd.TurnStopping, got: list[Shape], batch: Batch
    ) -> None:
        run = before.running
        assert run is not None
        decision: lsn.PreStepDecision | None = None
        if isinstance(command, cmd.Decide):
            assert run.batch == batch, "DECIDE-1, DECIDE-4: the decision sees exactly this boundary's claim"
            # DECIDE-1: the payload is the running turn and the number the proposed step gets.
            chain = lsn.run_chain(batch, command.listeners, lsn.PreStepPayload(run.turn, run.step + 1))
            decision, raised, performed = chain.decision, chain.raised, chain.actions
        else:
            raised, performed = command.raises, command.actions
        acted, written, refused = self._acted(before, performed)
        assert got[: len(written)] == written  # the listeners' actions come first, in order
        rest, now = got[len(written) :], acted.running
        assert now is not None
        turn, raised = now.turn, refused or raised
        head: list[Shape]
        if now.aborted is not None:
            head = [turn_end(turn, {"kind": "aborted", "reason": thaw(now.aborted)})]
        elif raised is not None:
            head = [error_end(turn, raised)]  # DECIDE-7
        elif isinstance(command, cmd.TurnStopping):  # RESULT-4: steered input extends the turn
            ns = acted.inbox.next_step
            head = [claim_record(NS, len(ns))] if ns else [turn_end(turn, {"kind": self.ends})]
        elif isinstance(decision, lsn.Reject):
            head = [turn_end(turn, {"kind": "blocked"})]  # DECIDE-5
        elif decision is not None and not decision.messages and (now.step == 0 or self.ends is not None):
            head = [turn_end(turn, {"kind": self.ends or "completed"})]  # DECIDE-6
        else:
            assert decision is not None
            head = [(STEP_START, {"turn": turn, "step": now.step + 1})]  # DECIDE-8: the decision's batch
            head += [(USER_MESSAGE, thaw(m.body)) for m in decision.messages]
            assert len(rest) == len(head)
        assert rest[: len(head)] == head

    def _expect_result(self, before: Agent, command: cmd.StepResult, got: list[Shape], after: Agent) -> None:
        run = before.running
        assert run is not None
        step_end: Shape = (STEP_END, {"turn": run.turn, "step": run.step})
        if isinstance(command, cmd.RequestError) and command.retry:
            assert (got, after.phase) == ([], STEPPING)  # RESULT-3: retried inside the same step
            return
        if isinstance(command, cmd.ToolCall):  # a point inside the step: the call is announced, maybe a tool starts
            call = f"call-{run.turn}.{run.step}.{run.announced + 1}"
            oldest = next((c for c, started in run.calls if not started), call)  # LOG-11: the oldest waiting starts
            assert got == [announcement(run.turn, run.step, call)] + [tool_call(run.turn, run.step, oldest)] * (
                command.started
            )
            assert after.phase == STEPPING
            return
        if command.kind == "tool-start":  # the oldest announced call not started yet starts
            waiting = [call for call, started in run.calls if not started][:1]
            assert (got, after.phase) == ([tool_call(run.turn, run.step, c) for c in waiting], STEPPING)
            return
        if command.kind == "tool-result":  # the oldest pending call is answered (started first if it was not)
            expected: list[Shape] = []
            for call, started in run.calls[:1]:
                expected += [tool_call(run.turn, run.step, call)] * (not started)
                expected.append(tool_result(run.turn, run.step, call))
            assert (got, after.phase) == (expected, STEPPING)
            return
        if isinstance(command, cmd.Fail | cmd.RequestError):
            assert got == [step_end, error_end(run.turn, command.error, command.code)]  # RESULT-3
            return
        inbox, head = before.inbox, list[Shape]()
        for call, started in run.calls:  # the step's tools finish: each pending call is answered (LOG-4)
            head += [tool_call(run.turn, run.step, call)] * (not started) + [tool_result(run.turn, run.step, call)]
        tools = command if isinstance(command, cmd.ToolCalls) else cmd.ToolCalls()
        for m in tools.context:  # RESULT-2: then each context message is appended to next-step
            try:
                inbox, start = send_insert(inbox, NS, m).state, len(inbox.next_step)
            except CommandRefused as err:  # the tool throws: the step fails after what was written
                refusal = err.message
                break
            head.append((SPLICED, {"target": "next-step", "start": start, "inserted": [thaw(m.body)]}))
        else:
            refusal = None
        if refusal is not None:
            assert got == [*head, step_end, error_end(run.turn, refusal)]
            return
        ends = {"stop": "completed", "max-tokens": "max-tokens"}.get(command.kind)
        ends = "max-tokens" if self.ends == "max-tokens" else ends or ("completed" if tools.conclude else None)
        head.append(step_end)
        if ends is not None and not inbox.next_step:
            assert (got, after.phase) == (head, STOPPING)  # RESULT-4: turn stopping is due
        else:
            assert got == head + [claim_record(NS, len(inbox.next_step))] * bool(inbox.next_step)
            assert after.phase == DECIDING  # CLAIM-6: the next boundary claims at once

    @initialize(opening=st.sampled_from(tuple(OPENINGS)))
    def open_in_some_state(self, opening: str) -> None:
        """Short runs (the ``dev`` profile) still reach every phase, aborted or not."""
        for command in OPENINGS[opening]:
            self._apply(command)

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        move = data.draw(st.sampled_from(WEIGHTS[self.agent.phase]))
        for command in data.draw(MOVES[self.agent.phase][move]):
            self._apply(command)

    @invariant()
    def replay_equals_live_state(self) -> None:
        if not self.CHECKS:
            return
        agent, events, w = self.agent, self.agent.log.events, self.witness
        assert replay(events) == agent.inbox  # FOLD-5, REPAIR-4
        view = project(events)
        assert view == agent.lifecycle_view()
        assert (view.last_turn, view.open_turn, view.open_step) == (w.last_turn, w.turn, w.step)
        pending = agent.inbox.ids()
        assert len(pending) == len(set(pending))  # DATA-5
        assert not set(pending) & set(w.consumed)  # CLAIM-5: a claimed message never comes back implicitly

    @invariant()
    def every_insertion_has_one_fate(self) -> None:
        if not self.CHECKS:
            return
        fates = message_fates(self.agent.log.events)  # WORK-2: pending + claimed + canceled = inserted
        by_fate = Counter(f.fate for f in fates)
        assert sorted(f.id for f in fates if f.fate == "pending") == sorted(self.agent.inbox.ids())
        assert (len(fates), by_fate["canceled"]) == (self.counts["Inserted"], self.counts["Discarded"])
        assert sorted((f.id, f.turn) for f in fates if f.fate == "claimed") == sorted(self.claims)
