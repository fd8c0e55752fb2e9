"""The durable session event envelope and the ``agent/inbox/spliced`` record (spec area LOG, SPLICE).

A :class:`SessionEvent` is one line of a session log.  Its ``data`` stays frozen JSON: the
projections interpret the types they own (``agent/inbox/spliced`` here, turn/step events in
:mod:`loopspec.loop.projection`) and let every other type pass through untouched.
"""

from __future__ import annotations

from typing import Literal, TypeGuard

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import Frozen, JsonObject, freeze, thaw
from loopspec.data.messages import InboxTarget, Messages, UserMessage, shown

# Re-exported (``X as X``): the model's readers import the envelope's names from here.
from loopspec.log.envelope import ENVELOPE_KEYS as ENVELOPE_KEYS
from loopspec.log.envelope import MAX_SAFE_INTEGER as MAX_SAFE_INTEGER
from loopspec.log.envelope import MIN_SAFE_INTEGER
from loopspec.log.envelope import SPLICE_FIELDS as SPLICE_FIELDS
from loopspec.log.envelope import is_safe_integer as is_safe_integer
from loopspec.log.envelope import is_surface_op as is_surface_op
from loopspec.log.splice_data import CANCELED, read_splice


def _is_safe_int(value: object) -> TypeGuard[int]:
    """A JSON integer token's value: an ``int`` (not a bool) within the safe range."""
    return isinstance(value, int) and not isinstance(value, bool) and MIN_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER


def check_envelope(raw: object, line_seq: int | None = None) -> str:
    """Validate one parsed envelope (LOG-1) without freezing its payloads; return its ``type``.

    :meth:`SessionEvent.from_json` and the log reader's fast path (which skips freezing the data
    of event types a fold ignores) both run exactly this, so they reject the same envelopes.
    """
    if not isinstance(raw, dict):
        raise InvalidEvent("LOG-1", f"an event must be a JSON object, got {type(raw).__name__}", line_seq)
    if not ENVELOPE_KEYS.issuperset(raw):
        raise InvalidEvent("LOG-1", f"unknown envelope key(s) {sorted(set(raw) - ENVELOPE_KEYS)}", line_seq)
    etype, seq, time = raw.get("type"), raw.get("seq"), raw.get("time")
    if not isinstance(etype, str):
        raise InvalidEvent("LOG-1", f"'type' must be a string, got {shown(etype)}", line_seq)
    if not (_is_safe_int(seq) and seq >= 0):
        raise InvalidEvent("LOG-1", f"'seq' must be a non-negative safe integer, got {shown(seq)}", line_seq)
    if not _is_safe_int(time):
        raise InvalidEvent("LOG-1", f"'time' must be a safe integer, got {shown(time)}", seq)
    if "data" not in raw:
        raise InvalidEvent("LOG-1", "'data' is missing", seq)
    if "ignorable" in raw and raw["ignorable"] is not True:
        raise InvalidEvent("LOG-1", f"'ignorable' may only be true, got {shown(raw['ignorable'])}", seq)
    if "surfaceOp" in raw and not is_surface_op(raw["surfaceOp"]):
        raise InvalidEvent("LOG-1", f"'surfaceOp' must be 'append' or an object, got {shown(raw['surfaceOp'])}", seq)
    if "sourceEventSeqs" in raw:
        seqs = raw["sourceEventSeqs"]
        # Inlined _is_safe_int: assistant messages list dozens of source seqs.
        if not (
            isinstance(seqs, list)
            and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_SAFE_INTEGER for s in seqs)
        ):
            raise InvalidEvent("LOG-1", "'sourceEventSeqs' must be an array of seqs (non-negative integers)", seq)
    return etype


@attrs.frozen
class SessionEvent:
    """One durable record: ``{type, seq, time, data}`` plus the optional envelope keys (LOG-1)."""

    type: str
    seq: int
    time: int
    data: Frozen
    ignorable: bool | None = None
    surface_op: Frozen = None
    source_event_seqs: tuple[int, ...] | None = None

    @classmethod
    def from_json(cls, raw: object, *, line_seq: int | None = None) -> SessionEvent:
        """Parse one envelope; :class:`InvalidEvent` (LOG-1) naming the defect when malformed."""
        check_envelope(raw, line_seq)
        assert isinstance(raw, dict)
        seq = raw["seq"]
        try:
            data = freeze(raw["data"])
            surface_op = freeze(raw["surfaceOp"]) if "surfaceOp" in raw else None
        except RecursionError:
            # Freezing recurses per nesting level; a bad log must not crash the reader.
            raise InvalidEvent("LOG-1", "'data' or 'surfaceOp' is nested too deeply", seq) from None
        seqs = raw.get("sourceEventSeqs")
        return cls(
            type=raw["type"],
            seq=seq,
            time=raw["time"],
            data=data,
            ignorable=True if "ignorable" in raw else None,
            surface_op=surface_op,
            source_event_seqs=tuple(seqs) if isinstance(seqs, list) else None,
        )

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"type": self.type, "seq": self.seq, "time": self.time, "data": thaw(self.data)}
        if self.ignorable is not None:
            out["ignorable"] = True
        if self.surface_op is not None:
            out["surfaceOp"] = thaw(self.surface_op)
        if self.source_event_seqs is not None:
            out["sourceEventSeqs"] = list(self.source_event_seqs)
        return out


@attrs.frozen
class InboxSpliced:
    """Data of ``agent/inbox/spliced`` exactly as written (SPLICE-5).

    ``removed_count`` and ``outcome`` are ``None`` when the key is absent: the writer omits
    ``removedCount`` when nothing is removed, and the checker must be able to tell an omitted
    count from a written ``0`` (which the real writer never produces).
    """

    target: InboxTarget
    start: int
    inserted: Messages
    removed_count: int | None = None
    outcome: Literal["canceled"] | None = None

    @property
    def removed(self) -> int:
        return self.removed_count or 0

    @property
    def is_claim(self) -> bool:
        """A pure deletion without outcome: only the loop's claim writes these (CLAIM-3)."""
        return self.removed > 0 and self.outcome is None and not self.inserted

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"target": self.target.value, "start": self.start}
        if self.removed_count is not None:
            out["removedCount"] = self.removed_count
        out["inserted"] = [m.to_json() for m in self.inserted]
        if self.outcome is not None:
            out["outcome"] = self.outcome
        return out

    @classmethod
    def from_data(cls, data: Frozen, seq: int | None = None) -> InboxSpliced:
        """Read a splice's data; :class:`InvalidEvent` (FOLD-1) for a malformed record.

        Shape only: whether the coordinates fit the state is the fold's job (FOLD-2, FOLD-3).
        """
        if not isinstance(data, JsonObject):  # not parsed JSON: the model's events are frozen
            raise InvalidEvent("FOLD-1", "splice data must be an object", seq)
        target, start, removed_count, outcome, inserted = read_splice(data, seq)
        # The model's replay reads every splice of its log on each explored transition: the target
        # by InboxTarget.parse (two comparisons, not the enum's call) and a list, not a generator.
        return cls(
            target=InboxTarget.parse(target),
            start=start,
            inserted=tuple([UserMessage.checked(m) for m in inserted]) if inserted else (),
            removed_count=removed_count,
            outcome=CANCELED if outcome is not None else None,
        )
