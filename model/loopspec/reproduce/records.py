"""A recording as frozen values: one class per record kind of ``NAME.live.jsonl``, and the end state.

Every record keeps the line it was read from, so a difference can name it.  The classes hold
only what the format documents (``examples/recordings/README.md``); reading rejects anything
else (:mod:`loopspec.reproduce.reading`).
"""

from __future__ import annotations

from pathlib import Path

import attrs

from loopspec.data.json_value import Frozen, JsonObject
from loopspec.data.messages import UserMessage
from loopspec.log.events import SessionEvent

Ids = tuple[str, ...]


@attrs.frozen
class Marker:
    """``{kind: durable, seq, type}``: the durable event with this seq was committed here."""

    line: int
    seq: int
    type: str


@attrs.frozen
class Notice:
    """``{kind: live}`` with a notification type: what the agent emitted, without ``kind``/``nextSeq``.

    ``message`` is set for the inbox notifications, ``turn`` for ``claimed`` and ``agent/error``,
    ``status`` for ``agent/status``, ``step`` and ``error`` (the real error text) for ``agent/error``.
    """

    line: int
    next_seq: int
    type: str
    message: UserMessage | None = None
    turn: int | None = None
    status: str | None = None
    step: int | None = None
    error: str | None = None


@attrs.frozen
class PreStepInvoked:
    """``agent/pre-step`` ``invoked``: the waterfall was called with the claimed batch."""

    line: int
    next_seq: int
    turn: int
    step: int
    message_ids: Ids


@attrs.frozen
class PreStepDecided:
    """``agent/pre-step`` ``decided``: ``reject``, or ``enter`` of ``message_ids`` (possibly rewritten)."""

    line: int
    next_seq: int
    turn: int
    step: int
    kind: str
    message_ids: Ids = ()


@attrs.frozen
class PreStepThrew:
    """``agent/pre-step`` ``threw``: a listener threw ``error`` (the real text) instead of deciding."""

    line: int
    next_seq: int
    turn: int
    step: int
    error: str


@attrs.frozen
class TurnStoppingInvoked:
    """``agent/turn-stopping`` ``invoked``: the turn-stopping listeners were called for ``turn``."""

    line: int
    next_seq: int
    turn: int


@attrs.frozen
class TurnStoppingReturned:
    """``agent/turn-stopping`` ``returned``: the listeners returned (the loop goes on to end the turn)."""

    line: int
    next_seq: int
    turn: int


@attrs.frozen
class TurnStoppingThrew:
    """``agent/turn-stopping`` ``threw``: a listener threw ``error`` (the real text)."""

    line: int
    next_seq: int
    turn: int
    error: str


ListenerClose = PreStepDecided | PreStepThrew | TurnStoppingReturned | TurnStoppingThrew
"""The records that close a listener window (decisions.md E5)."""


@attrs.frozen
class OpBegin:
    """A public call began; ``op`` is the call (the recorded name cut at ``(`` and trimmed).

    ``within`` is the listener hook the call was made from, ``None`` for the scenario's own call.
    """

    line: int
    op: str
    label: str
    args: JsonObject
    next_seq: int
    within: str | None = None


@attrs.frozen
class OpEnd:
    """The call returned ``result`` or threw ``threw`` (the real error text)."""

    line: int
    op: str
    label: str
    args: JsonObject
    next_seq_before: int
    next_seq_after: int
    result: Frozen = None
    threw: str | None = None
    within: str | None = None


@attrs.frozen
class Note:
    """``{kind: note}``: an observation; ``crash`` is set only on a process boundary."""

    line: int
    text: str
    next_seq: int | None = None
    next_turn: Ids | None = None
    next_step: Ids | None = None
    status: str | None = None
    event_count: int | None = None
    crash: bool | None = None


LiveRecord = (Marker | Notice | PreStepInvoked | PreStepDecided | PreStepThrew | TurnStoppingInvoked
              | TurnStoppingReturned | TurnStoppingThrew | OpBegin | OpEnd | Note)


@attrs.frozen
class ProcessView:
    """What an observation says about one process: pending ids, status, log length (each optional)."""

    next_turn: Ids | None = None
    next_step: Ids | None = None
    status: str | None = None
    event_count: int | None = None


@attrs.frozen
class Final:
    """``NAME.final.json``: the end state, and for a restart the state around it."""

    scenario: str
    end: ProcessView
    has_pending: bool
    before_restart: ProcessView | None = None
    before_restart_crash: bool | None = None
    after_resume: ProcessView | None = None


@attrs.frozen
class Recording:
    """One recorded run, read and validated; ``final`` is ``None`` when there is no final file."""

    name: str
    events_path: Path
    live_path: Path
    final_path: Path | None
    events: tuple[SessionEvent, ...]
    records: tuple[LiveRecord, ...]
    final: Final | None
