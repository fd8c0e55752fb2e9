"""Mutants of crash repair, reload and what the log owes consumed-work accounting (REPAIR, FOLD, WORK)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget
from loopspec.inbox import operations as ops
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED, STEP_END, TURN_END, TURN_START
from loopspec.loop import effects as model_effects
from loopspec.loop import records as rec
from loopspec.loop.effects import EFFECTS
from loopspec.loop.phases import DECIDING, Row
from loopspec.loop.repair import interrupted_turn_closers
from loopspec.loop.state import LifecycleView
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import Mutant, Patch, effect_patch, guard_patch, table_patch
from vectors.mutants.witnesses import notes, splices, types

model_end_seed = EFFECTS["end-seed"]
model_abort = EFFECTS["abort"]


def _closers_without_step_end(events_: Sequence[SessionEvent]) -> tuple[SessionEvent, ...]:
    """Bug: repair closes an interrupted turn but leaves its open step unclosed (REPAIR-1)."""
    kept = [c for c in interrupted_turn_closers(events_) if c.type != STEP_END]
    return tuple(attrs.evolve(c, seq=len(events_) + i) for i, c in enumerate(kept))


def _last_turn_only(events_: Iterable[SessionEvent]) -> LifecycleView:
    """The same port's reload reads only the last turn number (it never validates the turns it reloads)."""
    turns = [e.data.get("turn") for e in events_ if e.type == TURN_START]  # type: ignore[union-attr]
    return LifecycleView(last_turn=int(turns[-1]) if turns else 0)  # type: ignore[arg-type]


def _closers_stamped_now(events_: Sequence[SessionEvent]) -> tuple[SessionEvent, ...]:
    """Bug: closers take the reloading process's clock, not the last real event's time (REPAIR-3)."""
    return tuple(attrs.evolve(c, time=c.time + 1 + i) for i, c in enumerate(interrupted_turn_closers(events_)))


def _end_seed_after_repair_only(work: Work, arg: str) -> None:
    """Bug: the end-seed marker is written only when a turn had to be closed (REPAIR-2)."""
    log = work.agent.log.events
    if log and log[-1].type == TURN_END and rec.reason_kind(log[-1].data.get("reason")) == rec.INTERRUPTED:  # type: ignore[union-attr]
        model_end_seed(work, arg)


def _resume_after_restart(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a reloaded agent with pending input resumes its loop at once (REPAIR-4: wait for a wake)."""
    out: list[Row] = []
    for row in table:
        if row.input == "restart":
            out.append(Row(row.phase, "restart", "pending", (*row.effects, "status-running", "turn-start",
                                                             "claim-turn"), DECIDING, ()))
        out.append(row)
    return tuple(out)


def _array_splice(state: InboxState, event: SessionEvent) -> InboxState:
    """A port's fold step: ``Array.prototype.splice`` on the record's list, which clamps instead of failing."""
    spliced = InboxSpliced.from_data(event.data, event.seq)
    lane = state.lane(spliced.target)
    start = min(spliced.start, len(lane))
    return state.with_lane(spliced.target, lane[:start] + spliced.inserted + lane[start + spliced.removed:])


def _fold_default_resets(events_: Iterable[SessionEvent]) -> InboxState:
    """Bug: the reload fold's default branch returns the initial state instead of the state (FOLD-4)."""
    state = EMPTY_INBOX
    for event in events_:
        state = _array_splice(state, event) if event.type == SPLICED else EMPTY_INBOX
    return state


def _fold_skips_claims(events_: Iterable[SessionEvent]) -> InboxState:
    """Bug: the reload fold only applies public edits, so claimed messages come back (FOLD-5)."""
    state = EMPTY_INBOX
    for event in events_:
        if event.type == SPLICED and not InboxSpliced.from_data(event.data, event.seq).is_claim:
            state = _array_splice(state, event)
    return state


def _clear_like_a_claim(state: InboxState) -> ops.InboxOutcome:
    """Bug: clear() reuses the claim's deletion path: no outcome, no discarded (WORK-1 cannot tell a drop)."""
    first = ops.mutate(state, InboxTarget.NEXT_STEP, 0, len(state.next_step), (), canceled=False)
    both = first.then(ops.mutate(first.state, InboxTarget.NEXT_TURN, 0, len(first.state.next_turn), (),
                                 canceled=False))
    return both


def _abort_forgets_next_step(work: Work, arg: str) -> None:
    """Bug: the aborted turn drops its in-memory next-step without writing anything (WORK-2)."""
    model_abort(work, arg)
    work.agent = attrs.evolve(work.agent, inbox=work.agent.inbox.with_lane(InboxTarget.NEXT_STEP, ()))


def _fewer_pending(expected: Json, actual: Json) -> bool:
    """Fewer messages pending afterwards, or (inside one command) fewer claimed or dropped by what followed,
    or a later insertion landing further forward in a list that is shorter than the model's."""
    def accounted(o: Json) -> int:
        return notes(o).count("agent/inbox/claimed") + notes(o).count("agent/inbox/discarded")

    pairs = zip(splices(expected), splices(actual), strict=False)
    forward = any(e.get("target") == a.get("target") and int(a.get("start", 0)) < int(e.get("start", 0))  # type: ignore[call-overload]
                  for e, a in pairs)
    return len(h.pending(actual)) < len(h.pending(expected)) or accounted(actual) < accounted(expected) or forward


def _more_pending(expected: Json, actual: Json) -> bool:
    return len(h.pending(actual)) > len(h.pending(expected))


def _pending_guard(work: Work) -> bool:
    return work.agent.inbox.has_pending


MUTANTS: tuple[Mutant, ...] = (
    Mutant("restart-skips-step-end", "REPAIR-1", "repair leaves the interrupted step open",
           (Patch(model_effects, "interrupted_turn_closers", _closers_without_step_end),
            Patch(model_effects, "project", _last_turn_only)),
           lambda e, a: types(e).count("step/end") > types(a).count("step/end")),
    Mutant("end-seed-after-repair-only", "REPAIR-2", "a restart with no open turn writes no end-seed",
           (effect_patch({"end-seed": _end_seed_after_repair_only}),),
           lambda e, a: "session/end-seed" in types(e) and "session/end-seed" not in types(a)),
    Mutant("closers-stamped-now", "REPAIR-3", "crash-repair closers carry the reload's time",
           (Patch(model_effects, "interrupted_turn_closers", _closers_stamped_now),),
           lambda e, a: h.times(e) != h.times(a), needs="v2"),
    Mutant("restart-resumes-pending", "REPAIR-4", "a reloaded agent with pending input starts a turn at once",
           (table_patch(_resume_after_restart), guard_patch({"pending": _pending_guard})),
           lambda e, a: "turn/start" in types(a) and "turn/start" not in types(e)),
    Mutant("fold-default-resets", "FOLD-4", "the reload fold resets the inbox on every other event",
           (Patch(model_effects, "replay", _fold_default_resets),), _fewer_pending),
    Mutant("reload-skips-claims", "FOLD-5", "the reload fold skips the claims, so claimed messages return",
           (Patch(model_effects, "replay", _fold_skips_claims),), _more_pending),
    Mutant("clear-writes-claim-shaped-removals", "WORK-1", "clear() writes its removals like a claim",
           (Patch(ops, "clear", _clear_like_a_claim),),
           lambda e, a: any(s.get("outcome") == "canceled" for s in splices(e))
           and not any(s.get("outcome") == "canceled" for s in splices(a))),
    Mutant("abort-drops-next-step-unrecorded", "WORK-2", "an abort drops next-step from memory without a record",
           (effect_patch({"abort": _abort_forgets_next_step}),), _fewer_pending),
)
