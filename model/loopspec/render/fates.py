"""Every insertion's fate (WORK-2) folded straight from parsed JSON, for drawing long logs.

The fates are :class:`loopspec.loop.consumed_work.FateLedger`'s, the fold
:func:`~loopspec.loop.consumed_work.message_fates` runs over frozen events; :class:`FateFold`
feeds it from the picture's one pass over a long log instead, decoding each splice with the
checker's :class:`~loopspec.check.inbox_track.LeanInbox` (so the data stays the parsed JSON,
nothing frozen) and placing each insertion in its list (its rank) for drawing.  The same fates,
in the same order, and for a splice the fold refuses the model's own error (rule, seq and words):
``tests/render/test_fates.py`` holds it to :func:`message_fates` on every example log, recording,
invalid log and random log.  A private accumulator, never part of a value.
"""

from __future__ import annotations

from loopspec.check.inbox_track import LeanInbox, SpliceEffect
from loopspec.loop.consumed_work import FateLedger


class FateFold(FateLedger):
    """The fate fold fed parsed JSON: ``turn_started``, ``turn_ended``, ``entered``, ``splice``."""

    __slots__ = ("inbox", "live_rank", "ranks")

    def __init__(self) -> None:
        super().__init__()
        self.inbox = LeanInbox()
        # Each insertion's place in its list, as a number: between its neighbours when inserted.
        # Two messages in a list never change their relative order (a splice removes and inserts,
        # it does not move), so ordering by rank draws every lane's rows in list order.
        self.ranks: dict[tuple[str, int], float] = {}
        self.live_rank: dict[str, float] = {}  # the rank of each id's insertion now in a list

    def splice(self, data: object, seq: int) -> str | None:
        """Fold one splice's parsed data (FOLD-1 … FOLD-3, DATA-2); the target when it inserts.

        raises: InvalidEvent with the rule and words of the model's fold (LeanInbox's promise).
        """
        inbox = self.inbox
        effect = inbox.splice(data, seq)
        inbox.commit(effect)
        self.moved([str(m["id"]) for m in effect.removed], [str(m["id"]) for m in effect.inserted], seq,
                   canceled=effect.outcome == "canceled")
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
