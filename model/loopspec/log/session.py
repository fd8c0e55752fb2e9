"""The append-only session log value (spec area LOG).

``seq`` is the index in the log, contiguous from 0 (LOG-2); ``time`` comes from the log's own
deterministic clock so that a model run is reproducible (real logs carry wall-clock ms, which
no rule of the model reads except crash repair's copy of the last time, REPAIR-3).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from loopspec.data.json_value import Frozen
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import USER_MESSAGE

Record = tuple[str, Frozen]
"""A durable record before it is appended: ``(type, data)``; the log assigns seq and time."""

BASE_TIME = 1_700_000_000_000


@attrs.frozen
class SessionLog:
    """An append-only tuple of events; appending returns a new log and the stamped events."""

    events: tuple[SessionEvent, ...] = ()
    clock: int = BASE_TIME

    def __len__(self) -> int:
        return len(self.events)

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def append(
        self, records: Iterable[Record], *, surface_op: Frozen = None,
        source_event_seqs: tuple[int, ...] | None = None,
    ) -> tuple[SessionLog, tuple[SessionEvent, ...]]:
        """Stamp ``records`` with consecutive seqs and clock ticks and append them (each with the
        envelope's ``surface_op`` and ``source_event_seqs``)."""
        stamped: list[SessionEvent] = []
        clock = self.clock
        for offset, (etype, data) in enumerate(records):
            clock += 1
            stamped.append(
                SessionEvent(
                    etype,
                    len(self.events) + offset,
                    clock,
                    data,
                    surface_op="append" if etype == USER_MESSAGE else surface_op,
                    source_event_seqs=source_event_seqs,
                )
            )
        new = tuple(stamped)
        return SessionLog(self.events + new, clock), new

    def append_events(self, events: Iterable[SessionEvent]) -> SessionLog:
        """Append already stamped events (crash-repair closers keep their copied time)."""
        new = tuple(events)
        return SessionLog(self.events + new, max([self.clock, *(e.time for e in new)]))
