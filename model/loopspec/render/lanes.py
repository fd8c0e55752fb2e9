"""From the pass's fates and boundaries to what the window shows: bars, bands, and the outside.

Pure functions of a :class:`~loopspec.render.scan.Scan` and the window's bounds.
"""

from __future__ import annotations

from loopspec.log.kinds import STEP_END, STEP_START, TURN_END, TURN_START
from loopspec.render.scan import Entry, Scan
from loopspec.render.timeline import Band, Bar, Outside


def _entered(entries: dict[str, tuple[Entry, ...]], mid: str, after: int, turn: int | None) -> Entry | None:
    """The ``user/message`` that entered a claimed message: the first for its id after the claim, in its turn."""
    for entry in entries.get(mid, ()):
        seq, entry_turn, _ = entry
        if seq > after and entry_turn == turn:
            return entry
    return None


def bars(scan: Scan) -> tuple[Bar, ...]:
    """Every insertion whose life meets the window, with its fate (WORK-2) and where it was entered."""
    targets = dict(scan.targets)
    entries = dict(scan.entries)
    ranks = dict(scan.ranks)
    out: list[Bar] = []
    for fate in scan.fates:
        if fate.inserted_seq > scan.last or (fate.left_seq is not None and fate.left_seq < scan.first):
            continue
        mid = fate.id.value
        entry = _entered(entries, mid, fate.left_seq, fate.turn) if fate.entered and fate.left_seq is not None else None
        out.append(Bar(
            id=mid, target=targets.get(fate.inserted_seq, "?"), inserted=fate.inserted_seq, fate=fate.fate,
            left=fate.left_seq, turn=fate.turn,
            step=entry[2] if entry is not None else None,
            entered_seq=entry[0] if entry is not None else None,
            rank=ranks.get((mid, fate.inserted_seq), 0.0),
        ))
    return tuple(out)


def bands(scan: Scan) -> tuple[Band, ...]:
    """The turns and steps that meet the window, clipped to it (None: open at that side)."""
    first, last = scan.first, scan.last
    out: list[Band] = []
    turn_open: tuple[int, int] | None = None
    step_open: tuple[int, int, int | None] | None = None

    def add(turn: int, step: int | None, start: int, end: int | None, reason: str | None) -> None:
        if start <= last and (end is None or end >= first):
            out.append(Band(turn, step, start if start >= first else None,
                            end if end is not None and end <= last else None, reason))

    for seq, etype, turn, step, reason in scan.boundaries:
        if seq > last:
            if etype == TURN_END and turn_open is not None:
                add(turn_open[0], None, turn_open[1], seq, reason)
                turn_open = None
            elif etype == STEP_END and step_open is not None:
                add(step_open[0], step_open[2], step_open[1], seq, None)
                step_open = None
            if turn_open is None and step_open is None:
                break
            continue
        if etype == TURN_START:
            turn_open = (turn, seq)
        elif etype == TURN_END and turn_open is not None:
            add(turn_open[0], None, turn_open[1], seq, reason)
            turn_open = None
        elif etype == STEP_START:
            step_open = (turn, seq, step)
        elif etype == STEP_END and step_open is not None:
            add(step_open[0], step_open[2], step_open[1], seq, None)
            step_open = None
    if step_open is not None:
        add(step_open[0], step_open[2], step_open[1], None, None)
    if turn_open is not None:
        add(turn_open[0], None, turn_open[1], None, None)
    return tuple(sorted(out, key=lambda b: (b.start if b.start is not None else -1, b.step is not None)))


def outside(scan: Scan, first: int, last: int, cut: int | None = None) -> Outside | None:
    """Counts over seqs ``first``..``last`` (None when that part of the log is empty).

    From ``cut`` on nothing was interpreted: a part lying there has only its events counted.
    """
    if last < first:
        return None
    if cut is not None and first >= cut:
        return Outside(first, last, 0, 0, 0, 0, interpreted=False)
    turns = sum(1 for seq, etype, *_ in scan.boundaries if etype == TURN_START and first <= seq <= last)
    inserted = claimed = canceled = 0
    for fate in scan.fates:
        if first <= fate.inserted_seq <= last:
            inserted += 1
        if fate.left_seq is not None and first <= fate.left_seq <= last:
            claimed += fate.fate == "claimed"
            canceled += fate.fate == "canceled"
    return Outside(first, last, turns, inserted, claimed, canceled)
