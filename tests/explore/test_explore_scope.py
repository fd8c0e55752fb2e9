"""``loopspec explore`` exhausts the profile's scope with every invariant holding, and reaches every row and pair.

The exploration checks on every transition the four headline invariants (a claim is an ownership
transfer, CLAIM-1 … CLAIM-5, DECIDE-1; a rejection is balanced and opens no step, DECIDE-5; ids are
unique across both lists, DATA-5; replay equals the live state, FOLD-5, REPAIR-1, REPAIR-4), the log
checker's rules on every log the model writes, emission order (NOTIFY-2, NOTIFY-4, CLAIM-4,
STATUS-1), the coordinate rules of public edits (NORM-1 … NORM-5, SPLICE-1, SPLICE-8) and that no
command raises anything but a rule refusal.  Under ``ci`` the scope reaches every lifecycle-table
row (INPUT-4: the table is all live) and every row pair that a strictly larger scope reaches.
"""

from __future__ import annotations

import pytest

from explore.profile_scope import SCOPE_NAME, SHARES_THE_EXPLORATION, profile_exploration
from loopspec.loop.lifecycle import TABLE
from loopspec.statespace.scope import SCOPES, Scope
from statespace.fixtures import shortest_witnesses

INVARIANT_RULES = (
    "CLAIM-1", "CLAIM-4", "CLAIM-5", "DECIDE-1", "DECIDE-5", "DATA-5", "FOLD-5", "REPAIR-1", "REPAIR-4",
    "NOTIFY-2", "NOTIFY-4", "STATUS-1", "NORM-1", "NORM-2", "NORM-3", "NORM-5", "SPLICE-1", "SPLICE-8",
)


@SHARES_THE_EXPLORATION
@pytest.mark.rule(*INVARIANT_RULES)
def test_the_profile_scope_is_exhausted_and_every_invariant_holds() -> None:
    result = profile_exploration()
    assert result.counterexample is None, result.counterexample
    assert result.complete, "the scope was not searched to its depth bound"
    assert result.depth == SCOPES[SCOPE_NAME].depth or result.closed
    assert result.states == sum(result.levels)
    assert result.levels[0] == 1


@SHARES_THE_EXPLORATION
def test_the_tests_that_share_the_exploration_share_a_worker(request: pytest.FixtureRequest) -> None:
    """Spread over workers, each would explore the scope again (silently doubling CI's time):
    pytest-xdist groups a test by adding ``@group`` to its id, which pytest 9.2 no longer lets it
    do (pyproject.toml pins pytest below it)."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run with --dist loadgroup (scripts/test.sh passes it)")
    assert request.node.nodeid.endswith("@profile-exploration"), (
        f"pytest {pytest.__version__} with this pytest-xdist does not group tests: {request.node.nodeid}")


# The row whose pairs the ci scope (--ids 2 --depth 6) cannot reach, and why: a drain needs two
# started calls and an abort first (the last started call's answer closes the step, finding F9) --
# followup, decide, tool-call, tool-call, cancel, tool-result: six commands (CANCEL-5), so a pair
# with the drain on either side needs seven.  (Two drains in a row need a third call: eight.)
LONGER = "stepping/step-result/draining"
# And the rows of a point inside a clear or a cancel (loop-grain row 22, decisions G23): such a call
# stops inside itself only with input in next-step first, so a pair through one at the turn-stopping
# await point, after an abort, needs seven commands too: followup, decide, stop, cancel, inject,
# the clear that stops, and what follows it.
INSIDE_A_CALL = ("clearing/", "canceling/", "/clear-splits", "/clears-next-step", "/clears-next-turn", "prompting/")


def _longer(pair: tuple[str, str]) -> bool:
    return any(LONGER in row or any(part in row for part in INSIDE_A_CALL) for row in pair)


@SHARES_THE_EXPLORATION
@pytest.mark.rule("INPUT-4")
def test_the_ci_scope_fires_every_row_and_every_reachable_pair() -> None:
    """Every row fires; and a larger scope (one command deeper, one id more) reaches no further pair."""
    if SCOPE_NAME == "dev":
        pytest.skip("the dev scope is too small to fire every row; run with HYPOTHESIS_PROFILE=ci")
    result = profile_exploration()
    assert not result.missing_rows(), result.missing_rows()
    scope = SCOPES[SCOPE_NAME]
    for larger in (Scope(scope.ids, scope.depth + 1), Scope(scope.ids + 1, scope.depth)):
        witnesses = shortest_witnesses(larger)
        beyond = set(witnesses) - set(result.pairs)
        unexplained = {pair for pair in beyond if not _longer(pair)}
        assert not unexplained, f"{larger.label()} reaches row pairs the scope does not: {sorted(unexplained)}"
        for pair in beyond:  # each needs exactly the one command more, as LONGER and INSIDE_A_CALL say
            assert len(witnesses[pair]) == scope.depth + 1 == 7, (pair, witnesses[pair])
    assert len(TABLE) == len(result.rows)
