"""One exploration of a scope: the search, the coverage it reached, the summary.

:func:`explore` runs :func:`loopspec.statespace.search.breadth_first` over the exploration space
(in this process, or partitioned over worker processes by :mod:`.parallel`) and returns an
:class:`Exploration`: the counts, the lifecycle-table rows and row pairs reached (with shortest
witnesses), and the first broken invariant with its shortest command sequence, if any.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from loopspec.explore.invariants import Problem
from loopspec.explore.result import Counterexample, Exploration
from loopspec.explore.space import ExplorationSpace
from loopspec.statespace.pairs import RowPairs
from loopspec.statespace.scope import Scope
from loopspec.statespace.search import Outcome, breadth_first

if TYPE_CHECKING:
    from loopspec.explore.adapter_pool import Checks
    from loopspec.vectors.drive_check import Checker


def explore(
    scope: Scope,
    *,
    classes: bool = True,
    workers: int = 1,
    max_states: int | None = None,
    seconds: float | None = None,
    against: Checker | Checks | None = None,
) -> Exploration:
    """Search every execution of ``scope``, checking every invariant on every transition.

    ``against`` also compares every transition with an implementation's answers
    (:mod:`.conformance`: one search, no command classes; a checker, or the checks of
    :mod:`.adapter_pool`, which may spread the sequences over worker processes).
    """
    if workers > 1 and against is None:
        from loopspec.explore.parallel import explore_parallel

        return explore_parallel(scope, workers, classes=classes, max_states=max_states, seconds=seconds)
    started, cpu = time.perf_counter(), time.process_time()
    pairs = RowPairs(scope.depth)
    deadline = None if seconds is None else started + seconds
    out: Outcome[Any]
    processes, elsewhere = 1, 0.0
    if against is not None:
        from loopspec.explore.adapter_pool import InlineChecks
        from loopspec.explore.conformance import ConformanceSpace
        from loopspec.vectors.drive_check import Checker

        checks = InlineChecks(against) if isinstance(against, Checker) else against
        processes = checks.workers
        out = breadth_first(ConformanceSpace(scope, checks), scope.depth, arrive=pairs.arrive,
                            max_states=max_states, deadline=deadline)
        elsewhere = checks.cpu_seconds  # the workers' own (the adapters' are not counted, as serially)
    else:
        out = breadth_first(ExplorationSpace(scope, classes=classes), scope.depth, arrive=pairs.arrive,
                            max_states=max_states, deadline=deadline)
    found = None
    if out.found is not None:
        assert isinstance(out.found.problem, Problem)
        path, problem = out.found.path, out.found.problem
        found = Counterexample((*path[:-1], *problem.before, *path[-1:]) if problem.before else path, problem)
    return Exploration(
        scope, out.states, out.transitions, out.commands, out.depth, tuple(out.levels), out.complete, out.closed,
        time.perf_counter() - started, time.process_time() - cpu + elsewhere, processes, pairs.row_witnesses(),
        pairs.pair_witnesses(), found,
    )
