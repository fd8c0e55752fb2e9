"""``check --jobs N``: the work is measured before anything forks, and results never change.

A pool is started only for enough input (:data:`MIN_PARALLEL_BYTES`) spread over more than one
log; the logs are dealt into batches of about equal size; a parallel run returns exactly the
serial run's results, in input order.  (Speed is measured by benchmarks/check_jobs.py, never here.)
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions, check_files, parallel
from loopspec.check.reader import discover


def _logs(tmp: Path, sizes: list[int]) -> list[Path]:
    paths = []
    for i, size in enumerate(sizes):
        path = tmp / f"log{i}.events.jsonl"
        path.write_bytes(b"x" * size)
        paths.append(path)
    return paths


def test_small_work_is_not_forked(tmp_path: Path) -> None:
    paths = _logs(tmp_path, [1000] * 50)
    assert parallel.plan(paths, jobs=4) == [list(range(50))]
    assert parallel.plan(paths, jobs=1) == [list(range(50))]


def test_one_log_holding_nearly_all_the_work_is_not_forked(tmp_path: Path) -> None:
    paths = _logs(tmp_path, [parallel.MIN_PARALLEL_BYTES * 2, 1000, 1000])
    assert len(parallel.plan(paths, jobs=2)) == 1


def test_batches_cover_every_log_once_with_about_equal_work(tmp_path: Path) -> None:
    sizes = [300_000 * (1 + i % 7) for i in range(40)]
    paths = _logs(tmp_path, sizes)
    batches = parallel.plan(paths, jobs=2)
    assert 1 < len(batches) <= 2 * parallel.BATCHES_PER_JOB
    assert sorted(i for b in batches for i in b) == list(range(len(paths)))
    loads = [sum(sizes[i] for i in b) for b in batches]
    assert max(loads) - min(loads) <= max(sizes)  # greedy, largest first: off by at most one log
    assert loads == sorted(loads, reverse=True)  # the biggest batches start first


def test_a_compressed_log_counts_its_uncompressed_size(tmp_path: Path) -> None:
    path = tmp_path / "big.events.jsonl.gz"
    with gzip.open(path, "wb") as out:
        out.write(b"{}\n" * 1_000_000)
    assert parallel.work_of(path) == 3_000_000
    assert parallel.work_of(tmp_path / "missing.jsonl") == 0


def test_forked_results_equal_the_serial_results(monkeypatch: pytest.MonkeyPatch) -> None:
    logs, _ = discover([REPO / "examples" / "logs", REAL_TRACES])
    options = CheckOptions(all=True)
    serial = check_files(logs, options, jobs=1)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_BYTES", 0)
    assert len(parallel.plan(logs, jobs=3)) > 1  # this run does fork
    seen: list[tuple[int, int]] = []
    assert check_files(logs, options, jobs=3, progress=lambda done, total: seen.append((done, total))) == serial
    assert seen == [(i, len(logs)) for i in range(1, len(logs) + 1)]
