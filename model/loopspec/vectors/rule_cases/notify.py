"""Hand-written vector cases for notifications and the claim (NOTIFY, STATUS, CLAIM).

Notification rules are checkable from a live stream; an adapter's observation is one, so each rule
has a case pinning the notifications (their payload, order and turn) a step emits.  The claim's
rules are checkable from the log, which the observation's events are.
"""

from __future__ import annotations

from loopspec.data.messages import MessageId
from loopspec.loop import commands as cmd
from loopspec.vectors.case import (
    CaseSpec,
    all_of,
    event_data,
    event_types,
    final,
    note_data,
    note_ids,
    note_types,
)
from loopspec.vectors.rule_cases.common import (
    CLM,
    DIS,
    EMPTY,
    ENTER,
    INS,
    NS,
    NT,
    REJECT,
    SE,
    SPL,
    SS,
    STAT,
    STOP,
    STOPPING,
    TE,
    TOOLS,
    TS,
    UM,
    case,
    m,
    nt,
    throwing,
)

CASES: tuple[CaseSpec, ...] = (
    case("notify/remove/notify-1-message-only", ("NOTIFY-1",),
         "inserted and discarded carry exactly {message}; claimed carries {message, turn}.",
         (*nt("a"), cmd.Remove(MessageId("a")), cmd.followup(m("b"))),
         all_of(note_data(0, 0, "message", m("a").to_json()), note_data(1, 0, "outcome", "<absent>"),
                note_data(1, 0, "target", "<absent>"), note_data(0, 0, "start", "<absent>"),
                note_data(2, 2, "turn", 1), note_data(2, 2, "batch", "<absent>"), note_types(2, INS, STAT, CLM))),
    case("notify/splice/notify-2-discarded-then-inserted", ("NOTIFY-2",),
         "One splice notifies discarded per removed message in list order, then inserted per inserted one.",
         (*nt("a", "b", "c"), cmd.Splice(NT, 0, 2, (m("x"), m("y")))),
         all_of(note_types(3, DIS, DIS, INS, INS), note_ids(3, "a", "b", "x", "y"))),
    case("notify/replace/notify-3-replacement-order", ("NOTIFY-3",),
         "replace(a -> z) writes one splice and notifies discarded a, then inserted z.",
         (*nt("a", "b"), cmd.Replace(MessageId("a"), m("z"))),
         all_of(event_types(2, SPL), note_types(2, DIS, INS), note_ids(2, "a", "z"))),
    case("notify/clear/notify-4-each-record-notifies-first", ("NOTIFY-4", "SPLICE-8"),
         "clear() is two public splices: next-step's record and its discarded, then next-turn's record and "
         "its discarded (the interleaving is visible in protocol v2's nextSeq).",
         (cmd.Append(NS, m("a")), cmd.Append(NS, m("b")), *nt("c"), cmd.Clear()),
         all_of(event_types(3, SPL, SPL), note_ids(3, "a", "b", "c"))),
    case("status/followup/status-1-changes-only", ("STATUS-1",),
         "running once when woken, nothing while queued turns chain, idle once when the drain parks.",
         (cmd.followup(m("a")), cmd.followup(m("b")), ENTER, STOP, STOPPING, ENTER, STOP, STOPPING),
         all_of(note_types(0, INS, STAT, CLM), note_data(0, 1, "status", "running"), note_types(1, INS),
                note_types(4, CLM), note_types(7, STAT), note_data(7, 0, "status", "idle"))),
    case("claim/followup/claim-1-one-follow-up-per-turn", ("CLAIM-1",),
         "The first boundary takes next-step and the first follow-up only; a later boundary takes next-step "
         "only, leaving the queued follow-ups for the next turns.",
         (cmd.inject(m("x")), cmd.Send(m("n"), NT, False), cmd.followup(m("a")), cmd.steer(m("c")), ENTER, STOP),
         all_of(event_types(2, SPL, TS, SPL, SPL), event_data(2, 3, "removedCount", 1), note_ids(2, "a", "x", "n"),
                event_types(5, SE, SPL), event_data(5, 1, "target", "next-step"),
                final("inbox", {"next-turn": ["a"], "next-step": []}))),
    case("claim/followup/claim-2-one-record-per-part", ("CLAIM-2",),
         "A claim of two next-step messages and a follow-up writes two pure deletions at start 0: "
         "next-step (removedCount 2), then next-turn (removedCount 1).",
         (cmd.inject(m("x")), cmd.inject(m("y")), cmd.followup(m("a"))),
         all_of(event_types(2, SPL, TS, SPL, SPL), event_data(2, 2, "target", "next-step"),
                event_data(2, 2, "removedCount", 2), event_data(2, 2, "start", 0), event_data(2, 3, "removedCount", 1),
                event_data(2, 3, "inserted", []))),
    case("claim/step-result/claim-3-after-the-step-closes", ("CLAIM-3", "CLAIM-6"),
         "A later boundary's claim comes after the step's step/end and before the next step/start.",
         (cmd.followup(m("a")), ENTER, cmd.steer(m("b")), STOP, ENTER),
         all_of(event_types(3, SE, SPL), note_types(3, CLM), event_types(4, SS, UM), event_data(4, 1, "id", "b"))),
    case("claim/followup/claim-4-claimed-after-the-records", ("CLAIM-4",),
         "claimed comes once per claimed message, in batch order (next-step, then the follow-up), with the "
         "turn, after the status change and never with discarded.",
         (cmd.inject(m("x")), cmd.followup(m("a"))),
         all_of(note_types(1, INS, STAT, CLM, CLM), note_ids(1, "a", "x", "a"), note_data(1, 2, "turn", 1),
                note_data(1, 3, "turn", 1))),
    case("claim/decide/claim-5-claims-are-final", ("CLAIM-5",),
         "A claimed batch stays consumed when the decision rejects it, when the listener throws and when the "
         "process restarts.",
         (cmd.followup(m("a")), REJECT, cmd.followup(m("b")), throwing("boom"), cmd.Restart()),
         all_of(event_types(1, TE), event_types(2, SPL, TS, SPL), event_data(2, 2, "target", "next-turn"),
                event_types(3, TE), final("inbox", EMPTY), final("lastTurn", 2))),
    case("claim/step-result/claim-6-at-once", ("CLAIM-6", "TURN-4"),
         "The first claim follows turn/start in the waking send; a tool step's context is inserted while the "
         "step runs, and the next boundary's claim follows step/end at once.",
         (cmd.followup(m("a")), ENTER, cmd.ToolCalls((m("t"),)), ENTER, TOOLS),
         all_of(event_types(0, SPL, TS, SPL), event_types(2, SPL, SE, SPL), event_data(2, 2, "removedCount", 1),
                event_types(4, SE))),
)
