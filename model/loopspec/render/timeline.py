"""The timeline: what a session's picture shows, as frozen values, before any drawing.

A :class:`Timeline` is computed from a log (and optionally its live recording) by
:mod:`loopspec.render.build` with the model's own folds — the inbox fold and per-message fates of
:mod:`loopspec.loop.consumed_work`, the lifecycle projection of :mod:`loopspec.loop.projection` —
and is drawn by :mod:`loopspec.render.svg`.  Everything is placed by ``seq``; a live record sits
between the events ``next_seq - 1`` and ``next_seq``.  Only a *window* of the log is drawn; what
lies outside it is summarized (:class:`Outside`).
"""

from __future__ import annotations

from typing import Literal

import attrs

Category = Literal["inbox", "lifecycle", "entry", "model", "tool", "restart", "other", "unreadable"]
SpliceKind = Literal["insert", "claim", "cancel", "replace", "edit"]
Fate = Literal["pending", "claimed", "canceled"]
DecisionKind = Literal["enter", "reject", "threw"]
NoticeKind = Literal["live", "op", "note"]


@attrs.frozen
class EventMark:
    """One event of the window, or a run of consecutive events of one type (``first``..``last``).

    ``interpreted`` is false past the point where the folds stopped (an invalid event, or the
    violation a check page shows): such events are drawn but not read.
    """

    first: int
    last: int
    type: str
    category: Category
    summary: str
    json: str
    interpreted: bool = True
    caption: str = ""
    """A few words for the axis: the type and what it did (``claim next-turn``, ``turn/end 1 completed``)."""

    @property
    def count(self) -> int:
        return self.last - self.first + 1


@attrs.frozen
class SpliceMark:
    """One ``agent/inbox/spliced`` record in its lane: what it inserted and what it took out."""

    seq: int
    target: str
    kind: SpliceKind
    inserted: tuple[str, ...]
    removed: tuple[str, ...]
    json: str


@attrs.frozen
class Band:
    """A turn (``step`` is None) or a step: from its start event to its end event.

    ``start`` is None when it began before the window; ``end`` is None when it is still open
    where the drawing ends.  ``reason`` is the turn's end reason as a label (``completed``,
    ``aborted {user}``, ``error SERVICE_UNAVAILABLE`` ...).
    """

    turn: int
    step: int | None
    start: int | None
    end: int | None
    reason: str | None = None

    @property
    def label(self) -> str:
        name = f"turn {self.turn}" if self.step is None else f"step {self.turn}.{self.step}"
        return name + (f" · {self.reason}" if self.reason else "")


@attrs.frozen
class Bar:
    """One insertion of a message, from its inserting splice to its fate (WORK-2).

    ``left`` is the seq of the splice that took it out (None while pending); ``turn`` the turn
    that claimed it; ``entered_seq``/``step`` the ``user/message`` that entered it and its step
    (None when the decision dropped it).  ``inserted`` may lie before the window and ``left`` after.
    """

    id: str
    target: str
    inserted: int
    fate: Fate
    left: int | None = None
    turn: int | None = None
    step: int | None = None
    entered_seq: int | None = None
    rank: float = 0.0
    """Its place in its list: of two bars alive at once, the lower rank is the earlier in the list."""

    @property
    def entered(self) -> bool:
        return self.entered_seq is not None

    @property
    def tag(self) -> str:
        """The few characters beside a claimed bar's end: where it went (``→T2.1``, ``→T1 dropped``)."""
        if self.fate != "claimed":
            return ""
        if self.turn is None:  # a claim no turn holds: the log breaks a rule there, the page says so
            return "→ no turn"
        return f"→T{self.turn}" + (f".{self.step}" if self.step is not None else " dropped")

    def describe(self) -> str:
        where = f"{self.id} in {self.target}, inserted at seq {self.inserted}"
        if self.fate == "pending":
            return f"{where}; still pending"
        if self.fate == "canceled":
            return f"{where}; discarded (canceled) at seq {self.left}"
        taken = f"{where}; claimed at seq {self.left} by turn {self.turn}"
        if self.entered_seq is None:
            return f"{taken}; never entered into a step (dropped by its decision, or the turn ended first)"
        return f"{taken}; entered into step {self.turn}.{self.step} at seq {self.entered_seq}"


@attrs.frozen
class Decision:
    """A pre-step decision at a boundary: ``enter`` with ids, ``reject``, or a listener that ``threw``.

    From the log alone it is read off the boundary's outcome (see :mod:`loopspec.render.decisions`);
    from a live recording it is the ``agent/pre-step`` observation itself.  ``seq`` places it: the
    event that shows it, or for a live one the record's ``nextSeq``.
    """

    seq: int
    turn: int | None
    step: int | None
    kind: DecisionKind
    ids: tuple[str, ...]
    source: Literal["log", "live"]
    detail: str
    written: bool = True
    """False when the drawn events may not hold all entries: a first step without any (VARIANT-1: an
    abort came before v0.1.5 wrote them), or a step still open where the drawing ends."""

    @property
    def label(self) -> str:
        if self.kind == "enter":
            return "enter [" + ", ".join(self.ids + (() if self.written else ("?",))) + "]"
        return self.kind


@attrs.frozen
class Notice:
    """One record of the live recording, placed at its ``next_seq``; ``order`` is its line.

    ``kind`` ``live`` is a notification or pre-step observation, ``op`` a public call (from its
    ``op-begin`` to its ``op-end``: ``end_seq``), ``note`` an observation of the recorder.
    ``dead`` marks records of a process that crashed, which never reached the stored log.
    """

    next_seq: int
    order: int
    kind: NoticeKind
    type: str
    label: str
    json: str
    end_seq: int | None = None
    dead: bool = False
    crash: bool = False


@attrs.frozen
class Outside:
    """What lies before or after the window: counts, so the reader knows what is not drawn."""

    first: int
    last: int
    turns: int
    inserted: int
    claimed: int
    canceled: int
    interpreted: bool = True
    """False past the point where the folds stopped: only the events are counted there."""

    @property
    def events(self) -> int:
        return self.last - self.first + 1

    def describe(self) -> str:
        where = f"seq {self.first}–{self.last}: {self.events:,} event(s)"
        if not self.interpreted:
            return f"{where}, not interpreted"
        return (f"{where}, {self.turns:,} turn(s) started, {self.inserted:,} message(s) inserted, "
                f"{self.claimed:,} claimed, {self.canceled:,} discarded")


@attrs.frozen
class Stop:
    """Where the folds stopped reading: the event the model refuses, with the rule it breaks.

    ``seq`` is the refused line's index, where the picture cuts; ``reported`` is the seq the
    model's error names, as ``loopspec check`` reports it: the line's own ``seq`` when its envelope
    has a readable one (which a damaged line may not have equal to its index), None when the line
    is not an envelope at all.
    """

    seq: int
    rule: str
    message: str
    reported: int | None = None

    def where(self) -> str:
        """The refused event as the text report names it: by its line, and by its seq when that differs."""
        if self.reported is None or self.reported == self.seq:
            return f"seq {self.seq}" if self.reported is not None else f"line {self.seq + 1}"
        return f"line {self.seq + 1}, whose seq is {self.reported} (not its index {self.seq})"


@attrs.frozen
class Highlight:
    """A violation drawn in place: the offending event, its rule and the text report's facts."""

    seq: int | None
    line: int
    rule: str
    sentence: str
    message: str
    because: str
    state: str
    context: tuple[int, ...] = ()
    context_text: tuple[str, ...] = ()
    file: str = ""
    """The file ``line`` is in: the log, or the live recording for a live-side violation."""
    live_line: int | None = None
    """The offending record's line in the live recording (a live-side violation), else None."""


@attrs.frozen
class Timeline:
    """Everything one picture shows; see the module docstring."""

    title: str
    total: int
    first: int
    last: int
    events: tuple[EventMark, ...]
    splices: tuple[SpliceMark, ...]
    bands: tuple[Band, ...]
    bars: tuple[Bar, ...]
    decisions: tuple[Decision, ...]
    notices: tuple[Notice, ...] = ()
    before: Outside | None = None
    after: Outside | None = None
    stop: Stop | None = None
    highlight: Highlight | None = None
    cut: int | None = None
    """Events from this seq on are drawn but not interpreted (``stop``, or a check page's violation)."""

    @property
    def empty(self) -> bool:
        return self.last < self.first

    def span(self) -> str:
        """What is drawn of the log, in words that hold for an empty log and an empty window too."""
        if self.total == 0:
            return "an empty log: no event to draw"
        if self.empty:
            return f"nothing: no event of the window is in the log (seq 0–{self.total - 1}, {self.total:,} event(s))"
        return f"seq {self.first}–{self.last} of {self.total:,} event(s)"


def violation_tip(found: Highlight) -> str:
    """The tooltip of a drawn violation: the rule's sentence (without the spec's Markdown) and the report's facts."""
    sentence = found.sentence.replace("`", "").replace("**", "")
    return f"[{found.rule}] {sentence}\n{found.message}\nbecause: {found.because}\nstate before: {found.state}"
