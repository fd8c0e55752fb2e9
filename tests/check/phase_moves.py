"""What the log checker meets, as (checker phase, event kind) pairs, while something feeds it.

The phase-table tests (``test_phase_table.py``) hold every pair the model's exploration makes the
checker meet against the table; the profile scope's one exploration per session
(``explore/profile_scope.py``) records them, so the scope is explored once, not once per reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from loopspec.check.machine import LogChecker
from loopspec.check.phase_table import OFF_TABLE, TABLE

Pair = tuple[str, str]


class PhaseMoves:
    """Every owned event's (phase, kind) pair, how often, and the phase its row led to."""

    def __init__(self) -> None:
        self.pairs: dict[Pair, int] = {}
        self.off: list[tuple[Pair, int]] = []  # an off-table pair and the violations before it
        self.moves: set[tuple[Pair, str]] = set()  # each pair with the phase its row led to

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Wrap :meth:`LogChecker.feed_event` (the general path) to record into this."""
        feed = LogChecker.feed_event
        recorder = self

        def recording(checker: LogChecker, obj: object, line: int) -> None:
            kind = obj.get("type") if isinstance(obj, dict) else None
            if isinstance(kind, str) and kind in OFF_TABLE:
                pair = (checker.phase, kind)
                recorder.pairs[pair] = recorder.pairs.get(pair, 0) + 1
                if pair not in TABLE:
                    recorder.off.append((pair, len(checker.violations)))
                feed(checker, obj, line)
                recorder.moves.add((pair, checker.phase))
                return
            feed(checker, obj, line)

        monkeypatch.setattr(LogChecker, "feed_event", recording)


@contextmanager
def recording_phase_moves() -> Iterator[PhaseMoves]:
    """A recorder installed for the ``with`` block only."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        moves = PhaseMoves()
        moves.install(monkeypatch)
        yield moves
