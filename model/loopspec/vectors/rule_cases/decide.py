"""Hand-written vector cases for the pre-step decision beyond its shape (DECIDE-1, DECIDE-3 … DECIDE-8).

Listener failures include actions the model refuses inside a listener (a duplicate id, a ``-0``
start): the refusal's text is the turn's error message, so those texts (SPLICE-3, NORM-5) are
pinned here too.
"""

from __future__ import annotations

from loopspec.data.messages import MessageId
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_types, final, note_data, note_types
from loopspec.vectors.rule_cases.common import (
    EMPTY,
    ENTER,
    ENTER_NOTHING,
    ERR,
    INS,
    MINUS_ZERO_TEXT,
    NS,
    NT,
    REJECT,
    SE,
    SPL,
    SS,
    STAT,
    STOP,
    TE,
    TOOLS,
    UM,
    acting,
    case,
    error_reason,
    m,
    throwing,
)

CASES: tuple[CaseSpec, ...] = (
    case("decide/step-result/decide-1-every-boundary-decides", ("DECIDE-1",),
         "A tool continuation with nothing to claim still waits for its decision before the next step opens.",
         (cmd.followup(m("a")), ENTER, TOOLS, ENTER),
         all_of(event_types(2, SE), event_types(3, SS), event_data(3, 0, "step", 2))),
    case("decide/decide/decide-3-transforms-inside-out", ("DECIDE-3",),
         "Transforms apply as next() returns, innermost first: the inner listener adds y, the outer one drops "
         "it again, so only a is entered.",
         (cmd.followup(m("a")),
          cmd.Decide((ls.Wrap(ls.Drop((MessageId("y"),))), ls.Wrap(ls.Add((m("y"),)))))),
         all_of(event_types(1, SS, UM), event_data(1, 1, "id", "a"))),
    case("decide/decide/decide-4-input-during-decision-stays-pending", ("DECIDE-4",),
         "Input sent while the decision is pending (by a client or by a listener) is not part of the batch: "
         "it waits in next-step for the next boundary.",
         (cmd.followup(m("a")), cmd.inject(m("w")), acting(cmd.inject(m("z"))), STOP, ENTER),
         all_of(event_types(2, SPL, SS, UM), event_data(2, 2, "id", "a"), note_types(2, INS),
                event_types(3, SE, SPL), event_data(3, 1, "removedCount", 2), event_types(4, SS, UM, UM),
                event_data(4, 1, "id", "w"), event_data(4, 2, "id", "z"))),
    case("decide/decide/decide-5-reject-at-a-later-boundary", ("DECIDE-5",),
         "A reject at a later boundary also ends the turn blocked, whatever the earlier step set, and its "
         "claimed batch stays removed.",
         (cmd.followup(m("a")), ENTER, cmd.steer(m("b")), STOP, REJECT),
         all_of(event_types(3, SE, SPL), event_types(4, TE), event_data(4, 0, "reason", {"kind": "blocked"}),
                note_types(4, STAT), final("inbox", EMPTY))),
    case("decide/decide/decide-6-empty-entry-continues-tools", ("DECIDE-6",),
         "After a tool step an empty entry opens the next step with no messages.",
         (cmd.followup(m("a")), ENTER, TOOLS, ENTER_NOTHING, STOP),
         all_of(event_types(3, SS), event_data(3, 0, "step", 2), event_types(4, SE), final("phase", "stopping"))),
    case("decide/decide/decide-6-empty-entry-after-max-tokens", ("DECIDE-6", "RESULT-1"),
         "At a later boundary after a max-tokens step an empty entry ends the turn max-tokens.",
         (cmd.followup(m("a")), ENTER, cmd.steer(m("b")), cmd.MaxTokens(), ENTER_NOTHING),
         all_of(event_types(3, SE, SPL), event_types(4, TE), event_data(4, 0, "reason", {"kind": "max-tokens"}))),
    case("decide/decide/decide-7-throw-at-first-boundary", ("DECIDE-7", "END-2"),
         "A throwing listener at the first boundary: agent/error with step 0, then turn/end error, no step.",
         (cmd.followup(m("a")), throwing("boom")),
         all_of(event_types(1, TE), event_data(1, 0, "reason", error_reason("boom")), note_types(1, ERR, STAT),
                note_data(1, 0, "turn", 1), note_data(1, 0, "step", 0),
                note_data(1, 0, "error", {"message": "boom", "code": "UNKNOWN"}))),
    case("decide/decide/decide-7-throw-at-a-later-boundary", ("DECIDE-7",),
         "A throwing listener after one step reports the last opened step (1), not the proposed one.",
         (cmd.followup(m("a")), ENTER, TOOLS, throwing("boom")),
         all_of(event_types(3, TE), note_types(3, ERR, STAT), note_data(3, 0, "step", 1))),
    case("decide/decide/decide-7-refused-action-is-a-throw", ("DECIDE-7", "SPLICE-3"),
         "A listener action the model refuses (appending an id already pending) is the listener throwing "
         "with the refusal's text; nothing of the refused action is written.",
         (cmd.followup(m("a")), cmd.inject(m("b")), acting(cmd.Append(NT, m("b")))),
         all_of(event_types(2, TE), note_types(2, ERR, STAT),
                event_data(2, 0, "reason", error_reason('message "b" is already pending')),
                final("inbox", {"next-turn": [], "next-step": ["b"]}))),
    case("decide/decide/norm-5-refused-inside-a-listener", ("NORM-5", "DECIDE-7"),
         "A listener's edit whose start normalizes to -0 is refused with NORM-5's text, which ends the turn "
         "error.",
         (cmd.followup(m("a")), acting(cmd.Splice(NS, -0.0, 0, (m("x"),)))),
         all_of(event_types(1, TE), event_data(1, 0, "reason", error_reason(MINUS_ZERO_TEXT)),
                final("inbox", EMPTY))),
    case("decide/decide/decide-8-entered-in-decision-order", ("DECIDE-8",),
         "An enter decision writes step/start and one user/message per message, in the decision's order.",
         (cmd.followup(m("a")), cmd.Decide((ls.Veto(ls.Enter((m("y"), m("a"), m("x")))),))),
         all_of(event_types(1, SS, UM, UM, UM), event_data(1, 1, "id", "y"), event_data(1, 2, "id", "a"),
                event_data(1, 3, "id", "x"))),
)
