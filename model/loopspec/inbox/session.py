"""The inbox with its session log: operations that append their records (spec areas SPLICE, FOLD).

:class:`InboxSession` pairs the append-only :class:`SessionLog` with the inbox state folded from
it, so a whole history of edits can be built, inspected and replayed.  Each operation returns a
:class:`Transition`; a refused one raises :class:`CommandRefused` and the session value is
untouched (values are immutable, so "unchanged" is structural, not a promise).
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import freeze
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, Messages, UserMessage
from loopspec.data.notifications import Notification
from loopspec.inbox import operations as inbox
from loopspec.inbox.normalize import JsNumber
from loopspec.inbox.operations import InboxOutcome
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.session import SessionLog


@attrs.frozen
class Transition:
    """One operation's result: the new session, events appended, notifications, return value."""

    session: InboxSession
    events: tuple[SessionEvent, ...]
    notifications: tuple[Notification, ...]
    value: Messages | bool | None
    trace: tuple[SessionEvent | Notification, ...] = ()
    """Events and notifications interleaved in emission order (NOTIFY-2, NOTIFY-4, CLAIM-4)."""


@attrs.frozen
class InboxSession:
    log: SessionLog = attrs.field(factory=SessionLog)
    inbox: InboxState = EMPTY_INBOX

    def _commit(self, outcome: InboxOutcome, value: Messages | bool | None) -> Transition:
        log, events = self.log.append((SPLICED, freeze(r.to_json())) for r in outcome.records)
        stamped = iter(events)
        trace = tuple(next(stamped) if isinstance(item, InboxSpliced) else item for item in outcome.trace)
        return Transition(InboxSession(log, outcome.state), events, outcome.notifications, value, trace)

    def splice(
        self, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages = ()
    ) -> Transition:
        out = inbox.splice(self.inbox, target, start, delete_count, inserted)
        return self._commit(out, out.removed)

    def append(self, target: InboxTarget, message: UserMessage) -> Transition:
        return self._commit(inbox.append(self.inbox, target, message), None)

    def prepend(self, target: InboxTarget, message: UserMessage) -> Transition:
        return self._commit(inbox.prepend(self.inbox, target, message), None)

    def replace(self, message_id: MessageId, new: UserMessage) -> Transition:
        out = inbox.replace(self.inbox, message_id, new)
        return self._commit(out, out.found)

    def remove(self, message_id: MessageId) -> Transition:
        out = inbox.remove(self.inbox, message_id)
        return self._commit(out, out.found)

    def clear(self) -> Transition:
        return self._commit(inbox.clear(self.inbox), None)

    def claim(self, target: InboxTarget, turn: int) -> Transition:
        """The loop-only claim; outside the lifecycle model nothing checks the turn is open."""
        out = inbox.claim(self.inbox, target, turn)
        return self._commit(out, out.removed)
