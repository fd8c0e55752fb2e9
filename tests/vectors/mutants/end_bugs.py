"""Mutants of how steps and turns end, chain and get canceled (spec areas RESULT, CHAIN, CANCEL, VARIANT-2)."""

from __future__ import annotations

import attrs

from loopspec.data.json_value import Frozen, freeze
from loopspec.data.messages import InboxTarget
from loopspec.inbox import operations as ops
from loopspec.loop import commands as cmd
from loopspec.loop import records as rec
from loopspec.loop.effects import EFFECTS
from loopspec.loop.phases import DECIDING, FAILING, RUNNING, STOPPING, TURN_ENDED, Row
from loopspec.loop.preludes import PRELUDES, Actions
from loopspec.loop.state import RunningTurn
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import (
    Mutant,
    Patch,
    effect_patch,
    guard_patch,
    prelude_patch,
    table_patch,
    with_effects,
)
from vectors.mutants.witnesses import events, splices, types

NS = InboxTarget.NEXT_STEP
model_take_result = PRELUDES["take-result"]
model_end_turn = EFFECTS["end-turn"]
model_set_turn_ends = EFFECTS["set-turn-ends"]
model_clear_unless_keep = EFFECTS["clear-unless-keep"]


def _turn_ends_last_step_wins(work: Work, arg: str) -> None:
    """Bug: each finishing step overwrites the turn's end reason, so max-tokens is lost (RESULT-1)."""
    work.run = attrs.evolve(work.run, turn_ends=None)
    model_set_turn_ends(work, arg)


def _max_tokens_forgotten(expected: Json, actual: Json) -> bool:
    """The turn ends completed where the model ends it max-tokens, or after a later tool step the model
    stops the turn (max-tokens still set) where the mutant asks for another decision."""
    ended = "max-tokens" in h.end_kinds(expected) and "completed" in h.end_kinds(actual)
    phases = [(h.state(o) or {}).get("phase") for o in (expected, actual)]
    return ended or phases == ["stopping", "deciding"]


def _take_result_prepends_tool_context(work: Work, command: cmd.Command, run: RunningTurn) -> Actions:
    """Bug: tool context is unshifted onto next-step instead of appended at its end (RESULT-2)."""
    if isinstance(command, cmd.ToolCalls) and command.context:
        model_take_result(work, attrs.evolve(command, context=()), run)  # the results first, as the model's (RESULT-2)
        return tuple(cmd.Prepend(NS, m) for m in command.context)
    return model_take_result(work, command, run)


def _context_moved(expected: Json, actual: Json) -> bool:
    if h.state(expected) is not None:
        return h.pending(expected) != h.pending(actual)
    return [s.get("start") for s in splices(expected)] != [s.get("start") for s in splices(actual)]


def _abort_unseen_at_stopping(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: an abort is not noticed while turn-stopping is pending (CANCEL-3): the aborted answer
    (whose listeners never ran) is read as if nothing had stopped the turn."""
    out: list[Row] = []
    for row in table:
        if row.key == "stopping/turn-stopping/aborted":
            out += [Row(STOPPING, "turn-stopping", "aborted-finished", ("end-turn:finished",), TURN_ENDED, ()),
                    Row(STOPPING, "turn-stopping", "aborted-extended", ("claim-step",), DECIDING, ())]
        else:
            out.append(row)
    return tuple(out)


def _aborted_with_step_input(work: Work) -> bool:
    run = work.agent.running
    return run is not None and run.aborted is not None and bool(work.agent.inbox.next_step)


def _aborted_without_step_input(work: Work) -> bool:
    run = work.agent.running
    return run is not None and run.aborted is not None and not work.agent.inbox.next_step


def _no_turn_stopping(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a finished step ends the turn at once; the turn-stopping listeners never run (RESULT-4)."""
    def rewrite(row: Row) -> Row:
        if row.key == "boundary/auto/stopping-due":
            return attrs.evolve(row, effects=("end-turn:finished",), next=TURN_ENDED)
        return row

    return tuple(map(rewrite, table))


def _turn_ends_on_result(work: Work) -> bool:
    """Bug: whether the turn stops is read from the result alone, next-step input notwithstanding (RESULT-5)."""
    run = work.agent.running
    return run is not None and run.turn_ends is not None


def _stopped_with_step_input(expected: Json, actual: Json) -> bool:
    """The model claims next-step input where the mutant closes the turn (or stops) first."""
    return bool(h.claims(expected)) and not h.claim_before(actual, "turn/end") and (
        not h.claims(actual) or "turn/end" in types(actual))


def _end_turn_completed_only_chains(work: Work, kind: str) -> None:
    """Bug: only a completed end counts as a normal exit, so max-tokens does not chain (CHAIN-1)."""
    model_end_turn(work, kind)
    if kind == "finished" and work.run.turn_ends != rec.COMPLETED:
        work.run = attrs.evolve(work.run, normal_exit=False)


def _no_chain(expected: Json, actual: Json) -> bool:
    return "turn/start" in types(expected) and "turn/start" not in types(actual)


def _abort_clears_next_turn_only(work: Work, arg: str) -> None:
    """Bug: a cancel during a turn keeps next-step for the aborted turn's finally (CANCEL-1)."""
    c = work.command
    if work.agent.running is None or not isinstance(c, cmd.Cancel) or c.keep_inbox:
        model_clear_unless_keep(work, arg)
        return
    work.commit(ops.splice(work.agent.inbox, InboxTarget.NEXT_TURN, 0, len(work.agent.inbox.next_turn)))
    work.run = attrs.evolve(work.run, wake_requested=False)


def _cancel_skips_next_step(work: Work, arg: str) -> None:
    """The same bug where a cancel's clear stops between its lists (loop-grain row 22)."""
    call = work.agent.call
    cancel = call.cancel if call is not None else work.command
    if arg == InboxTarget.NEXT_STEP.value and isinstance(cancel, cmd.Cancel) and work.agent.running is not None:
        return
    EFFECTS["clear"](work, arg)


def _next_step_drop_missing(expected: Json, actual: Json) -> bool:
    def dropped(o: Json) -> int:
        return sum(1 for s in splices(o) if s.get("outcome") == "canceled" and s.get("target") == "next-step")

    return dropped(expected) > dropped(actual)


def _idle_cancel_always_clears(work: Work, arg: str) -> None:
    """Bug: cancel while idle clears the inbox even with keepInbox (CANCEL-2)."""
    if work.agent.running is None and isinstance(work.command, cmd.Cancel):
        work.commit(ops.clear(work.agent.inbox))
        return
    model_clear_unless_keep(work, arg)


def _no_latch(work: Work, _: str) -> None:
    """Bug: a waking send after the abort is redirected but never latched (CANCEL-4)."""


def _redirect_every_send(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: after an abort every send goes to next-turn, also a non-waking inject (CANCEL-4)."""
    out: list[Row] = []
    for row in table:
        if row.phase in RUNNING and row.input == "send":
            out.append(Row(row.phase, "send", "aborted", ("insert-redirected",), row.phase, ()))
        out.append(row)
    return tuple(out)


def _clear_keeps_latch(work: Work, _: str) -> None:
    """Bug: a clearing cancel empties the inbox but leaves a latched wake armed (CANCEL-4)."""
    assert isinstance(work.command, cmd.Cancel)
    if not work.command.keep_inbox:
        work.commit(ops.clear(work.agent.inbox))


def _end_cancel_keeps_latch(work: Work, _: str) -> None:
    """The same bug where a cancel's clear stopped inside itself (loop-grain row 22): its end aborts
    the running driver and leaves the latch armed."""
    call = work.agent.call
    assert call is not None
    assert call.cancel is not None
    if work.agent.running is not None and work.run.aborted is None:
        work.run = attrs.evolve(work.run, aborted=call.cancel.cause)


def _aborted_without_cause(cause: Frozen) -> Frozen:
    """Bug: an aborted end is written without the cause (VARIANT-2: reason is required)."""
    return freeze({"kind": "aborted"})


def _failure_ends_aborted_after_a_cancel(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a cancel that lands while agent/error is emitted turns the failure's end into an aborted one,
    though the loop's catch has already decided on the error (END-3: only an error end follows such a call)."""
    out: list[Row] = []
    for row in table:
        if row.phase == FAILING and row.input == "auto":
            out += [attrs.evolve(row, guard="aborted", effects=("end-turn:aborted",)),
                    attrs.evolve(row, guard="not-aborted")]
        else:
            out.append(row)
    return tuple(out)


def _answered(observation: Json) -> int:
    return types(observation).count("tool/result")


MUTANTS: tuple[Mutant, ...] = (
    Mutant("max-tokens-not-sticky", "RESULT-1", "a later stop step overwrites max-tokens",
           (effect_patch({"set-turn-ends": _turn_ends_last_step_wins}),), _max_tokens_forgotten),
    Mutant("tool-context-prepended", "RESULT-2", "tool context is unshifted onto next-step",
           (prelude_patch({"take-result": _take_result_prepends_tool_context}),), _context_moved),
    Mutant("retry-opens-new-step", "RESULT-3", "a retried request error closes the step and opens another",
           (table_patch(with_effects("stepping/step-result/retry", ("step-end", "step-start"))),),
           lambda e, a: not events(e) and "step/start" in types(a)),
    Mutant("no-turn-stopping", "RESULT-4", "a finished step ends the turn without running turn-stopping",
           (table_patch(_no_turn_stopping),),
           lambda e, a: "turn/end" in types(a) and "turn/end" not in types(e)),
    Mutant("stop-ignores-step-input", "RESULT-5", "a stop ends the turn even when next-step holds input",
           (guard_patch({"stopping-due": _turn_ends_on_result, "finished": lambda _: True}),),
           _stopped_with_step_input),
    Mutant("max-tokens-does-not-chain", "CHAIN-1", "a max-tokens end parks queued input instead of chaining",
           (effect_patch({"end-turn": _end_turn_completed_only_chains}),), _no_chain),
    Mutant("abort-keeps-next-step", "CANCEL-1", "a cancel during a turn leaves next-step alone",
           (effect_patch({"clear-unless-keep": _abort_clears_next_turn_only, "clear": _cancel_skips_next_step}),),
           _next_step_drop_missing),
    Mutant("idle-cancel-ignores-keep", "CANCEL-2", "cancel while idle clears even with keepInbox",
           (effect_patch({"clear-unless-keep": _idle_cancel_always_clears}),),
           lambda e, a: not events(e) and any(s.get("outcome") == "canceled" for s in splices(a))),
    Mutant("stopping-ignores-abort", "CANCEL-3", "an abort is not noticed while turn-stopping is pending",
           (table_patch(_abort_unseen_at_stopping), guard_patch({"aborted-finished": _aborted_without_step_input,
                                                                "aborted-extended": _aborted_with_step_input})),
           lambda e, a: "aborted" in h.end_kinds(e) and "aborted" not in h.end_kinds(a)),
    Mutant("latch-never-replays", "CANCEL-4", "a waking send after an abort never starts the next turn",
           (effect_patch({"latch": _no_latch}),), _no_chain),
    Mutant("non-waking-send-redirected", "CANCEL-4", "after an abort a non-waking send is redirected too",
           (table_patch(_redirect_every_send),),
           lambda e, a: [s.get("target") for s in splices(e)] != [s.get("target") for s in splices(a)]),
    Mutant("clearing-cancel-keeps-latch", "CANCEL-4", "a clearing cancel leaves a latched wake armed",
           (effect_patch({"clear-unless-keep": _clear_keeps_latch, "end-cancel": _end_cancel_keeps_latch}),),
           lambda e, a: _no_chain(a, e)),
    Mutant("abort-leaves-calls-unanswered", "CANCEL-5", "an aborted step closes with its tool calls unanswered",
           (table_patch(with_effects("stepping/step-result/aborted", ("step-end", "end-turn:aborted"))),),
           lambda e, a: "aborted" in h.end_kinds(a) and _answered(e) > _answered(a)),
    Mutant("failure-ends-aborted-after-a-cancel", "END-3",
           "a cancel landing between agent/error and the error end makes the end aborted",
           (table_patch(_failure_ends_aborted_after_a_cancel),),
           lambda e, a: "error" in h.end_kinds(e) and "aborted" in h.end_kinds(a)),
    Mutant("aborted-without-cause", "VARIANT-2", "an aborted end carries no reason",
           (Patch(rec, "aborted_reason", _aborted_without_cause),),
           lambda e, a: any(isinstance(r, dict) and "reason" not in r and r.get("kind") == "aborted"
                            for r in h.reasons(a))),
)
