"""Hand-written cases for the claim alone (CLAIM-1, CLAIM-2, CLAIM-4), run on the inbox profile.

An implementation with an inbox but no loop cannot reach a claim through turns; the inbox
profile's ``claim(target, turn)`` command calls it directly.  Each case checks the hallmark of
its rule on the model when the suite is generated (:mod:`loopspec.vectors.case`).
"""

from __future__ import annotations

from collections.abc import Sequence

from loopspec.data.messages import InboxTarget
from loopspec.log.kinds import CLAIMED, SPLICED
from loopspec.loop import commands as cmd
from loopspec.vectors.case import CaseSpec, Probe, all_of, event_data, event_types, final, note_types, value
from loopspec.vectors.command_gen import message
from loopspec.vectors.json_reading import Json
from loopspec.vectors.reference_model import Claim

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
A, B, C, D = (message(i) for i in "abcd")


def claimed_after_records(index: int, next_seq: int, turn: int) -> Probe:
    """Every claimed notification of step ``index`` comes after all its records, with ``turn``."""

    def probe(obs: Sequence[Json], _: Json) -> str | None:
        notes = obs[index].get("notifications") if index < len(obs) else None
        if not isinstance(notes, list) or not notes:
            return f"step {index} emitted no notification"
        got = [(n.get("nextSeq"), n.get("turn")) for n in notes if isinstance(n, dict)]
        want = [(next_seq, turn)] * len(notes)
        return None if got == want else f"step {index} claimed (nextSeq, turn) should be {want}, got {got}"

    return probe


CASES: tuple[CaseSpec, ...] = (
    CaseSpec(
        "claim/claim/claim-1-first-boundary", "rule", ("CLAIM-1",),
        "claim(next-turn) at a turn's first boundary takes all of next-step, then the first next-turn message only.",
        (cmd.Append(NT, A), cmd.Append(NT, B), cmd.Append(NS, C), cmd.Append(NS, D), Claim(NT, 1)),
        all_of(value(4, ["c", "d", "a"]), final("inbox", {"next-turn": ["b"], "next-step": []})),
    ),
    CaseSpec(
        "claim/claim/claim-1-later-boundary", "rule", ("CLAIM-1",),
        "claim(next-step) at a later boundary takes next-step only; next-turn waits for the next turn.",
        (cmd.Append(NT, A), cmd.Append(NS, B), Claim(NS, 2), Claim(NS, 2)),
        all_of(value(2, ["b"]), value(3, []), event_types(3), final("inbox", {"next-turn": ["a"], "next-step": []})),
    ),
    CaseSpec(
        "claim/claim/claim-2-pure-deletions", "rule", ("CLAIM-2",),
        "A claim writes one pure deletion per non-empty part, next-step first: start 0, removedCount, "
        "inserted [], no outcome; an empty part writes nothing.",
        (cmd.Append(NT, A), cmd.Append(NS, B), cmd.Append(NS, C), Claim(NT, 1), cmd.Append(NT, D), Claim(NT, 2)),
        all_of(event_types(3, SPLICED, SPLICED), event_data(3, 0, "target", "next-step"),
               event_data(3, 0, "removedCount", 2), event_data(3, 0, "outcome", "<absent>"),
               event_data(3, 1, "target", "next-turn"), event_data(3, 1, "start", 0),
               event_data(3, 1, "inserted", []), event_types(5, SPLICED), event_data(5, 0, "target", "next-turn")),
    ),
    CaseSpec(
        "claim/claim/claim-4-claimed-after-records", "rule", ("CLAIM-4",),
        "After all of a claim's records, one claimed {message, turn} per claimed message in batch order "
        "(next-step first), with the turn given, and no discarded.",
        (cmd.Append(NT, A), cmd.Append(NS, B), cmd.Append(NS, C), Claim(NT, 7)),
        all_of(note_types(3, CLAIMED, CLAIMED, CLAIMED), claimed_after_records(3, 5, 7), value(3, ["b", "c", "a"])),
    ),
)
