"""Hand-written vector cases for the inbox's records and identity (DATA, NORM-1/4, SPLICE records).

These rules are stated for logs, but every record and every reported state passes through the
adapter protocol, so each has a case whose probe pins the record (or state) the rule shapes.
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
    note_ids,
    note_types,
    value,
)
from loopspec.vectors.command_gen import message
from loopspec.vectors.rule_cases.common import CLM, DIS, ENTER, INS, NS, NT, SPL, SS, STAT, TS, UM, case, m, nt

CASES: tuple[CaseSpec, ...] = (
    case("norm/splice/norm-1-negative-fraction", ("NORM-1",),
         "splice(next-turn, -1.5, 1) on [a, b, c] truncates toward zero (-1), so it removes c at start 2; "
         "flooring (-2) would remove b.",
         (*nt("a", "b", "c"), cmd.Splice(NT, -1.5, 1)),
         all_of(event_data(3, 0, "start", 2), value(3, ["c"]))),
    case("norm/splice/norm-4-normalized-record", ("NORM-4",),
         "Records carry the normalized start and count: -1 is written as 2, and a start of 9 with a count "
         "of 5 on two messages is an insertion at 2 with no removedCount.",
         (*nt("a", "b", "c"), cmd.Splice(NT, -1, 1), cmd.Splice(NT, 9, 5, (m("x"),))),
         all_of(event_data(3, 0, "start", 2), event_data(3, 0, "removedCount", 1), event_data(4, 0, "start", 2),
                event_data(4, 0, "removedCount", "<absent>"))),
    case("splice/splice/splice-2-no-op-not-written", ("SPLICE-2",),
         "Edits that remove and insert nothing (an empty splice, a count clamped to 0, a clear of an empty "
         "inbox) write no record and notify nothing.",
         (*nt("a"), cmd.Splice(NT, 0, 0), cmd.Splice(NS, 5, 3), cmd.Splice(NT, 1, 4)),
         all_of(event_types(1), note_types(1), event_types(2), event_types(3), value(3, []))),
    case("splice/splice/splice-4-removed-count-only-when-removing", ("SPLICE-4",),
         "A pure insertion has no removedCount; a removal writes its count.",
         (*nt("a"), cmd.Splice(NT, 0, 0, (m("x"),)), cmd.Splice(NT, 0, 2)),
         all_of(event_data(1, 0, "removedCount", "<absent>"), event_data(2, 0, "removedCount", 2))),
    case("splice/remove/splice-5-inserted-always-written", ("SPLICE-5",),
         "Pure deletions (remove, clear) still write inserted: [].",
         (*nt("a", "b"), cmd.Remove(MessageId("a")), cmd.Clear()),
         all_of(event_data(2, 0, "inserted", []), event_data(3, 0, "inserted", []))),
    case("splice/remove/splice-6-canceled-marks-public-removals", ("SPLICE-6", "CLAIM-2"),
         "A public removal carries outcome canceled; a pure insertion and the loop's claim carry none.",
         (*nt("a"), cmd.Remove(MessageId("a")), *nt("b"), cmd.followup(m("c"))),
         all_of(event_data(1, 0, "outcome", "canceled"), event_data(2, 0, "outcome", "<absent>"),
                event_types(3, SPL, TS, SPL), event_data(3, 2, "outcome", "<absent>"))),
    case("splice/clear/splice-8-next-step-first", ("SPLICE-8", "NOTIFY-4"),
         "clear() cancels next-step, then next-turn, each list one record and its discarded notifications; "
         "an empty list writes nothing.",
         (cmd.Append(NS, m("a")), cmd.Append(NS, m("b")), *nt("c"), cmd.Clear(), cmd.Append(NS, m("d")),
          cmd.Clear()),
         all_of(event_types(3, SPL, SPL), event_data(3, 0, "target", "next-step"),
                event_data(3, 1, "target", "next-turn"), note_types(3, DIS, DIS, DIS), note_ids(3, "a", "b", "c"),
                event_types(5, SPL), event_data(5, 0, "target", "next-step"))),
    case("data/remove/data-1-ids-compared-exactly", ("DATA-1",),
         "Ids are opaque strings compared exactly: 'msg' and 'MSG' do not address 'Msg', and ids differing "
         "only in case are different messages.",
         (*nt("Msg"), cmd.Remove(MessageId("msg")), cmd.Replace(MessageId("MSG"), m("x")), *nt("msg"),
          cmd.Remove(MessageId("Msg"))),
         all_of(value(1, False), value(2, False), event_types(3, SPL), value(4, True),
                final("inbox", {"next-turn": ["msg"], "next-step": []}))),
    case("data/followup/data-2-unknown-fields-kept", ("DATA-2",),
         "A message with a field the model does not know keeps it in the record, the notifications, the "
         "user/message event and the state.",
         (cmd.followup(message("a", extra=True)), ENTER, cmd.inject(message("b", extra=True))),
         all_of(event_data(1, 1, "meta", {"note": "unknown field", "n": 1}), note_types(0, INS, STAT, CLM),
                event_types(1, SS, UM),
                final("inbox", {"next-turn": [], "next-step": ["b"]}))),
    case("data/append/data-3-two-targets", ("DATA-3",),
         "Records name their list as exactly next-turn or next-step.",
         (cmd.Append(NT, m("a")), cmd.Append(NS, m("b"))),
         all_of(event_data(0, 0, "target", "next-turn"), event_data(1, 0, "target", "next-step"))),
    case("data/splice/data-4-two-ordered-lists", ("DATA-4",),
         "The state is two ordered lists, by position and not by insertion time: prepends and middle "
         "insertions show where they landed.",
         (cmd.Append(NS, m("a")), cmd.Prepend(NS, m("b")), cmd.Splice(NS, 1, 0, (m("c"),)), *nt("d"),
          cmd.Prepend(NT, m("e"))),
         final("inbox", {"next-turn": ["e", "d"], "next-step": ["b", "c", "a"]})),
)
