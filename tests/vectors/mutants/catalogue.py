"""The mutant catalogue: every deliberately wrong implementation, the rule it breaks, its hallmark.

A mutant with ``needs="v2"`` moves a notification relative to the durable records, or an event's
time, without changing either list: only protocol v2's observation can show it.
"""

from __future__ import annotations

from vectors.mutants import (
    decide_bugs,
    edit_bugs,
    end_bugs,
    identity_bugs,
    inbox_bugs,
    lifecycle_bugs,
    notify_bugs,
    record_bugs,
    restart_bugs,
    turn_bugs,
)
from vectors.mutants import witnesses as w
from vectors.mutants.handler import Mutant, MutantHandler


def _mutant(name: str, rule: str, bug: str, differs: w.Witness) -> Mutant:
    patch = inbox_bugs.PATCHES.get(name) or lifecycle_bugs.PATCHES[name]
    split = inbox_bugs.SPLIT_PATCHES.get(name)
    return Mutant(name, rule, bug, (patch,) if split is None else (patch, split), differs)


FIRST: tuple[Mutant, ...] = (
    _mutant("reject-requeues-batch", "CLAIM-5", "a reject re-queues the claimed batch", w.requeued_on_reject),
    _mutant("claim-every-next-turn", "CLAIM-1", "a claim takes every next-turn message", w.claim_too_big),
    _mutant("claim-next-turn-always", "CLAIM-1", "later boundaries also claim a next-turn message",
            w.extra_next_turn_claim),
    _mutant("turn-start-after-claim", "TURN-4", "turn/start is written after the first claim",
            w.claim_before_turn_start),
    _mutant("step-opened-on-reject", "DECIDE-5", "a rejected boundary still opens (and closes) a step",
            w.step_on_reject),
    _mutant("noop-edits-written", "SPLICE-2", "edits that change nothing are written", w.noop_written),
    _mutant("dup-check-target-only", "SPLICE-3", "the duplicate check ignores the other list",
            w.duplicate_accepted),
    _mutant("negative-start-from-zero", "NORM-2", "a negative start clamps to 0 instead of counting from the end",
            w.different_start),
    _mutant("removed-count-zero", "SPLICE-4", "removedCount: 0 is written on pure insertions", w.zero_count_written),
    _mutant("claim-marked-canceled", "SPLICE-6", "claim deletions carry outcome canceled", w.claim_canceled),
    _mutant("claim-discards", "CLAIM-4", "a claim emits discarded for what it takes", w.claim_discarded),
    _mutant("inserted-before-discarded", "NOTIFY-3", "replace notifies inserted before discarded",
            w.inserted_before_discarded),
    _mutant("clear-next-turn-first", "SPLICE-8", "clear() cancels next-turn before next-step",
            w.clear_order_swapped),
    _mutant("blocked-turn-chains", "CHAIN-2", "a blocked turn chains into the next turn", w.blocked_then_turn),
)
"""The first mutants, one per rule the first suite was known to catch (drive shrinks each of them)."""

MUTANTS: tuple[Mutant, ...] = (
    FIRST + edit_bugs.MUTANTS + identity_bugs.MUTANTS + notify_bugs.MUTANTS + turn_bugs.MUTANTS
    + decide_bugs.MUTANTS + end_bugs.MUTANTS + restart_bugs.MUTANTS + record_bugs.MUTANTS
)
"""Every mutant: at least one per rule the protocol can show broken, over every area of the spec."""
BY_NAME = {m.name: m for m in MUTANTS}


def handler(name: str) -> MutantHandler:
    """The named mutant as a protocol handler (``KeyError`` for an unknown name)."""
    return MutantHandler(BY_NAME[name])
