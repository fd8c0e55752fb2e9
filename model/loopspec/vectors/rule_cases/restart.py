"""Hand-written vector cases for crash repair and reload (REPAIR, FOLD-4, FOLD-5, VARIANT-3).

``restart`` is the process crashing and a new one loading its own log: the closers it appends are
observable events, and the state it reports afterwards is the fold of that log.
"""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_payload, event_types, final, note_types
from loopspec.vectors.rule_cases.common import (
    EMPTY,
    ENTER,
    NT,
    SE,
    SEED,
    SPL,
    STOP,
    STOPPING,
    TE,
    TS,
    case,
    m,
)

RESTART = cmd.Restart()
INTERRUPTED = {"kind": "interrupted"}

CASES: tuple[CaseSpec, ...] = (
    case("restart/restart/repair-1-inside-a-step", ("REPAIR-1", "REPAIR-2", "REPAIR-3"),
         "A restart inside a step closes it (step/end), then the turn (interrupted), then marks the seed; "
         "the closers carry the time of the last real event (compared from protocol v2 on).",
         (cmd.followup(m("a")), ENTER, RESTART),
         all_of(event_types(2, SE, TE, SEED), event_data(2, 0, "step", 1), event_data(2, 1, "reason", INTERRUPTED),
                note_types(2), final("phase", "idle"), final("status", "idle"))),
    case("restart/restart/repair-1-before-a-step", ("REPAIR-1",),
         "A restart while the decision is pending closes the turn without a step/end.",
         (cmd.followup(m("a")), RESTART),
         all_of(event_types(1, TE, SEED), event_data(1, 0, "reason", INTERRUPTED))),
    case("restart/restart/repair-2-one-end-seed", ("REPAIR-2", "REPAIR-1"),
         "A restart with no open turn writes only the end-seed marker; a second restart right after writes "
         "nothing (never two markers in a row).",
         (cmd.inject(m("a")), RESTART, RESTART),
         all_of(event_types(1, SEED), event_types(2), final("inbox", {"next-turn": [], "next-step": ["a"]}))),
    case("restart/restart/repair-4-nothing-runs-until-a-wake", ("REPAIR-4", "TURN-5"),
         "After a restart queued input waits for a waking send; the next turn continues the numbering and "
         "takes the parked follow-up first.",
         (cmd.followup(m("a")), cmd.followup(m("b")), RESTART, cmd.inject(m("c")), cmd.followup(m("d"))),
         all_of(event_types(2, TE, SEED), note_types(2), event_types(3, SPL), event_types(4, SPL, TS, SPL, SPL),
                event_data(4, 1, "turn", 2), final("inbox", {"next-turn": ["d"], "next-step": []}))),
    case("restart/restart/fold-4-other-events-keep-the-inbox", ("FOLD-4", "FOLD-5"),
         "The reloaded inbox is the fold of the log: lifecycle events and the closers leave pending input "
         "where the splices put it.",
         (cmd.followup(m("a")), cmd.inject(m("b")), cmd.Send(m("c"), NT, False), RESTART),
         all_of(event_types(3, TE, SEED), final("inbox", {"next-turn": ["c"], "next-step": ["b"]}))),
    case("restart/restart/fold-5-replay-equals-live", ("FOLD-5", "CLAIM-5"),
         "What the agent held before the restart is what the log replays to: claimed messages stay "
         "consumed, pending ones stay pending.",
         (cmd.followup(m("a")), ENTER, STOP, STOPPING, cmd.inject(m("b")), RESTART),
         all_of(event_types(5, SEED), final("inbox", {"next-turn": [], "next-step": ["b"]}))),
    case("restart/restart/variant-3-end-seed-data", ("VARIANT-3",),
         "The model's end-seed marker has data {}.",
         (RESTART, cmd.followup(m("a")), RESTART),
         all_of(event_types(0, SEED), event_payload(0, 0, {}), event_types(2, TE, SEED), event_payload(2, 1, {}),
                final("inbox", EMPTY))),
)
