"""Hand-written vector cases for calls that land at the loop's hops (spec/loop-grain.md).

A hop is a point the real loop passes on its own, a few microtasks long, where a call can still
land: a command with ``stop`` leaves the loop there and ``advance`` lets it go on.  One case per
family the seeded random lifecycles found outside the model before the hops existed (decisions
G17-G20): a call after the pre-step's decision is returned and before the turn acts on it
(family 1), after ``turn/end`` and before the next turn or ``idle`` (family 2), and the three
listener calls of finding F10 (between a waking send's splice and the driver's start, between
the running status and ``turn/start``, between ``agent/error`` and ``turn/end error``), the
calls of a clear's or a cancel's discarded listeners, inside the call (row 22, decisions G23), and
the calls of a waking send's own listeners when that send was made there (decisions G30, F19).
"""

from __future__ import annotations

from loopspec.data.message_shape import InboxTarget
from loopspec.loop import commands as cmd
from loopspec.loop.commands import Advance, Stopping
from loopspec.loop.phase_names import (
    CANCELING,
    CHAINING,
    CLEARING,
    DECIDED,
    DECISION_RETURNED,
    ENDING,
    FAILING,
    PROMPTING,
    REPLAYING,
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
# A clear stopped between its lists, a follow-up there starting a driver, and the clear's rest: the
# driver awaits its system prompt once the clear has returned (the hop prompting, loop-grain row 4).
_PROMPTING = (cmd.Append(InboxTarget.NEXT_STEP, m("a")), Stopping(cmd.Clear(), CLEARING), cmd.followup(m("b")),
              Advance(PROMPTING))
# A wake latched after an abort (a keepInbox cancel, then a follow-up), and the aborted end: the
# driver has gone idle and its idle status's listeners act before it replays the wake (the hop
# replaying, loop-grain row 21).
_REPLAYING = (cmd.followup(m("a")), cmd.Cancel(keep_inbox=True), cmd.followup(m("b")), Stopping(ENTER, REPLAYING))

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
    # ---- row 22: a discarded listener's call inside a clear or a cancel ----
    case("hops/inject/splice-8-inject-between-a-clears-lists-survives", ("SPLICE-8",),
         "An inject between a clear's two lists (a listener of next-step's discards) goes into next-step, "
         "already cleared: it survives, and the clear then discards next-turn.",
         (cmd.Append(InboxTarget.NEXT_STEP, m("a")), cmd.Append(InboxTarget.NEXT_TURN, m("b")),
          Stopping(cmd.Clear(), CLEARING), cmd.inject(m("c")), GO_ON),
         all_of(event_types(2, SPL), note_types(2, DIS), final("phase", "idle"), event_types(3, SPL),
                note_types(3, INS), event_types(4, SPL), note_types(4, DIS),
                final("inbox", {"next-turn": [], "next-step": ["c"]}))),
    case("hops/followup/cancel-1-followup-before-a-cancels-abort", ("CANCEL-1", "CANCEL-4", "CHAIN-2"),
         "A follow-up after a cancel's clear and before its abort (a discarded listener's) is neither "
         "redirected nor latched: the turn ends aborted and the agent goes idle with it pending.",
         (cmd.followup(m("a")), cmd.followup(m("b")), Stopping(cmd.Cancel(), CANCELING), cmd.followup(m("c")),
          GO_ON, ENTER),
         all_of(event_types(2, SPL), note_types(2, DIS), event_types(3, SPL), event_data(3, 0, "target", "next-turn"),
                event_types(4), event_types(5, TE), note_types(5, STAT), final("phase", "idle"),
                final("inbox", {"next-turn": ["c"], "next-step": []}))),
    case("hops/followup/cancel-1-followup-between-a-cancels-lists-is-discarded", ("CANCEL-1", "SPLICE-8"),
         "A follow-up between a cancel's two lists goes into next-turn, which the clear discards next.",
         (cmd.followup(m("a")), cmd.steer(m("b")), cmd.followup(m("c")), Stopping(cmd.Cancel(), CLEARING),
          cmd.followup(m("d")), GO_ON),
         all_of(event_types(3, SPL), note_types(3, DIS), event_types(4, SPL), event_types(5, SPL),
                note_types(5, DIS, DIS), final("inbox", {"next-turn": [], "next-step": []}),
                final("phase", "deciding"))),
    case("hops/followup/cancel-1-idle-cancel-aborts-the-driver-its-listener-started", ("CANCEL-1", "CANCEL-3"),
         "A follow-up made by a listener of an idle cancel's discards starts a driver, whose turn claims it and "
         "awaits the system prompt as the follow-up returns; the cancel then aborts that driver, and the turn "
         "ends aborted before any pre-step listener is called (loop-grain row 4).",
         (cmd.Append(InboxTarget.NEXT_TURN, m("a")), Stopping(cmd.Cancel(), CANCELING), cmd.followup(m("b")),
          GO_ON, ENTER),
         all_of(event_types(1, SPL), note_types(1, DIS), final("phase", "idle"), event_types(2, SPL, TS, SPL),
                event_types(3, TE), event_data(3, 0, "reason", USER_ABORT), note_types(3, STAT),
                refused(4, "INPUT-4"), final("lastTurn", 1))),
    # ---- the hop prompting: the outer call returned, the driver it saw start awaits its prompt ----
    case("hops/steer/cancel-4-steer-at-prompting-after-the-cancel", ("CANCEL-4", "CANCEL-3"),
         "Once the cancel has returned, the driver its listener's follow-up started still awaits its system "
         "prompt: a steer made there finds that driver aborted, joins next-turn and latches a wake; the turn "
         "then ends aborted with no pre-step called, and the latched wake starts the next one.",
         (cmd.Append(InboxTarget.NEXT_TURN, m("a")), Stopping(cmd.Cancel(), CANCELING), cmd.followup(m("b")),
          Advance(PROMPTING), cmd.steer(m("c")), GO_ON),
         all_of(event_types(3), note_types(3), final("phase", "deciding"), event_data(4, 0, "target", "next-turn"),
                event_types(5, TE, TS, SPL), event_data(5, 0, "reason", USER_ABORT),
                note_types(5, STAT, STAT, CLM), final("lastTurn", 2))),
    case("hops/cancel/cancel-3-cancel-at-prompting-ends-the-turn-unasked", ("CANCEL-3", "DECIDE-1"),
         "A cancel with nothing to clear, made once the clear has returned and while the driver its follow-up "
         "started awaits its system prompt: the turn ends aborted and no pre-step is asked for a decision.",
         (*_PROMPTING, cmd.Cancel(), GO_ON, ENTER),
         all_of(event_types(4), note_types(4), event_types(5, TE), event_data(5, 0, "reason", USER_ABORT),
                note_types(5, STAT), refused(6, "INPUT-4"), final("phase", "idle"))),
    case("hops/cancel/cancel-1-cancel-at-prompting-after-a-clear", ("CANCEL-1", "CANCEL-3"),
         "A follow-up made between a clear's lists starts a driver that awaits its system prompt when the "
         "clear returns; a cancel there stops after next-turn's discards like anywhere else, and its abort "
         "ends the turn before any pre-step listener is called.",
         (*_PROMPTING, cmd.Append(InboxTarget.NEXT_TURN, m("c")), Stopping(cmd.Cancel(), CANCELING), GO_ON, GO_ON,
          ENTER),
         all_of(event_types(3), note_types(3), event_types(5, SPL), note_types(5, DIS), event_types(6),
                event_types(7, TE), event_data(7, 0, "reason", USER_ABORT), note_types(7, STAT),
                refused(8, "INPUT-4"), final("phase", "idle"), final("lastTurn", 1))),
    case("hops/cancel/cancel-1-cancel-of-next-step-at-prompting", ("CANCEL-1", "CANCEL-3"),
         "At the hop prompting a steer joins next-step (the driver is not aborted); a cancel there stops after "
         "next-step's discards, then aborts, and the turn ends aborted with no pre-step called.",
         (*_PROMPTING, cmd.steer(m("c")), Stopping(cmd.Cancel(), CLEARING), GO_ON, GO_ON),
         all_of(event_data(4, 0, "target", "next-step"), event_types(5, SPL), note_types(5, DIS), event_types(6),
                event_types(7, TE), event_data(7, 0, "reason", USER_ABORT), final("phase", "idle"))),
    case("hops/clear/decide-1-prompting-goes-on-to-the-pre-step", ("DECIDE-1", "SPLICE-8"),
         "At the hop prompting a clear stops between its lists like anywhere else; not aborted, the driver then "
         "goes on from its system prompt to the pre-step, whose decision enters the claimed follow-up.",
         (*_PROMPTING, cmd.steer(m("c")), Stopping(cmd.Clear(), CLEARING), GO_ON, GO_ON, ENTER),
         all_of(event_types(5, SPL), note_types(5, DIS), event_types(6), event_types(7), note_types(7),
                event_types(8, SS, UM), final("phase", "stepping"), final("lastTurn", 1))),
    case("hops/restart/repair-1-crash-at-prompting", ("REPAIR-1", "REPAIR-4"),
         "A crash while the driver a follow-up started inside a clear awaits its system prompt: the new process "
         "closes the open turn interrupted, and the claimed follow-up is not pending any more.",
         (*_PROMPTING, cmd.Restart()),
         all_of(event_types(4, TE, SEED), event_data(4, 0, "reason", {"kind": "interrupted"}), note_types(4),
                final("inbox", {"next-turn": [], "next-step": []}), final("phase", "idle"), final("lastTurn", 1))),
    case("hops/send/input-1-send-at-prompting-joins-next-turn", ("INPUT-1",),
         "A send that does not wake, made while the driver a follow-up started inside a clear awaits its "
         "system prompt, joins next-turn; the driver then goes on to the pre-step, which enters the follow-up.",
         (*_PROMPTING, cmd.Send(m("c"), InboxTarget.NEXT_TURN, False), GO_ON, ENTER),
         all_of(event_types(4, SPL), event_data(4, 0, "target", "next-turn"), note_types(4, INS),
                event_types(5), event_types(6, SS, UM), final("phase", "stepping"), final("lastTurn", 1))),
    # ---- a waking send made inside a clear or a cancel, held at its own hops (decisions G30, F19) ----
    case("hops/append/input-2-a-sends-inserted-listener-calls-inside-a-clear", ("INPUT-2", "SPLICE-8"),
         "A follow-up made between a clear's lists stops at its own waking, where a listener of its inserted "
         "appends to next-turn; the follow-up's rest starts the driver, whose turn claims the follow-up, and "
         "only then does the clear's rest discard what is left of next-turn.",
         (cmd.Append(InboxTarget.NEXT_STEP, m("a")), Stopping(cmd.Clear(), CLEARING),
          Stopping(cmd.followup(m("b")), WAKING), cmd.Append(InboxTarget.NEXT_TURN, m("c")), GO_ON, GO_ON, ENTER),
         all_of(event_types(2, SPL), note_types(2, INS), event_types(3, SPL), note_types(3, INS),
                event_types(4, TS, SPL), note_types(4, STAT, CLM), event_types(5, SPL), note_types(5, DIS),
                event_types(6, SS, UM), final("phase", "stepping"), final("lastTurn", 1))),
    case("hops/cancel/cancel-3-a-driver-aborted-at-its-start-inside-a-cancel-ends-after-it",
         ("CANCEL-3", "CANCEL-1", "STATUS-1"),
         "A follow-up made between a cancel's lists while idle stops at its own starting, where a listener of "
         "its running status cancels: the driver never starts a turn, and it goes idle only once the outer "
         "cancel's rest has run; a follow-up after that starts the first turn.",
         (cmd.Append(InboxTarget.NEXT_STEP, m("a")), Stopping(cmd.Cancel(), CLEARING),
          Stopping(cmd.followup(m("b")), STARTING), cmd.Cancel(), GO_ON, GO_ON, cmd.followup(m("c"))),
         all_of(event_types(2, SPL), note_types(2, INS, STAT), event_types(3, SPL), note_types(3, DIS),
                event_types(4), note_types(4), event_types(5), note_types(5, STAT),
                event_types(6, SPL, TS, SPL), final("lastTurn", 1))),
    # ---- the hop replaying: a latched wake's driver went idle, its status's listeners act ----
    case("hops/cancel/cancel-4-a-cancel-at-replaying-leaves-nothing-to-replay", ("CANCEL-4", "CANCEL-1"),
         "A listener of the idle status of a driver that latched a wake cancels: the agent is idle, so the "
         "cancel only clears, and the latched wake then finds nothing pending and starts no driver.",
         (*_REPLAYING, cmd.Cancel(), GO_ON),
         all_of(event_types(3, TE), note_types(3, STAT), event_types(4, SPL), note_types(4, DIS), event_types(5),
                note_types(5), final("phase", "idle"), final("lastTurn", 1))),
    case("hops/followup/input-2-followup-at-replaying-starts-its-own-driver", ("INPUT-2", "CANCEL-4"),
         "A follow-up made while a driver that latched a wake has gone idle starts a driver itself, which "
         "claims the latched input first; the replay then finds it running and does nothing.",
         (*_REPLAYING, cmd.followup(m("c")), GO_ON),
         all_of(event_types(4, SPL, TS, SPL), note_types(4, INS, STAT, CLM), event_data(4, 2, "removedCount", 1),
                refused(5, "INPUT-4"), final("inbox", {"next-turn": ["c"], "next-step": []}),
                final("phase", "deciding"), final("lastTurn", 2))),
    case("hops/inject/cancel-4-the-replay-reads-what-is-pending-by-then", ("CANCEL-4", "INPUT-1"),
         "The latched wake is replayed only if input is pending once the idle status's listeners are done: "
         "one cleared the latched input and injected another, and the replayed driver's turn claims that one.",
         (*_REPLAYING, cmd.Clear(), cmd.inject(m("c")), GO_ON),
         all_of(event_types(4, SPL), event_types(5, SPL), event_types(6, TS, SPL), note_types(6, STAT, CLM),
                event_data(6, 1, "target", "next-step"), final("inbox", {"next-turn": [], "next-step": []}),
                final("phase", "deciding"), final("lastTurn", 2))),
    case("hops/cancel/cancel-4-keep-inbox-cancel-at-replaying-changes-nothing", ("CANCEL-2", "CANCEL-4"),
         "A keepInbox cancel at the idle status of a latched driver has nothing to abort and disarms nothing: "
         "the latch was read before the driver went idle, and it replays.",
         (*_REPLAYING, cmd.Cancel(keep_inbox=True), GO_ON),
         all_of(event_types(4), note_types(4), event_types(5, TS, SPL), note_types(5, STAT, CLM),
                final("phase", "deciding"), final("lastTurn", 2))),
    case("hops/clear/splice-8-clear-inside-at-replaying", ("SPLICE-8", "CANCEL-4"),
         "At the idle status of a latched driver a clear stops between its lists like anywhere else; once it "
         "is done nothing is pending and the wake is not replayed.",
         (*_REPLAYING, cmd.inject(m("c")), Stopping(cmd.Clear(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(5, SPL), note_types(5, DIS), event_types(6, SPL), note_types(6, DIS), event_types(7),
                final("phase", "idle"), final("inbox", {"next-turn": [], "next-step": []}))),
    case("hops/cancel/cancel-1-cancel-of-next-step-at-replaying", ("CANCEL-1", "CANCEL-4"),
         "At the idle status of a latched driver a cancel stops after next-step's discards, then clears "
         "next-turn; there is no driver to abort, and nothing is left to replay.",
         (*_REPLAYING, cmd.inject(m("c")), Stopping(cmd.Cancel(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(5, SPL), event_types(6, SPL), event_types(7), final("phase", "idle"),
                final("lastTurn", 1))),
    case("hops/restart/repair-4-crash-at-replaying", ("REPAIR-4", "CANCEL-4"),
         "A crash between a latched driver's idle status and its replay: the log is balanced, so the new "
         "process writes only its seed end, starts idle and replays nothing; the input stays pending.",
         (*_REPLAYING, cmd.Restart()),
         all_of(event_types(4, SEED), note_types(4), final("inbox", {"next-turn": ["b"], "next-step": []}),
                final("phase", "idle"))),
    case("hops/clear/input-4-a-call-inside-a-call-runs-whole", ("INPUT-4", "SPLICE-8"),
         "A clear made between another clear's lists runs whole, though it asks to stop there too: the model "
         "has no point inside a call made at such a point.",
         (cmd.Append(InboxTarget.NEXT_STEP, m("a")), cmd.Append(InboxTarget.NEXT_TURN, m("b")),
          Stopping(cmd.Clear(), CLEARING), cmd.Append(InboxTarget.NEXT_STEP, m("c")),
          Stopping(cmd.Clear(), CLEARING), GO_ON),
         all_of(event_types(2, SPL), event_types(4, SPL, SPL), note_types(4, DIS, DIS), final("phase", "idle"),
                event_types(5), final("inbox", {"next-turn": [], "next-step": []}))),
    case("hops/steer/splice-8-clear-at-a-chaining-hop", ("SPLICE-8", "CHAIN-1"),
         "A clear between a chaining end and the next turn stops between its lists like anywhere else, and "
         "leaves the loop at the hop: the next turn then starts and claims nothing.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.steer(m("c")), Stopping(cmd.Clear(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(6, SPL), note_types(6, DIS), event_types(7, SPL), final("lastTurn", 2),
                event_types(8, TS), final("phase", "deciding"))),
    case("hops/cancel/cancel-1-cancel-at-a-chaining-hop-stops-inside", ("CANCEL-1", "CHAIN-1"),
         "A cancel between a chaining end and the next turn clears next-step, stops, then clears next-turn and "
         "aborts: the next turn never starts.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          cmd.steer(m("c")), Stopping(cmd.Cancel(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(6, SPL), event_types(7, SPL), event_types(8), note_types(8, STAT),
                final("lastTurn", 1), final("phase", "idle"))),
    # The loop's rarer hops, where a clear or a cancel stops inside itself like anywhere else (their
    # rows' witnesses: random walks seldom put input in next-step there first).
    case("hops/clear/splice-8-clear-inside-at-failing", ("SPLICE-8", "END-3"),
         "Between agent/error and turn/end error a clear stops between its lists too; the end stays an error.",
         (cmd.followup(m("a")), ENTER, Stopping(cmd.Fail(), FAILING), cmd.inject(m("b")), cmd.followup(m("c")),
          Stopping(cmd.Clear(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(5, SPL), note_types(5, DIS), event_types(6, SPL), note_types(6, DIS),
                event_types(7, TE), final("phase", "idle"), final("inbox", {"next-turn": [], "next-step": []}))),
    case("hops/cancel/cancel-1-cancel-inside-at-failing", ("CANCEL-1", "END-3"),
         "Between agent/error and turn/end error a cancel stops after next-step's discards and again after "
         "next-turn's; the end stays an error.",
         (cmd.followup(m("a")), ENTER, Stopping(cmd.Fail(), FAILING), cmd.inject(m("b")), cmd.followup(m("c")),
          Stopping(cmd.Cancel(), CLEARING), Advance(CANCELING), GO_ON, GO_ON),
         all_of(event_types(5, SPL), event_types(6, SPL), event_types(7), event_types(8, TE),
                final("phase", "idle"))),
    case("hops/cancel/cancel-1-cancel-of-next-turn-at-failing", ("CANCEL-1", "END-3"),
         "Between agent/error and turn/end error a cancel with only next-turn to clear stops after its "
         "discards, before its abort.",
         (cmd.followup(m("a")), ENTER, Stopping(cmd.Fail(), FAILING), cmd.followup(m("b")),
          Stopping(cmd.Cancel(), CANCELING), GO_ON, GO_ON),
         all_of(event_types(4, SPL), note_types(4, DIS), event_types(5), event_types(6, TE),
                final("phase", "idle"))),
    case("hops/clear/splice-8-clear-inside-after-the-decision", ("SPLICE-8", "DECIDE-4"),
         "After the decision is returned a clear stops between its lists; the step then enters the decided "
         "batch.",
         (cmd.followup(m("a")), Stopping(ENTER, DECISION_RETURNED), cmd.inject(m("b")), cmd.followup(m("c")),
          Stopping(cmd.Clear(), CLEARING), GO_ON, GO_ON),
         all_of(event_types(4, SPL), event_types(5, SPL), event_types(6, SS, UM), final("phase", "stepping"))),
    case("hops/cancel/cancel-1-cancel-of-next-turn-at-a-chaining-hop", ("CANCEL-1", "CHAIN-1"),
         "Between a chaining end and the next turn a cancel with only next-turn to clear stops after its "
         "discards; its abort then stops the next turn.",
         (cmd.followup(m("a")), ENTER, cmd.followup(m("b")), STOP, Stopping(STOPPING, CHAINING),
          Stopping(cmd.Cancel(), CANCELING), GO_ON, GO_ON),
         all_of(event_types(5, SPL), note_types(5, DIS), event_types(6), event_types(7), note_types(7, STAT),
                final("phase", "idle"), final("lastTurn", 1))),
)
