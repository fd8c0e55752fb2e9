"""The lifecycle table's vocabulary: its phases, inputs and the shapes of its rows (spec area INPUT).

Phases are the loop's await points: ``idle``; ``deciding`` (the pre-step waterfall is pending);
``stepping`` (a step is open, its model call pending); ``stopping`` (``agent/turn-stopping``
pending).  ``boundary`` and ``turn-ended`` are choice points the loop passes through within one
command (input ``auto``).  The hops (``decided``, ``decision-returned``, ``failing``,
``chaining``, ``ending``, ``replaying``, ``starting``, ``waking``, ``prompting``) are points the loop passes on
its own, a few microtasks after an await point's answer, a notification or a turn's end, where a
public call can still land (spec/loop-grain.md rows 1, 2, 4, 6, 18, 19, 20, 21); ``clearing`` and
``canceling`` lie inside a clear or a cancel (row 22).  A command runs through them (input
``auto``) unless it is asked to stop at one (``fine``, ``stop``), and
:func:`loopspec.loop.lifecycle.advance` goes on from one.  The table itself and its driver are
:mod:`loopspec.loop.lifecycle`; these names live apart so that the agent's state
(:mod:`loopspec.loop.state`) can name its phase without importing the driver that steps it.
"""

from __future__ import annotations

import attrs

from loopspec.loop.phase_names import BOUNDARY as BOUNDARY
from loopspec.loop.phase_names import CALL_POINTS as CALL_POINTS
from loopspec.loop.phase_names import CANCELING as CANCELING
from loopspec.loop.phase_names import CHAINING as CHAINING
from loopspec.loop.phase_names import CHOICES as CHOICES
from loopspec.loop.phase_names import CLEARING as CLEARING
from loopspec.loop.phase_names import DECIDED as DECIDED
from loopspec.loop.phase_names import DECIDING as DECIDING
from loopspec.loop.phase_names import DECISION_RETURNED as DECISION_RETURNED
from loopspec.loop.phase_names import ENDING as ENDING
from loopspec.loop.phase_names import FAILING as FAILING
from loopspec.loop.phase_names import HOPS as HOPS
from loopspec.loop.phase_names import IDLE as IDLE
from loopspec.loop.phase_names import IDLE_PHASES as IDLE_PHASES
from loopspec.loop.phase_names import LOOP_HOPS as LOOP_HOPS
from loopspec.loop.phase_names import PHASES as PHASES
from loopspec.loop.phase_names import PROMPTING as PROMPTING
from loopspec.loop.phase_names import REPLAYING as REPLAYING
from loopspec.loop.phase_names import RESUME as RESUME
from loopspec.loop.phase_names import RUNNING as RUNNING
from loopspec.loop.phase_names import STARTING as STARTING
from loopspec.loop.phase_names import STEPPING as STEPPING
from loopspec.loop.phase_names import STOPPING as STOPPING
from loopspec.loop.phase_names import TURN_ENDED as TURN_ENDED
from loopspec.loop.phase_names import WAKING as WAKING

AUTO = "auto"
"""The input a choice point reads: no command, only the state the row before it left."""
INPUTS = ("edit", "send", "send-wake", "cancel", "decide", "step-result", "turn-stopping", "restart", AUTO)


@attrs.frozen
class Row:
    """``(phase, input, guard) -> (effects, next phase)``, citing the rules it enforces.

    The guards of one ``(phase, input)`` are mutually exclusive, so a row's place in the table
    means nothing (``tests/loop/test_guard_exclusion.py`` proves both).
    """

    phase: str
    input: str
    guard: str
    effects: tuple[str, ...]
    next: str
    rules: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.phase}/{self.input}/{self.guard}"


@attrs.frozen
class Prelude:
    """What an await point's answer (``input``) does before its rows' guards are read.

    It runs the listeners or tools whose outcome the guards read (the named function in
    :data:`loopspec.loop.preludes.PRELUDES`); the actions they perform go through the table as
    commands of their own.  An aborted turn's answer calls no listener: it runs the prelude named
    ``aborted`` instead, if any (a drained tool's context, CANCEL-5), else none.
    """

    input: str
    name: str
    rules: tuple[str, ...]
    aborted: str | None = None
