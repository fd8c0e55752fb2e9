"""Checking many logs, serially or in worker processes, with results in input order.

Each log is checked independently by :func:`loopspec.check.runner.check_file`, a pure function
of the file and the options, so a parallel run returns exactly the serial run's results (timings
aside, which :class:`~loopspec.check.verdict.LogResult` leaves out of equality).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult

Progress = Callable[[int, int], None]


def _results(paths: Sequence[Path], options: CheckOptions, jobs: int) -> Iterator[LogResult]:
    work = partial(check_file, options=options)
    if jobs <= 1 or len(paths) <= 1:
        yield from map(work, paths)
        return
    from concurrent.futures import ProcessPoolExecutor  # only when forking: it costs start-up time

    chunk = max(1, min(64, len(paths) // (jobs * 8)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(work, paths, chunksize=chunk)


def check_files(
    paths: Sequence[Path], options: CheckOptions | None = None, jobs: int = 1, progress: Progress | None = None
) -> list[LogResult]:
    """Verdicts on ``paths`` in order; ``progress(done, total)`` after each one."""
    results: list[LogResult] = []
    for result in _results(paths, options or CheckOptions(), jobs):
        results.append(result)
        if progress is not None:
            progress(len(results), len(paths))
    return results
