"""Mutants of the inbox's edits: normalization, records, duplicate checks, replace/remove.

Spec areas NORM and SPLICE (identity and the reported state, DATA, are in :mod:`.identity_bugs`).
Each wraps (or re-states in a few lines) one function of :mod:`loopspec.inbox.operations`, one
lifecycle effect, or how an event is written out; the originals are captured at import, before
any patch is installed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox import operations as ops
from loopspec.inbox.normalize import JsNumber, SpliceCoordinates, normalize
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.loop import commands as cmd
from loopspec.loop import effects as model_effects
from loopspec.loop.effects import EFFECTS
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import Mutant, Patch, effect_patch
from vectors.mutants.witnesses import different_start, splices

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
model_mutate = ops.mutate
model_normalize = normalize
model_replace = ops.replace
model_locate = ops.locate
model_edit = EFFECTS["edit"]
model_event_json = SessionEvent.to_json
MINUS_ZERO_TEXT = "session event \"agent/inbox/spliced\" carries non-JSON-serializable data"


def _ops(name: str, replacement: object) -> Patch:
    return Patch(ops, name, replacement)


def output_patch(rewrite: Callable[[dict[str, object]], dict[str, object]]) -> Patch:
    """How events are written out (the serializer), the stored log staying the model's."""
    def to_json(self: SessionEvent) -> dict[str, object]:
        return rewrite(model_event_json(self))

    return Patch(SessionEvent, "to_json", to_json)


# ---- normalization (NORM-1, NORM-3, NORM-4, NORM-5) ----


def _normalize_floors(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    """Bug: the start is ``Math.floor``ed, not truncated, so -1.5 becomes -2 (NORM-1)."""
    if isinstance(start, float) and math.isfinite(start) and start != 0:
        start = math.floor(start)
    return model_normalize(start, delete_count, length)


def _int32(x: JsNumber) -> int:
    if isinstance(x, float) and not math.isfinite(x):
        return 0
    n = math.trunc(x) & 0xFFFFFFFF
    return n - (1 << 32) if n >= 1 << 31 else n


def _normalize_count_int32(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    """Bug: ``deleteCount | 0``: Infinity and NaN remove nothing, huge counts wrap (NORM-3)."""
    return model_normalize(start, _int32(delete_count), length)


def _mutate_raw_start(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> ops.InboxOutcome:
    """Bug: the record keeps the caller's integer start (-1, 99) instead of the normalized one (NORM-4)."""
    out = model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    if not isinstance(start, int) or isinstance(start, bool):
        return out
    rewrite = {r: attrs.evolve(r, start=start) for r in out.records}
    trace = tuple(rewrite.get(x, x) if isinstance(x, InboxSpliced) else x for x in out.trace)
    return attrs.evolve(out, records=tuple(rewrite.values()), trace=trace)


def _renormalizing_replay(events: Iterable[SessionEvent]) -> InboxState:
    """The same port's fold, which normalizes a record's coordinates again (so it reloads its own log)."""
    state = EMPTY_INBOX
    for event in events:
        if event.type == SPLICED:
            splice = InboxSpliced.from_data(event.data, event.seq)
            lane = state.lane(splice.target)
            where = model_normalize(splice.start, splice.removed, len(lane))
            end = where.start + where.delete_count
            state = state.with_lane(splice.target, lane[: where.start] + splice.inserted + lane[end:])
    return state


def _normalize_minus_zero_is_zero(start: JsNumber, delete_count: JsNumber, length: int) -> SpliceCoordinates:
    """Bug: a language without -0 stores the start as 0 and accepts the edit (NORM-5)."""
    return attrs.evolve(model_normalize(start, delete_count, length), negative_zero_start=False)


def _mutate_other_minus_zero_text(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> ops.InboxOutcome:
    """Bug: the -0 refusal has its own wording, so a listener's failure reads differently (NORM-5)."""
    try:
        return model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    except CommandRefused as err:
        if err.code == "NORM-5":
            raise CommandRefused("NORM-5", "invalid start -0") from None
        raise


def _minus_zero_text_changed(expected: Json, actual: Json) -> bool:
    return h.mentions(expected, MINUS_ZERO_TEXT) and h.mentions(actual, "invalid start -0")


def _refused_minus_zero_accepted(expected: Json, actual: Json) -> bool:
    """The model refuses a -0 edit (directly, or inside a listener that then fails); the mutant does not."""
    return (h.refused(expected, "NORM-5") or h.mentions(expected, MINUS_ZERO_TEXT)) and not (
        h.refused(actual, "NORM-5") or h.mentions(actual, MINUS_ZERO_TEXT))


def _removal_differs(expected: Json, actual: Json) -> bool:
    counts = [[s.get("removedCount", 0) for s in splices(o)] for o in (expected, actual)]
    return counts[0] != counts[1] or expected.get("value") != actual.get("value")


def _raw_start_written(expected: Json, actual: Json) -> bool:
    pairs = zip(splices(expected), splices(actual), strict=False)
    return any(e.get("start") != a.get("start") for e, a in pairs)


# ---- the public edits (SPLICE-1, SPLICE-3, SPLICE-5, SPLICE-7, SPLICE-9) ----


def _edit_splice_returns_null(work: Work, arg: str) -> None:
    """Bug: a splice that removes nothing returns null instead of [] (SPLICE-1)."""
    model_edit(work, arg)
    if isinstance(work.command, cmd.Splice) and work.value == ():
        work.value = None


def _mutate_other_duplicate_text(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> ops.InboxOutcome:
    """Bug: the duplicate refusal has its own wording (SPLICE-3's text is fixed)."""
    try:
        return model_mutate(state, target, start, delete_count, inserted, canceled=canceled)
    except CommandRefused as err:
        if err.code == "SPLICE-3":
            raise CommandRefused("SPLICE-3", "duplicate message id") from None
        raise


def _duplicate_text_changed(expected: Json, actual: Json) -> bool:
    return h.mentions(expected, "is already pending") and h.mentions(actual, "duplicate message id")


def _drop_empty_inserted(event: dict[str, object]) -> dict[str, object]:
    """Bug: the serializer omits empty arrays (Go's omitempty), so pure deletions lose inserted (SPLICE-5)."""
    payload = event.get("data")
    if event.get("type") == SPLICED and isinstance(payload, dict) and payload.get("inserted") == []:
        event["data"] = {k: v for k, v in payload.items() if k != "inserted"}
    return event


def _inserted_missing(expected: Json, actual: Json) -> bool:
    return any("inserted" not in s for s in splices(actual)) and all("inserted" in s for s in splices(expected))


def _replace_upserts(state: InboxState, message_id: MessageId, new: UserMessage) -> ops.InboxOutcome:
    """Bug: replacing an id that is not pending appends the new message to next-turn (SPLICE-7)."""
    if model_locate(state, message_id) is None:
        return ops.splice(state, NT, len(state.next_turn), 0, (new,))
    return model_replace(state, message_id, new)


def _upserted(expected: Json, actual: Json) -> bool:
    """The replace answers true, or (a listener's replace) inserts into next-turn where the model does not."""
    def inserts(o: Json) -> int:
        return sum(1 for s in splices(o) if s.get("target") == "next-turn" and "removedCount" not in s)

    def bodies(o: Json) -> set[str]:
        inserted = [s.get("inserted") for s in splices(o) if s.get("target") == "next-turn" and "removedCount" not in s]
        return {json.dumps(m, sort_keys=True) for each in inserted if isinstance(each, list) for m in each}

    refused_upsert = expected.get("value") is False and h.refused(actual, "SPLICE-3")
    answered = expected.get("value") is False and actual.get("value") is True
    # or a listener's replacement body turns up in next-turn, where the model never inserted it
    return answered or refused_upsert or inserts(actual) > inserts(expected) or bool(bodies(actual) - bodies(expected))


def _replace_checks_before_removing(state: InboxState, message_id: MessageId, new: UserMessage) -> ops.InboxOutcome:
    """Bug: the duplicate check runs before the old message leaves, so a same-id replacement is refused (SPLICE-9)."""
    if model_locate(state, message_id) is not None and new.id in state.ids():
        raise CommandRefused("SPLICE-3", f'message "{new.id}" is already pending')
    return model_replace(state, message_id, new)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("start-floors", "NORM-1", "the start is floored instead of truncated",
           (_ops("normalize", _normalize_floors),), lambda e, a: different_start(e, a) or h.accepted_instead(e, a)),
    Mutant("delete-count-int32", "NORM-3", "deleteCount is coerced with | 0 (Infinity removes nothing)",
           (_ops("normalize", _normalize_count_int32),), _removal_differs),
    Mutant("records-raw-start", "NORM-4", "records carry the caller's integer start, not the normalized one",
           (_ops("mutate", _mutate_raw_start), Patch(model_effects, "replay", _renormalizing_replay)),
           _raw_start_written),
    Mutant("minus-zero-as-zero", "NORM-5", "a start of -0 is stored as 0 and the edit accepted",
           (_ops("normalize", _normalize_minus_zero_is_zero),), _refused_minus_zero_accepted,
           # A listener's -0 edit at a command that stops at a hop: its refusal (the listener's throw)
           # shows after the hop, or never when a crash lands there; the command carries the -0.
           unseen=lambda command: '"-0"' in json.dumps(command)),
    Mutant("minus-zero-message", "NORM-5", "the -0 refusal is worded differently",
           (_ops("mutate", _mutate_other_minus_zero_text),), _minus_zero_text_changed),
    Mutant("splice-returns-null", "SPLICE-1", "a splice that removes nothing returns null, not []",
           (effect_patch({"edit": _edit_splice_returns_null}),),
           lambda e, a: e.get("value") == [] and a.get("value") is None),
    Mutant("duplicate-message-text", "SPLICE-3", "the duplicate refusal is worded differently",
           (_ops("mutate", _mutate_other_duplicate_text),), _duplicate_text_changed),
    Mutant("inserted-omitted-when-empty", "SPLICE-5", "pure deletions are written without inserted: []",
           (output_patch(_drop_empty_inserted),), _inserted_missing),
    Mutant("replace-missing-upserts", "SPLICE-7", "replacing an id that is not pending appends the message",
           (_ops("replace", _replace_upserts),), _upserted),
    Mutant("replace-same-id-refused", "SPLICE-9", "a replacement by the same id is refused as a duplicate",
           (_ops("replace", _replace_checks_before_removing),),
           lambda e, a: h.accepted(e) and (h.refused(a, "SPLICE-3") or h.mentions(a, "is already pending"))),
)
