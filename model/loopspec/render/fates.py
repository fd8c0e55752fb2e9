"""Every insertion's fate (WORK-2) folded straight from parsed JSON, for drawing long logs.

:func:`loopspec.loop.consumed_work.message_fates` states the fates over frozen events: it reads
each splice through :meth:`~loopspec.log.events.InboxSpliced.from_data` and folds it with
:class:`~loopspec.inbox.fold.InboxProjector`.  :class:`FateFold` is its twin for the picture's
one pass over a long log, as :class:`~loopspec.check.inbox_track.LeanInbox` (the checker's fold,
which it uses) is the twin of :func:`~loopspec.inbox.fold.apply`: the splices' data stays the
parsed JSON (nothing frozen), a fate is a mutable list until the end.  The same fates, in the
same order, and for a splice the fold refuses the model's own error (rule, seq and words):
``tests/render/test_fates.py`` holds it to :func:`message_fates` on every example log, recording,
invalid log and random log.  A private accumulator, never part of a value.
"""

from __future__ import annotations

from loopspec.check.inbox_track import LeanInbox, SpliceEffect
from loopspec.data.messages import MessageId
from loopspec.loop.consumed_work import Fate, MessageFate

# A fate while the pass runs: [id, inserted seq, fate, left seq, turn, entered] (MessageFate's fields).
_Open = list[object]


class FateFold:
    """:func:`message_fates` fed one event at a time: ``turn_started``, ``turn_ended``, ``entered``, ``splice``."""

    __slots__ = ("claimed_in_turn", "fates", "inbox", "inserted_at", "live_rank", "open_turn", "ranks")

    def __init__(self) -> None:
        self.inbox = LeanInbox()
        self.fates: dict[tuple[str, int], _Open] = {}
        self.inserted_at: dict[str, int] = {}
        self.claimed_in_turn: dict[str, _Open] = {}
        self.open_turn: int | None = None
        # Each insertion's place in its list, as a number: between its neighbours when inserted.
        # Two messages in a list never change their relative order (a splice removes and inserts,
        # it does not move), so ordering by rank draws every lane's rows in list order.
        self.ranks: dict[tuple[str, int], float] = {}
        self.live_rank: dict[str, float] = {}  # the rank of each id's insertion now in a list

    def turn_started(self, turn: int) -> None:
        self.open_turn, self.claimed_in_turn = turn, {}

    def turn_ended(self) -> None:
        self.open_turn, self.claimed_in_turn = None, {}

    def entered(self, mid: str) -> None:
        """A ``user/message`` with id ``mid``: a message claimed in this turn is entered (WORK-2)."""
        fate = self.claimed_in_turn.pop(mid, None)
        if fate is not None:
            fate[5] = True

    def splice(self, data: object, seq: int) -> str | None:
        """Fold one splice's parsed data (FOLD-1 … FOLD-3, DATA-2); the target when it inserts.

        raises: InvalidEvent with the rule and words of the model's fold (LeanInbox's promise).
        """
        inbox = self.inbox
        effect = inbox.splice(data, seq)
        inbox.commit(effect)
        fates, inserted_at = self.fates, self.inserted_at
        canceled = effect.outcome == "canceled"
        for message in effect.removed:
            mid = str(message["id"])
            fate = fates[(mid, inserted_at.pop(mid))]
            fate[3] = seq
            if canceled:
                fate[2] = "canceled"
            else:
                fate[2], fate[4] = "claimed", self.open_turn
                self.claimed_in_turn[mid] = fate
        for message in effect.inserted:
            mid = str(message["id"])
            inserted_at[mid] = seq
            fates[(mid, seq)] = [mid, seq, "pending", None, None, False]
        if effect.inserted:
            self._rank(effect, seq)
        return effect.target if effect.inserted else None

    def _rank(self, effect: SpliceEffect, seq: int) -> None:
        """Ranks for the messages ``effect`` inserted, between the messages now either side of them.

        Floats, not fractions: a pass over a million-event log pays for each splice.  Only more than
        about fifty insertions between the same two neighbours exhaust a float's precision, which
        then draws equal ranks in insertion order.
        """
        items, head = self.inbox.lanes[effect.target].items, self.inbox.lanes[effect.target].head
        at, count, live = head + effect.start, len(effect.inserted), self.live_rank
        low = live.get(str(items[at - 1]["id"])) if at > head else None
        high = live.get(str(items[at + count]["id"])) if at + count < len(items) else None
        if low is None:
            low = high - 1.0 if high is not None else 0.0
        step = ((high if high is not None else low + 1.0) - low) / (count + 1)
        for offset, message in enumerate(effect.inserted, start=1):
            mid = str(message["id"])
            live[mid] = self.ranks[(mid, seq)] = low + step * offset

    def rank_list(self) -> tuple[tuple[tuple[str, int], float], ...]:
        return tuple(self.ranks.items())

    def result(self) -> tuple[MessageFate, ...]:
        return tuple(_fate(*fate) for fate in self.fates.values())


def _fate(mid: object, inserted: object, fate: object, left: object, turn: object, entered: object) -> MessageFate:
    assert isinstance(mid, str)
    assert isinstance(inserted, int)
    assert left is None or isinstance(left, int)
    assert turn is None or isinstance(turn, int)
    name: Fate = "claimed" if fate == "claimed" else "canceled" if fate == "canceled" else "pending"
    return MessageFate(MessageId(mid), inserted, name, left, turn, entered is True)
