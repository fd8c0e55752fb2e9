"""Every row of the lifecycle table fires in a run of the stateful machine (INPUT-4's table is all live).

The table in :mod:`loopspec.loop.lifecycle` is what the agent executes, and
:attr:`AgentTransition.fired` lists the row keys a command fired (including the rows of listener
actions and of the choice points passed through).  A row that never fires is either unreachable
(dead specification) or a gap in the machine's moves; both must be fixed.

The run is the machine of ``test_agent_stateful`` without its checks (that test proves them), under
the active Hypothesis profile and without the example database, so counts do not depend on earlier
runs.  The rarest rows (an edit or a raising stop hook while turn stopping is pending, an empty
entry after turn stopping steered) need the ``ci`` budget: with it every row fired at least 19 times
in each of ten runs on 2026-12-01; the 60-example ``dev`` profile misses one now and then, so it
skips this test.  Two rows once came too close to never: CANCEL-5's drain (5 to 21 times a run,
none in one CI run) and a restart while turn stopping is pending (5 to 57); each now has an opening
of its own (``lifecycle_moves.OPENINGS``), after which the stateful checks follow the path.
The points inside a clear or a cancel (decisions G23) added rows that fired 0 to 4 times in some
ci runs (one CI run and one run in four failed); with openings and moves of their own every row
fired at least 8 times in each of six runs on 2026-12-05.  The hops prompting and replaying
(decisions G25, G26) added rows that fired once or twice in some ci runs from the moves alone,
and diluted others: one CI run never fired ``failing/edit/clear-splits``.  With openings for both
hops (``_PROMPTING``, ``_REPLAYING``) and for a clear inside ``failing`` and a cancel after the
decision returned, the least-fired row of four runs on 2026-12-05 fired at least 7 times.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from loop.agent_machine import AgentMachine
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.state import AgentTransition

CI_BUDGET = 500 * 50  # the ci profile's examples times steps


def fired_rows() -> Counter[str]:
    counts: Counter[str] = Counter()

    class CountingMachine(AgentMachine):
        CHECKS = False  # the checks are the stateful test's job; here only the rows matter

        def record(self, transition: AgentTransition) -> None:
            counts.update(transition.fired)

    run_state_machine_as_test(CountingMachine, settings=settings(database=None))
    return counts


@pytest.mark.rule("INPUT-4")
def test_every_table_row_fires() -> None:
    profile = settings()
    if profile.max_examples * profile.stateful_step_count < CI_BUDGET:
        pytest.skip("row coverage needs at least the ci profile's budget (HYPOTHESIS_PROFILE=ci)")
    counts = fired_rows()
    keys = [row.key for row in TABLE]
    assert len(set(keys)) == len(keys), "row keys must be unique to be counted"
    assert set(counts) <= set(keys), f"fired keys outside the table: {sorted(set(counts) - set(keys))}"
    never = [key for key in keys if counts[key] == 0]
    assert not never, f"rows that never fired: {never}; counts: {dict(counts)}"
