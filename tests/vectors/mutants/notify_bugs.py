"""Mutants of notifications and the claim (spec areas NOTIFY, STATUS, CLAIM).

Two of them move notifications relative to the durable records without changing either list:
only protocol v2's ``nextSeq`` shows that (``needs="v2"``).
"""

from __future__ import annotations

import attrs

from loopspec.data.messages import InboxState, InboxTarget, Messages
from loopspec.data.notifications import Claimed, Discarded
from loopspec.inbox import operations as ops
from loopspec.inbox.normalize import JsNumber
from loopspec.loop import commands as cmd
from loopspec.loop.effects import EFFECTS
from loopspec.loop.phases import Row
from loopspec.loop.preludes import PRELUDES, Actions
from loopspec.loop.state import RunningTurn
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import Mutant, Patch, effect_patch, prelude_patch, table_patch, with_effects
from vectors.mutants.witnesses import notes

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
model_mutate = ops.mutate
model_claim = ops.claim
model_splice = ops.splice
model_run_pre_step = PRELUDES["run-pre-step"]
model_claim_turn = EFFECTS["claim-turn"]
model_discarded_json = Discarded.to_json


# ---- notifications (NOTIFY-1, NOTIFY-2, NOTIFY-4, STATUS-1) ----


def _discarded_with_outcome(self: Discarded) -> dict[str, object]:
    """Bug: discarded copies the record's outcome (NOTIFY-1: the message only)."""
    return {**model_discarded_json(self), "outcome": "canceled"}


def _mutate_discards_backwards(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> ops.InboxOutcome:
    """Bug: removed messages are notified last to first, as a loop popping them would (NOTIFY-2)."""
    out = model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    gone = tuple(n for n in out.notifications if isinstance(n, Discarded))
    notes_ = gone[::-1] + tuple(n for n in out.notifications if not isinstance(n, Discarded))
    return attrs.evolve(out, notifications=notes_, trace=out.records + notes_)


def _discarded_reordered(expected: Json, actual: Json) -> bool:
    def ids(o: Json) -> list[object]:
        messages = [n.get("message") for n in h.note_objects(o, "agent/inbox/discarded")]
        return [m.get("id") if isinstance(m, dict) else None for m in messages]

    return sorted(map(str, ids(expected))) == sorted(map(str, ids(actual))) and ids(expected) != ids(actual)


def _clear_notifies_at_the_end(state: InboxState) -> ops.InboxOutcome:
    """Bug: clear() writes both records, then notifies everything, like a claim (NOTIFY-4)."""
    first = model_splice(state, NS, 0, len(state.next_step))
    both = first.then(model_splice(first.state, NT, 0, len(first.state.next_turn)))
    return attrs.evolve(both, trace=both.records + both.notifications)


def _lanes_notified_at_the_end(work: Work, target: str) -> None:
    """The same bug where a clear stops between its lists (loop-grain row 22): its first list's
    step writes both records, then notifies, so nothing is left for the point between them."""
    if target == NS.value:
        work.commit(_clear_notifies_at_the_end(work.agent.inbox))
    else:
        EFFECTS["clear"](work, target)


def _more_status(expected: Json, actual: Json) -> bool:
    return notes(actual).count("agent/status") > notes(expected).count("agent/status")


# ---- the claim (CLAIM-2, CLAIM-3, CLAIM-4, CLAIM-6) ----


def _claim_one_record_per_message(state: InboxState, target: InboxTarget, turn: int) -> ops.InboxOutcome:
    """Bug: the claim deletes message by message, one record each (CLAIM-2: one record per part)."""
    taken = ops.InboxOutcome(state)
    for _ in state.next_step:
        taken = taken.then(model_mutate(taken.state, NS, 0, 1, (), canceled=False))
    if target is NT and state.next_turn:
        taken = taken.then(model_mutate(taken.state, NT, 0, 1, (), canceled=False))
    claimed = tuple(Claimed(m, turn) for m in taken.removed)
    return attrs.evolve(taken, notifications=claimed, trace=taken.records + claimed)


def _claimed_after_each_record(state: InboxState, target: InboxTarget, turn: int) -> ops.InboxOutcome:
    """Bug: claimed is emitted after each of the claim's records, not after all of them (CLAIM-4)."""
    out = model_claim(state, target, turn)
    trace: list[object] = []
    claimed = list(out.notifications)
    for record in out.records:
        trace.append(record)
        trace += [claimed.pop(0) for _ in range(record.removed)]
    return attrs.evolve(out, trace=tuple(trace))  # type: ignore[arg-type]


def _claim_then_close_step(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: the next boundary is claimed as soon as the model answers, before the step is closed (CLAIM-3)."""
    # Derived from the model's rows, so whatever else a finished step does (answering its open tool
    # calls, RESULT-2) stays; only step-end moves, to after the next boundary's claim.
    def rewrite(row: Row) -> Row:
        if row.key == "stepping/step-result/finished":
            assert "step-end" in row.effects
            return attrs.evolve(row, effects=tuple(e for e in row.effects if e != "step-end"))
        if row.key == "boundary/auto/stopping-due":
            return attrs.evolve(row, effects=("step-end", *row.effects))
        if row.key == "boundary/auto/next-boundary":
            return attrs.evolve(row, effects=(*row.effects, "step-end"))
        return row

    return tuple(map(rewrite, table))


def _claim_turn_later(work: Work, arg: str) -> None:
    """Bug, first half: the first boundary's claim waits for the decision (CLAIM-6) ..."""


def _pre_step_claims_first(work: Work, command: cmd.Command, run: RunningTurn) -> Actions:
    """... and happens when the decision is asked for, with whatever is pending then."""
    if run.step == 0 and not run.batch and run.turn_ends is None:
        model_claim_turn(work, "")
    return model_run_pre_step(work, command, work.run)  # the turn as the claim left it


def _claim_missing(expected: Json, actual: Json) -> bool:
    return len(h.claims(expected)) > len(h.claims(actual))


MUTANTS: tuple[Mutant, ...] = (
    Mutant("discarded-carries-outcome", "NOTIFY-1", "discarded notifications carry the record's outcome",
           (Patch(Discarded, "to_json", _discarded_with_outcome),),
           lambda e, a: any("outcome" in n for n in h.note_objects(a, "agent/inbox/discarded"))),
    Mutant("discarded-backwards", "NOTIFY-2", "removed messages are notified last to first",
           (Patch(ops, "mutate", _mutate_discards_backwards),), _discarded_reordered),
    Mutant("clear-notifies-after-both-records", "NOTIFY-4", "clear() notifies after writing both records",
           (Patch(ops, "clear", _clear_notifies_at_the_end), effect_patch({"clear": _lanes_notified_at_the_end})),
           h.order_moved, needs="v2"),
    Mutant("status-per-turn", "STATUS-1", "every turn start emits agent/status running, also when chaining",
           (table_patch(with_effects("chaining/auto/not-aborted", ("status-running", "turn-start", "claim-turn"))),),
           _more_status),
    Mutant("claim-one-record-per-message", "CLAIM-2", "the claim writes one deletion per message",
           (Patch(ops, "claim", _claim_one_record_per_message),),
           lambda e, a: len(h.claims(a)) > len(h.claims(e))),
    Mutant("claim-before-step-end", "CLAIM-3", "the next boundary is claimed before the step is closed",
           (table_patch(_claim_then_close_step),), lambda e, a: h.claim_before(a, "step/end")),
    Mutant("claimed-after-each-record", "CLAIM-4", "claimed is emitted after each claim record",
           (Patch(ops, "claim", _claimed_after_each_record),), h.order_moved, needs="v2"),
    Mutant("claim-deferred-to-decision", "CLAIM-6", "the first boundary is claimed only when the decision is asked",
           (effect_patch({"claim-turn": _claim_turn_later}), prelude_patch({"run-pre-step": _pre_step_claims_first})),
           _claim_missing),
)
