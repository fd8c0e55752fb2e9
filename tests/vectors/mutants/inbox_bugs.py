"""Mutants of the inbox's write path (spec areas NORM, SPLICE, NOTIFY, CLAIM).

Each replacement wraps (or re-states in a few lines) one function of :mod:`loopspec.inbox.operations`; the
originals are captured at import, before any patch is installed, so a wrapper always calls the
model's own code.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxState, InboxTarget, Messages
from loopspec.data.notifications import Claimed, Discarded, Inserted
from loopspec.inbox import operations as model_inbox
from loopspec.inbox.normalize import JsNumber, SpliceCoordinates, js_trunc, normalize
from loopspec.inbox.operations import InboxOutcome
from loopspec.log.events import InboxSpliced
from loopspec.loop import effects as model_effects
from loopspec.loop.work import Work
from vectors.mutants.handler import Patch, effect_patch

NEXT_TURN, NEXT_STEP = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
model_mutate = model_inbox.mutate
model_normalize = normalize
model_claim = model_inbox.claim
model_splice = model_inbox.splice


def _other(target: InboxTarget) -> InboxTarget:
    return NEXT_STEP if target is NEXT_TURN else NEXT_TURN


def _records_rewritten(out: InboxOutcome, rewrite: Callable[[InboxSpliced], InboxSpliced]) -> InboxOutcome:
    """The outcome with every durable record rewritten, in ``records`` and in the emission ``trace``."""
    trace = tuple(rewrite(x) if isinstance(x, InboxSpliced) else x for x in out.trace)
    return attrs.evolve(out, records=tuple(rewrite(r) for r in out.records), trace=trace)


# ---- claim (CLAIM-1, CLAIM-2, CLAIM-4, SPLICE-6) ----


def _claim_every_next_turn(state: InboxState, target: InboxTarget, turn: int) -> InboxOutcome:
    """Bug: the first boundary takes the whole next-turn list, not one follow-up (CLAIM-1)."""
    taken = model_mutate(state, NEXT_STEP, 0, len(state.next_step), (), canceled=False)
    if target is NEXT_TURN:
        rest = len(taken.state.next_turn)
        taken = taken.then(model_mutate(taken.state, NEXT_TURN, 0, rest, (), canceled=False))
    notes = tuple(Claimed(m, turn) for m in taken.removed)
    return attrs.evolve(taken, notifications=notes, trace=taken.records + notes)


def _claim_next_turn_always(state: InboxState, target: InboxTarget, turn: int) -> InboxOutcome:
    """Bug: every boundary takes a follow-up, also the later ones of a turn (CLAIM-1)."""
    return model_claim(state, NEXT_TURN, turn)


def _claim_marked_canceled(state: InboxState, target: InboxTarget, turn: int) -> InboxOutcome:
    """Bug: the claim's deletions carry ``outcome: "canceled"`` like a public removal (SPLICE-6)."""
    out = model_claim(state, target, turn)
    return _records_rewritten(out, lambda r: attrs.evolve(r, outcome="canceled"))


def _claim_discards(state: InboxState, target: InboxTarget, turn: int) -> InboxOutcome:
    """Bug: the claim also emits ``discarded`` for what it took (CLAIM-4)."""
    out = model_claim(state, target, turn)
    notes = tuple(Discarded(m) for m in out.removed) + out.notifications
    return attrs.evolve(out, notifications=notes, trace=out.records + notes)


# ---- the one write path (SPLICE-2, SPLICE-3, SPLICE-4, NOTIFY-2) ----


def _mutate_writes_noops(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> InboxOutcome:
    """Bug: a public edit that removes and inserts nothing is still written (SPLICE-2)."""
    where = model_normalize(start, delete_count, len(state.lane(target)))
    if not canceled or where.delete_count or inserted:
        return model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    if where.negative_zero_start:
        raise CommandRefused("NORM-5", 'session event "agent/inbox/spliced" carries non-JSON-serializable data')
    record = InboxSpliced(target, where.start, ())
    return InboxOutcome(state, (record,), trace=(record,))


def _mutate_checks_target_only(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> InboxOutcome:
    """Bug: the duplicate walk covers only the edited list, not the other one (SPLICE-3)."""
    other = _other(target)
    out = model_mutate(state.with_lane(other, ()), target, start, delete_count, inserted, canceled=canceled)
    return attrs.evolve(out, state=out.state.with_lane(other, state.lane(other)))


def _mutate_writes_zero_count(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> InboxOutcome:
    """Bug: ``removedCount: 0`` is written on pure insertions instead of being omitted (SPLICE-4)."""
    out = model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    return _records_rewritten(out, lambda r: attrs.evolve(r, removed_count=r.removed))


def _mutate_inserts_first(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> InboxOutcome:
    """Bug: ``inserted`` notifications go out before ``discarded`` ones, so replace reverses (NOTIFY-3)."""
    out = model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    notes = out.notifications
    reordered = tuple(n for n in notes if isinstance(n, Inserted)) + tuple(
        n for n in notes if not isinstance(n, Inserted)
    )
    return attrs.evolve(out, notifications=reordered, trace=out.records + reordered)


def _normalize_negative_as_zero(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    """Bug: a negative start clamps to 0 instead of counting from the end (NORM-2)."""
    t = js_trunc(start)
    return model_normalize(0 if t < 0 else start, delete_count, length)


# ---- clear (SPLICE-8) ----


def _clear_next_turn_first(state: InboxState) -> InboxOutcome:
    """Bug: ``clear()`` cancels next-turn before next-step (SPLICE-8)."""
    first = model_splice(state, NEXT_TURN, 0, len(state.next_turn))
    return first.then(model_splice(first.state, NEXT_STEP, 0, len(first.state.next_step)))


def _lanes_swapped(work: Work, target: str) -> None:
    """The same bug where a clear stops between its lists (loop-grain row 22): its first list's step
    clears next-turn, then next-step, so nothing is left for the point between them."""
    if target == NEXT_STEP.value:
        work.commit(_clear_next_turn_first(work.agent.inbox))
    else:
        model_effects.EFFECTS["clear"](work, target)


def inbox_patch(name: str, replacement: object) -> Patch:
    return Patch(model_inbox, name, replacement)


PATCHES: dict[str, Patch] = {
    "claim-every-next-turn": inbox_patch("claim", _claim_every_next_turn),
    "claim-next-turn-always": inbox_patch("claim", _claim_next_turn_always),
    "claim-marked-canceled": inbox_patch("claim", _claim_marked_canceled),
    "claim-discards": inbox_patch("claim", _claim_discards),
    "noop-edits-written": inbox_patch("mutate", _mutate_writes_noops),
    "dup-check-target-only": inbox_patch("mutate", _mutate_checks_target_only),
    "removed-count-zero": inbox_patch("mutate", _mutate_writes_zero_count),
    "inserted-before-discarded": inbox_patch("mutate", _mutate_inserts_first),
    "negative-start-from-zero": inbox_patch("normalize", _normalize_negative_as_zero),
    "clear-next-turn-first": inbox_patch("clear", _clear_next_turn_first),
}
# The rest of a mutant's bug where the model splits the operation (a clear between its lists).
SPLIT_PATCHES: dict[str, Patch] = {"clear-next-turn-first": effect_patch({"clear": _lanes_swapped})}
"""Patch per mutant name; :mod:`mutants.catalogue` pairs each with its rule and witness."""
