"""Hand-written vector cases for the inbox rules checkable from commands (NORM, SPLICE).

Each case sets up a small inbox with public edits and then performs the edit the rule is about;
its probe checks the rule's hallmark in the model's observation (see :mod:`.case`).
"""

from __future__ import annotations

import math

from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.loop import commands as cmd
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_types, final, refused, value
from loopspec.vectors.command_gen import message

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP


def m(mid: str) -> UserMessage:
    return message(mid)


def _nt(*ids: str) -> tuple[cmd.Command, ...]:
    return tuple(cmd.Append(NT, m(i)) for i in ids)


def _case(path: str, rules: tuple[str, ...], description: str, commands: tuple[cmd.Command, ...],
          probe: object) -> CaseSpec:
    assert callable(probe)
    return CaseSpec(path, "rule", rules, description, commands, probe)


CASES: tuple[CaseSpec, ...] = (
    _case("norm/splice/norm-1-nan-start", ("NORM-1",),
          "splice(next-turn, NaN, 0, [x]) on [a, b] inserts at 0: NaN counts as 0.",
          (*_nt("a", "b"), cmd.Splice(NT, math.nan, 0, (m("x"),))),
          all_of(event_data(2, 0, "start", 0), final("inbox", {"next-turn": ["x", "a", "b"], "next-step": []}))),
    _case("norm/splice/norm-1-fraction-start", ("NORM-1",),
          "splice(next-turn, 1.9, 1) on [a, b, c] truncates the start to 1 and removes b.",
          (*_nt("a", "b", "c"), cmd.Splice(NT, 1.9, 1)),
          all_of(event_data(3, 0, "start", 1), value(3, ["b"]))),
    _case("norm/splice/norm-2-negative-start", ("NORM-2",),
          "splice(next-turn, -1, 1) on [a, b, c] removes the last message, recorded at start 2.",
          (*_nt("a", "b", "c"), cmd.Splice(NT, -1, 1)),
          all_of(event_data(3, 0, "start", 2), value(3, ["c"]))),
    _case("norm/splice/norm-2-clamping", ("NORM-2",),
          "-Infinity and a start below -len clamp to 0; +Infinity and a start beyond len clamp to len.",
          (*_nt("a", "b"), cmd.Splice(NT, -math.inf, 0, (m("p"),)), cmd.Splice(NT, -10, 0, (m("q"),)),
           cmd.Splice(NT, math.inf, 0, (m("r"),)), cmd.Splice(NT, 99, 0, (m("s"),))),
          all_of(event_data(2, 0, "start", 0), event_data(3, 0, "start", 0), event_data(4, 0, "start", 4),
                 event_data(5, 0, "start", 5))),
    _case("norm/splice/norm-3-delete-count", ("NORM-3",),
          "deleteCount NaN and negative remove nothing, 1.9 removes one, +Infinity removes the rest.",
          (*_nt("a", "b", "c", "d"), cmd.Splice(NT, 0, math.nan, (m("x"),)), cmd.Splice(NT, 0, -3),
           cmd.Splice(NT, 0, 1.9), cmd.Splice(NT, 1, math.inf)),
          all_of(event_data(4, 0, "removedCount", "<absent>"), event_types(5), value(5, []),
                 value(6, ["x"]), value(7, ["b", "c", "d"]))),
    _case("norm/splice/norm-5-minus-zero-refused", ("NORM-5",),
          "A non-empty splice whose start normalizes to -0 (-0.5, or -0 itself) is refused; nothing is written.",
          (*_nt("a"), cmd.Splice(NT, -0.5, 0, (m("x"),)), cmd.Splice(NT, -0.0, 1)),
          all_of(refused(1, "NORM-5"), refused(2, "NORM-5"), final("inbox", {"next-turn": ["a"], "next-step": []}))),
    _case("norm/splice/norm-5-minus-zero-noop-and-duplicate", ("NORM-5", "SPLICE-3"),
          "A -0 no-op writes nothing and is not refused; a -0 splice that repeats a pending id fails the "
          "duplicate check first.",
          (*_nt("a"), cmd.Splice(NT, -0.0, 0), cmd.Splice(NT, -0.0, 0, (m("a"),))),
          all_of(event_types(1), refused(2, "SPLICE-3"))),
    _case("splice/append/splice-1-append-prepend", ("SPLICE-1",),
          "append writes at len, prepend at 0, each one insertion record.",
          (cmd.Append(NS, m("a")), cmd.Append(NS, m("b")), cmd.Prepend(NS, m("c"))),
          all_of(event_data(1, 0, "start", 1), event_data(2, 0, "start", 0), value(2, None),
                 final("inbox", {"next-turn": [], "next-step": ["c", "a", "b"]}))),
    _case("splice/splice/splice-1-returns-removed", ("SPLICE-1",),
          "splice returns the removed messages, in list order, and [] when it removes nothing.",
          (*_nt("a", "b", "c"), cmd.Splice(NT, 1, 2, (m("x"),)), cmd.Splice(NS, 0, 5)),
          all_of(value(3, ["b", "c"]), value(4, []), event_data(3, 0, "outcome", "canceled"))),
    _case("splice/append/splice-3-duplicate-across-lists", ("SPLICE-3",),
          "Appending an id pending in the other list is refused and changes nothing.",
          (*_nt("a"), cmd.Append(NS, m("a"))),
          all_of(refused(1, "SPLICE-3"), final("inbox", {"next-turn": ["a"], "next-step": []}))),
    _case("splice/splice/splice-3-duplicate-inside-insertion", ("SPLICE-3",),
          "An insertion that repeats an id within itself is refused before anything is written.",
          (cmd.Splice(NT, 0, 0, (m("x"), m("y"), m("x"))),),
          all_of(refused(0, "SPLICE-3"), final("inbox", {"next-turn": [], "next-step": []}))),
    _case("splice/replace/splice-7-locate-and-miss", ("SPLICE-7",),
          "replace/remove find an id in either list and splice one message there; a missing id returns "
          "false and writes nothing.",
          (cmd.Append(NS, m("a")), *_nt("b"), cmd.Replace(MessageId("a"), m("z")), cmd.Remove(MessageId("q")),
           cmd.Replace(MessageId("q"), m("w")), cmd.Remove(MessageId("b"))),
          all_of(value(2, True), event_data(2, 0, "target", "next-step"), value(3, False), event_types(3),
                 value(4, False), value(5, True), event_data(5, 0, "target", "next-turn"),
                 final("inbox", {"next-turn": [], "next-step": ["z"]}))),
    _case("splice/replace/splice-9-same-id-and-clash", ("SPLICE-9", "SPLICE-3"),
          "Replacing a message by one with the same id is allowed; by an id pending elsewhere is refused.",
          (*_nt("a", "b"), cmd.Replace(MessageId("a"), message("a", "edited")), cmd.Replace(MessageId("a"), m("b"))),
          all_of(value(2, True), refused(3, "SPLICE-3"), final("inbox", {"next-turn": ["a", "b"], "next-step": []}))),
)
