"""Pre-step decisions as the picture shows them (spec area DECIDE).

A live recording observes every decision (``agent/pre-step`` records, :mod:`loopspec.render.live`).
The log alone shows a boundary's *outcome*, and the picture reads the decision off it:

* ``step/start`` — ``enter`` with the ids of the step's ``user/message`` events (DECIDE-8; none
  for a continuation entered empty, DECIDE-6).  A first step holds at least one (STEP-4); when its
  entries are missing, v0.1.5 had not yet written them when an abort ended the step (VARIANT-1),
  and the decision is drawn as ``enter [?]``;
* ``turn/end blocked`` — ``reject`` (DECIDE-5);
* at an open boundary (after ``turn/start``, or after a later boundary's claim) with no step
  opened: ``turn/end error`` — the listener ``threw`` (DECIDE-7); ``completed``/``max-tokens`` —
  an empty ``enter`` (DECIDE-6).

An error end right after a ``step/end`` without a claim is not read as a decision: from the log
alone it may be the step's request error (RESULT-3) or a continuation's listener failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.log.end_reasons import BLOCKED, ERROR, NORMAL_ENDS
from loopspec.log.kinds import SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.render.labels import reason_label, splice_kind
from loopspec.render.marks import Seen
from loopspec.render.scan import Boundary
from loopspec.render.timeline import Decision


def _int(data: object, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _open_at(boundaries: Sequence[Boundary], first: int) -> tuple[int | None, int, bool]:
    """(open turn, steps opened in it, whether its first boundary is still undecided) before ``first``."""
    turn: int | None = None
    steps = 0
    for seq, etype, number, step, _ in boundaries:
        if seq >= first:
            break
        if etype == TURN_START:
            turn, steps = number, 0
        elif etype == TURN_END:
            turn, steps = None, 0
        elif etype == STEP_START:
            steps = step or steps + 1
    return turn, steps, turn is not None and steps == 0


def from_log(
    seen: Sequence[Seen], boundaries: Sequence[Boundary], first: int, stop: int | None
) -> tuple[Decision, ...]:
    """The decisions the window's interpreted events show (see the module docstring)."""
    turn, steps, boundary = _open_at(boundaries, first)
    out: list[Decision] = []
    entering: list[str] | None = None
    opened: tuple[int, int | None, int | None, str] | None = None  # the step/start being collected

    def close_entry(ended: bool = True) -> None:
        nonlocal entering, opened
        if opened is not None and entering is not None:
            seq, t, s, text = opened
            written = ended and (bool(entering) or s != 1)
            out.append(Decision(seq, t, s, "enter", tuple(entering), "log", text, written))
        entering, opened = None, None

    for event in seen:
        if stop is not None and event.index >= stop:
            break
        etype, data = event.type, event.data
        if etype == USER_MESSAGE and entering is not None:
            entering.append(str(data.get("id")) if isinstance(data, dict) else "?")
        elif etype == TURN_START:
            close_entry()
            turn, steps, boundary = _int(data, "turn"), 0, True
        elif etype == SPLICED and splice_kind(data) == "claim" and turn is not None and entering is None:
            boundary = True
        elif etype == STEP_START:
            close_entry()
            steps = _int(data, "step") or steps + 1
            entering, opened, boundary = [], (event.index, turn, steps, event.json), False
        elif etype == STEP_END:
            close_entry()
            boundary = False
        elif etype == TURN_END:
            close_entry()
            reason = data.get("reason") if isinstance(data, dict) else None
            kind = reason_label(reason).split(" ")[0]
            if kind == BLOCKED:
                out.append(Decision(event.index, turn, steps + 1, "reject", (), "log", event.json))
            elif boundary and kind == ERROR:
                out.append(Decision(event.index, turn, steps + 1, "threw", (), "log", event.json))
            elif boundary and kind in NORMAL_ENDS:
                out.append(Decision(event.index, turn, steps + 1, "enter", (), "log", event.json))
            turn, steps, boundary = None, 0, False
    close_entry(ended=False)  # a step still open where the drawing ends may have more entries
    return tuple(out)
