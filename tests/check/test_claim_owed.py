"""What a boundary's claim still owes, as its own tracker (TURN-4, CLAIM-1, CLAIM-2, CLAIM-6).

The tracker's moves one by one, and the two things the checker relies on that no log test pins on
their own: the table's chooser sees a completed claim exactly once, and a fork of the checker owns
the messages its boundary's claim took so far.
"""

from __future__ import annotations

import pytest

from loopspec.check.claim_owed import ClaimOwed
from loopspec.explore import log_rules


def _message(mid: str) -> dict[str, object]:
    return {"id": mid, "role": "user", "content": [], "source": {}}


@pytest.mark.rule("TURN-4", "CLAIM-1")
def test_the_first_boundary_owes_next_step_then_one_next_turn_message() -> None:
    """TURN-4, CLAIM-1: both parts are owed; next-step's record leaves next-turn's owed."""
    claim = ClaimOwed()
    claim.turn_opened(next_step=True, next_turn=True)
    assert claim.owed
    assert claim.due_ns
    assert claim.due_nt
    assert claim.done is None
    assert not claim.took((_message("a"),), next_step=True)  # next-turn's part is still owed
    assert claim.owed
    assert not claim.due_ns
    assert claim.due_nt
    assert claim.took((_message("b"),), next_step=False)  # the last part owed completes the claim
    assert not claim.owed
    assert claim.done == (_message("a"), _message("b"))
    assert claim.batch == []
    assert claim.chosen()


@pytest.mark.rule("TURN-4")
def test_a_turn_with_nothing_pending_owes_nothing_and_has_claimed_nothing() -> None:
    """TURN-4: an empty inbox at turn/start: no claim record is due, and the claim took nothing."""
    claim = ClaimOwed()
    claim.turn_opened(next_step=False, next_turn=False)
    assert not claim.owed
    assert claim.done == ()


@pytest.mark.rule("CLAIM-1")
def test_the_chooser_sees_a_completed_claim_once() -> None:
    """CLAIM-1: the phase table moves to deciding on the record that completes the claim, not after."""
    claim = ClaimOwed()
    assert not claim.chosen()
    claim.complete()
    assert claim.chosen()
    assert not claim.chosen()


@pytest.mark.rule("CLAIM-6")
def test_a_step_end_owes_next_step_only_and_a_closed_turn_owes_nothing() -> None:
    """CLAIM-6: after step/end only next-step is owed; turn/end drops what was owed and taken."""
    claim = ClaimOwed()
    claim.turn_opened(next_step=False, next_turn=True)
    claim.took((_message("a"),), next_step=None)
    claim.step_closed(next_step=True)
    assert claim.due_ns
    assert not claim.due_nt
    assert claim.batch == []
    claim.took((_message("b"),))
    claim.turn_closed()
    assert not claim.owed
    assert claim.batch == []


@pytest.mark.rule("CLAIM-2")
def test_a_fork_owns_the_messages_its_claim_took() -> None:
    """CLAIM-2: what one explored path's claim took is not another's."""
    checker = log_rules.fresh()
    checker.claim.turn_opened(next_step=True, next_turn=True)
    checker.claim.took((_message("a"),), next_step=True)
    fork = log_rules.fork(checker)
    assert fork.claim is not checker.claim
    fork.claim.took((_message("b"),), next_step=False)
    assert checker.claim.batch == [_message("a")]
    assert checker.claim.due_nt
    assert not fork.claim.due_nt


@pytest.mark.rule("CLAIM-1")
def test_a_later_boundarys_one_record_completes_its_claim() -> None:
    """CLAIM-1: after a step/end, the claim that comes is one record, whatever the tracker still owed."""
    claim = ClaimOwed()
    claim.step_closed(next_step=True)
    assert not claim.took((_message("b"),))
    assert claim.took((_message("a"),), completes=True)
    assert claim.done == (_message("b"), _message("a"))
    assert claim.chosen()
