"""Checking many logs, serially or in worker processes, with results in input order.

Each log is checked independently by :func:`loopspec.check.runner.check_file`, a pure function
of the file and the options, so a parallel run returns exactly the serial run's results (timings
aside, which :class:`~loopspec.check.verdict.LogResult` leaves out of equality).

Forking only pays when there is work to share: :func:`plan` measures the work first (the bytes
to read; for ``.gz`` the uncompressed size its trailer records) and stays in this process below
:data:`MIN_PARALLEL_BYTES`, or when one log holds nearly all of it.  Otherwise the logs are dealt
into batches of about equal size, largest first, a few per worker so a slow batch cannot leave
the others idle; workers are forked from this process and so carry only what it imported (the
checker, never the vectors).  docs/performance.md has the measurements behind the numbers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult

if TYPE_CHECKING:
    from loopspec.check.reader import LogPath

Progress = Callable[[int, int], None]
# Below this much input one process wins: at the checker's slowest (about 25 MB/s, logs of inbox
# and lifecycle records only) it is a tenth of a second, against some 50 ms of CPU to import, fork
# and feed a pool of two (docs/performance.md).
MIN_PARALLEL_BYTES = 3_000_000
BATCHES_PER_JOB = 4
GZIP_TRAILER = 4


def work_of(path: LogPath) -> int:
    """The bytes ``path`` makes the checker read (0 when it cannot be looked at: the check says why)."""
    try:
        size = os.stat(path).st_size
        if os.fspath(path).endswith(".gz") and size >= 18:  # gzip's trailer ends with ISIZE: the size mod 2**32
            with open(path, "rb") as stream:
                stream.seek(-GZIP_TRAILER, os.SEEK_END)
                return max(size, int.from_bytes(stream.read(GZIP_TRAILER), "little"))
        return size
    except OSError:
        return 0


def plan(paths: Sequence[LogPath], jobs: int) -> list[list[int]]:
    """Batches of indexes into ``paths``, one per task; a single batch means: do not fork."""
    if jobs <= 1 or len(paths) <= 1:
        return [list(range(len(paths)))]
    sizes = [work_of(p) for p in paths]
    total = sum(sizes)
    if total < MIN_PARALLEL_BYTES or max(sizes) * 10 >= total * 9:
        return [list(range(len(paths)))]
    count = min(len(paths), jobs * BATCHES_PER_JOB)
    batches: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for index in sorted(range(len(paths)), key=lambda i: -sizes[i]):  # largest first, onto the lightest
        lightest = loads.index(min(loads))
        batches[lightest].append(index)
        loads[lightest] += sizes[index]
    order = sorted(range(count), key=lambda b: -loads[b])  # the biggest batches start first
    return [sorted(batches[b]) for b in order if batches[b]]


def check_batch(paths: Sequence[LogPath], options: CheckOptions) -> list[LogResult]:
    """One worker's task: the verdicts on ``paths``, in order."""
    return [check_file(path, options) for path in paths]


def _results(paths: Sequence[LogPath], options: CheckOptions, jobs: int) -> Iterator[tuple[int, LogResult]]:
    batches = plan(paths, jobs)
    if len(batches) == 1:
        for index in batches[0]:
            yield index, check_file(paths[index], options)
        return
    import multiprocessing  # only when forking: they cost start-up time
    from concurrent.futures import ProcessPoolExecutor, as_completed

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=min(jobs, len(batches)), mp_context=context) as pool:
        futures = {pool.submit(check_batch, [paths[i] for i in batch], options): batch for batch in batches}
        for future in as_completed(futures):
            yield from zip(futures[future], future.result(), strict=True)


def check_files(
    paths: Sequence[LogPath], options: CheckOptions | None = None, jobs: int = 1, progress: Progress | None = None
) -> list[LogResult]:
    """Verdicts on ``paths`` in order; ``progress(done, total)`` as they come in."""
    results: list[LogResult | None] = [None] * len(paths)
    for done, (index, result) in enumerate(_results(paths, options or CheckOptions(), jobs), start=1):
        results[index] = result
        if progress is not None:
            progress(done, len(paths))
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]
