"""The exploration forks and keys the checker's trackers by their own ``KEYED`` fields (LOG-10, LOG-11, CANCEL-5).

A tracker moved out of the checker's slots must key as its fields did when they were slots: a
surface fold's seqs are numbering the model's logs never read again (its ``KEYED`` is empty), and
the open step's call ids and last tool/call are canonicalised like any checker slot of that name.
When the open step first became a tracker, the surface fold was keyed by its nodes and the ci
search met 44,794 states instead of 14,025; a fork that shared the open step's sets would let one
path's calls leak into another's.
"""

from __future__ import annotations

from loopspec.check.open_step import OpenStep
from loopspec.explore import log_rules
from loopspec.statespace.canon import Renaming


def _key(checker: object) -> object:
    return log_rules.checker_key(checker, Renaming(symmetric=False))  # type: ignore[arg-type]


def test_the_surface_fold_is_not_keyed() -> None:
    """LOG-12: two checkers apart only in their surface fold's seqs key alike."""
    one, two = log_rules.fresh(), log_rules.fresh()
    two.surface.nodes.append(7)
    assert _key(one) == _key(two)


def test_the_open_step_keys_call_ids_without_their_turn() -> None:
    """LOG-11: calls call-1.1.1 and call-2.1.1 at the same place of a step key alike; call-1.1.2 apart."""
    keys = []
    for call in ("call-1.1.1", "call-2.1.1", "call-1.1.2"):
        checker = log_rules.fresh()
        checker.this_step.unanswered.append(call)
        checker.this_step.started_at = (checker.next_seq - 1, call)
        keys.append(_key(checker))
    assert keys[0] == keys[1] != keys[2]


def test_a_fork_owns_its_open_step() -> None:
    """LOG-10: what one fork's step announces, starts or answers is not the other's."""
    checker = log_rules.fresh()
    checker.this_step.announced_again("call-1.1.1")
    fork = log_rules.fork(checker)
    assert isinstance(fork.this_step, OpenStep)
    assert fork.this_step is not checker.this_step
    fork.this_step.call_started("call-1.1.1", 4)
    fork.this_step.results_done(["call-1.1.1"])
    assert checker.this_step.announced == {"call-1.1.1"}
    assert not checker.this_step.calls
    assert checker.this_step.call_seqs == {}
    assert fork.this_step.call_seqs == {"call-1.1.1": 4}
    assert _key(checker) != _key(fork)
