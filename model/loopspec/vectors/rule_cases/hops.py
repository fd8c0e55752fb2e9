"""Hand-written vector cases for calls that land at the loop's hops (spec/loop-grain.md).

A hop is a point the real loop passes on its own, a few microtasks long, where a call can still
land: a command with ``stop`` leaves the loop there and ``advance`` lets it go on.  One case per
family the seeded random lifecycles found outside the model before the hops existed (decisions
G17-G20): a call after the pre-step's decision is returned and before the turn acts on it
(family 1), after ``turn/end`` and before the next turn or ``idle`` (family 2), and the three
listener calls of finding F10 (between a waking send's splice and the driver's start, between
the running status and ``turn/start``, between ``agent/error`` and ``turn/end error``).
"""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.loop.commands import Advance, Stopping
from loopspec.loop.phase_names import (
    CHAINING,
    DECIDED,
    DECISION_RETURNED,
    ENDING,
    FAILING,
    STARTING,
    WAKING,
)
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_types, final, note_types, refused
from loopspec.vectors.rule_cases.cancel import USER_ABORT
from loopspec.vectors.rule_cases.common import (
    CLM,
    DIS,
    ENTER,
    ERR,
    INS,
    REJECT,
    SE,
    SEED,
    SPL,
    SS,
    STAT,
    STOP,
    STOPPING,
    TE,
    TS,
    UM,
    case,
    m,
)

GO_ON = Advance()

CASES: tuple[CaseSpec, ...] = (
    case("hops/advance/input-4-advance-outside-a-hop", ("INPUT-4",),
         "advance goes on from a hop only: idle, deciding or stepping, there is nothing to go on from.",
         (GO_ON, cmd.followup(m("a")), GO_ON, ENTER, GO_ON),
         all_of(refused(0, "INPUT-4"), refused(2, "INPUT-4"), refused(4, "INPUT-4"), final("phase", "stepping"))),
    # ---- family 1: the decision returned, the turn not acting on it yet ----
    case("hops/cancel/cancel-3-cancel-after-an-entry-is-decided", ("CANCEL-3", "DECIDE-3"),
         "A cancel after the pre-step returned an entry and before the turn acts on it: the turn ends aborted "
         "with no step/start, the decided batch never entered.",
         (cmd.followup(m("a")), Stopping(ENTER, DECISION_RETURNED), cmd.Cancel(), GO_ON),
         all_of(event_types(1), note_types(1), final("phase", "idle"), event_types(3, TE),
                event_data(3, 0, "reason", USER_ABORT), note_types(3, STAT))),
    case("hops/cancel/cancel-3-cancel-before-the-pre-step-checks", ("CANCEL-3",),
         "A cancel after the pre-step waterfall settled and before the pre-step checks for an abort ends the "
         "turn aborted with no step/start.",
         (cmd.followup(m("a")), Stopping(ENTER, DECIDED), cmd.Cancel(), GO_ON),
         all_of(event_types(1), final("phase", "idle"), event_types(3, TE), event_data(3, 0, "reason", USER_ABORT))),
    case("hops/cancel/decide-5-cancel-after-a-reject-is-returned", ("DECIDE-5", "CANCEL-4"),
         "A reject the turn has not acted on yet is still a reject: a cancel there leaves the end blocked, and "
         "a follow-up after that cancel latches a wake, replayed after idle.",
         (cmd.followup(m("a")), Stopping(REJECT, DECISION_RETURNED), cmd.Cancel(keep_inbox=True),
          cmd.followup(m("b")), GO_ON),
         all_of(event_types(1), event_data(3, 0, "target", "next-turn"), event_types(4, TE, TS, SPL),
                event_data(4, 0, "reason", {"kind": "blocked"}), note_types(4, STAT, STAT, CLM),
                final("phase", "deciding"))),
    case("hops/steer/decide-4-input-after-the-decision-waits", ("DECIDE-4",),
         "A steer after the decision was returned joins next-step and waits: the step enters the decided batch "
         "unchanged.",
         (cmd.followup(m("a")), Stopping(ENTER, DECISION_RETURNED), cmd.steer(m("b")), GO_ON),
         all_of(event_types(2, SPL), note_types(2, INS), event_types(3, SS, UM),
                final("inbox", {"next-turn": [], "next-step": ["b"]}),
                final("phase", "stepping"))),
    # ---- family 2: the turn ended, the next turn or idle not reached yet ----
    case("hops/cancel/chain-1-cancel-between-a-chaining-end-and-the-next-turn", ("CHAIN-1", "CANCEL-3"),
         "A turn that ends with input pending chains; a keepInbox cancel between its turn/end and the next "
         "turn's start stops that turn before turn/start, and the input stays parked.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.Cancel(keep_inbox=True), GO_ON),
         all_of(event_types(4, TE), event_types(5), event_types(6), note_types(6, STAT),
                final("inbox", {"next-turn": ["b"], "next-step": []}), final("phase", "idle"))),
    case("hops/remove/chain-1-remove-between-a-chaining-end-and-the-next-turn", ("CHAIN-1", "TURN-5"),
         "A removal of the pending input between a chaining end and the next turn's start leaves a turn that "
         "claims nothing, whose empty first entry ends it completed with no step.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.Remove(m("b").id), GO_ON, ENTER),
         all_of(event_types(5, SPL), event_types(6, TS), note_types(6), event_types(7, TE), note_types(7, STAT),
                final("phase", "idle"), final("lastTurn", 2))),
    case("hops/followup/cancel-4-wake-after-a-cancel-between-a-chaining-end-and-the-next-turn", ("CANCEL-4", "CHAIN-1"),
         "A keepInbox cancel between a chaining end and the next turn stops that turn; a follow-up after it is "
         "redirected to next-turn and latched, and the latch starts a new turn after idle.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.Cancel(keep_inbox=True), cmd.followup(m("c")), GO_ON),
         all_of(event_types(6, SPL), event_data(6, 0, "target", "next-turn"), event_types(7, TS, SPL),
                note_types(7, STAT, STAT, CLM), final("inbox", {"next-turn": ["c"], "next-step": []}),
                final("lastTurn", 2), final("phase", "deciding"))),
    case("hops/followup/cancel-4-wake-after-a-cancel-before-an-error-end", ("CANCEL-4", "END-3"),
         "A cancel between agent/error and turn/end error leaves the end an error; a follow-up after it is "
         "redirected and latched, and the latch starts a new turn after idle.",
         (cmd.followup(m("a")), ENTER, Stopping(cmd.Fail(), FAILING), cmd.Cancel(keep_inbox=True),
          cmd.followup(m("b")), GO_ON),
         all_of(event_types(3), event_types(4, SPL), event_types(5, TE, TS, SPL), note_types(5, STAT, STAT, CLM),
                final("lastTurn", 2), final("phase", "deciding"))),
    case("hops/inject/claim-1-inject-between-a-chaining-end-and-the-next-turn", ("CHAIN-1", "CLAIM-1"),
         "An inject between a chaining end and the next turn's start goes into next-step, and the next turn's "
         "first claim takes it before the queued follow-up.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.inject(m("c")), GO_ON),
         all_of(event_types(5, SPL), note_types(5, INS), event_types(6, TS, SPL, SPL), note_types(6, CLM, CLM),
                final("phase", "deciding"), final("lastTurn", 2))),
    case("hops/restart/repair-4-crash-between-a-chaining-end-and-the-next-turn", ("REPAIR-4", "CHAIN-1"),
         "A crash after a chaining turn's end and before the next turn's start: the log closes nothing (no turn "
         "is open), the new process starts idle and the queued input is still pending.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING), cmd.Restart()),
         all_of(event_types(4, TE), note_types(4), event_types(5, SEED), note_types(5),
                final("inbox", {"next-turn": ["b"], "next-step": []}), final("phase", "idle"))),
    case("hops/followup/chain-2-followup-after-an-end-that-does-not-chain", ("CHAIN-2",),
         "A follow-up between a completed end with nothing pending and idle is stored and wakes nothing: the "
         "agent goes idle with it pending.",
         (cmd.followup(m("a")), ENTER, STOP, Stopping(STOPPING, ENDING), cmd.followup(m("b")), GO_ON),
         all_of(event_types(3, TE), event_types(4, SPL), event_data(4, 0, "target", "next-turn"),
                event_types(5), note_types(5, STAT), final("inbox", {"next-turn": ["b"], "next-step": []}),
                final("phase", "idle"))),
    case("hops/followup/cancel-4-followup-after-an-aborted-end-latches", ("CANCEL-4", "STATUS-1"),
         "A follow-up between an aborted end and idle latches a wake: idle, then running, and a new turn "
         "claims it.",
         (cmd.followup(m("a")), ENTER, cmd.Cancel(), Stopping(STOP, ENDING), cmd.followup(m("b")), GO_ON),
         all_of(event_data(3, 1, "reason", USER_ABORT), event_types(4, SPL), event_types(5, TS, SPL),
                note_types(5, STAT, STAT, CLM), final("phase", "deciding"), final("lastTurn", 2))),
    # ---- F10: a listener's call between a waking send and its turn's start, or before an error end ----
    case("hops/inject/input-2-inject-before-the-driver-starts", ("INPUT-2", "CLAIM-1"),
         "An inject between a waking send's splice and the driver's start (an inserted listener's) goes into "
         "next-step, and the turn's first claim takes it first, then the woken message.",
         (Stopping(cmd.followup(m("a")), WAKING), cmd.inject(m("b")), GO_ON),
         all_of(event_types(0, SPL), note_types(0, INS), final("phase", "deciding"), event_types(2, TS, SPL, SPL),
                note_types(2, STAT, CLM, CLM))),
    case("hops/cancel/cancel-3-cancel-before-the-first-turn-starts", ("CANCEL-3", "STATUS-1"),
         "A cancel between the running status and turn/start (a running listener's) clears the inbox and "
         "aborts the driver: no turn is written, and the agent goes idle.",
         (Stopping(cmd.followup(m("a")), STARTING), cmd.Cancel(), GO_ON),
         all_of(event_types(0, SPL), note_types(0, INS, STAT), event_types(1, SPL), note_types(1, DIS),
                event_types(2), note_types(2, STAT), final("lastTurn", 0), final("phase", "idle"))),
    case("hops/remove/turn-5-remove-before-the-first-turn-starts", ("TURN-5", "INPUT-2"),
         "A removal of the woken message before turn/start leaves a turn that claims nothing, whose empty "
         "first entry ends it completed with no step.",
         (Stopping(cmd.followup(m("a")), STARTING), cmd.Remove(m("a").id), GO_ON, ENTER),
         all_of(event_types(1, SPL), event_types(2, TS), event_types(3, TE), final("lastTurn", 1),
                final("phase", "idle"))),
    case("hops/followup/end-3-followup-before-an-error-end", ("END-2", "END-3", "CHAIN-2"),
         "A follow-up between agent/error and turn/end error (an error listener's) is stored and latches "
         "nothing: the turn ends error and the agent goes idle with it pending.",
         (cmd.followup(m("a")), ENTER, Stopping(cmd.Fail(), FAILING), cmd.followup(m("b")), GO_ON),
         all_of(event_types(2, SE), note_types(2, ERR), event_types(3, SPL), event_types(4, TE),
                final("inbox", {"next-turn": ["b"], "next-step": []}), final("phase", "idle"))),
    case("hops/decide/input-4-no-answer-at-a-hop", ("INPUT-4",),
         "At a hop the loop awaits nothing: an answer there is refused, and the state names the hop.",
         (cmd.followup(m("a")), Stopping(ENTER, DECIDED), ENTER, STOP, Advance(DECISION_RETURNED)),
         all_of(refused(2, "INPUT-4"), refused(3, "INPUT-4"), final("phase", DECISION_RETURNED))),
)
