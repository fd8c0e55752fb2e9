"""Shared helpers of the checker's tests: the frozen fold behind the checker's inbox interface.

:class:`ModelInbox` is :class:`loopspec.check.inbox_track.InboxTracker` over
:func:`loopspec.inbox.fold.apply` on frozen events, so a test can run the checker with either
fold and require identical verdicts (``test_check_agreement.py``).
"""

from __future__ import annotations

from loopspec.check.inbox_track import SpliceEffect
from loopspec.data.json_value import freeze
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget
from loopspec.inbox.fold import apply
from loopspec.log.events import SPLICED, InboxSpliced, SessionEvent


class ModelInbox:
    """The checker's inbox interface over the frozen fold (:func:`loopspec.inbox.fold.apply`), for cross-checking."""

    def __init__(self) -> None:
        self.state: InboxState = EMPTY_INBOX
        self.planned: InboxState = EMPTY_INBOX

    def length(self, target: str) -> int:
        return len(self.state.lane(InboxTarget(target)))

    def ids(self, target: str) -> list[str]:
        return [m.id.value for m in self.state.lane(InboxTarget(target))]

    def splice(self, data: object, seq: int) -> SpliceEffect:
        frozen = freeze(data)
        new = apply(self.state, SessionEvent(SPLICED, seq, 0, frozen))
        record = InboxSpliced.from_data(frozen, seq)
        lane = self.state.lane(record.target)
        taken = lane[record.start : record.start + record.removed]
        self.planned = new
        return SpliceEffect(
            record.target.value, record.start, record.removed_count, record.outcome, len(lane),
            tuple(m.to_json() for m in taken), tuple(m.to_json() for m in record.inserted), record.removed,
        )

    def commit(self, effect: SpliceEffect) -> None:
        self.state = self.planned
