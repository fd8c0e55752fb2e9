"""Benchmark (not a test): ``loopspec check --jobs 2`` against ``--jobs 1`` over many logs.

    python benchmarks/check_jobs.py [--repeat 5] [--logs 16] [--sizes little,some,more]

Figure 5 of docs/performance.md.  Three folders of ``--logs`` chunk-heavy logs each: a little
work (a few hundredths of a second), some (a few tenths), and more than a second.  Each command
runs as a child process (start-up included, as in CI), the two alternately ``--repeat`` times;
the figure is the ratio of the median wall-clock times (parallelism is about wall time; a busy
machine shows in the spread, which is printed), with the ratio of the CPU time all processes
used (the pool's overhead).  A run of the smallest folder takes about a tenth of a second, so it is
repeated ``REPEAT_FACTOR`` times as often: with five runs, the spread of start-up alone moved its
ratio by 15% between runs of this script.  Goals: never more than 10% slower; at least 1.7x faster when there
is more than a second of work.  Linux schedules all processes of a login session as one group
(autogroup), so on a machine busy with other sessions two workers share what one would get: the
wall-clock speed-up needs a quiet machine; the CPU ratio does not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import machine, write_log

SIZES = {"little work": 600, "some work": 12_000, "more than a second": 80_000}
REPEAT_FACTOR = {"little work": 8, "some work": 2, "more than a second": 1}


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and the workers it waited for)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({status})")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--logs", type=int, default=16)
    parser.add_argument("--sizes", default="little,some,more", help="which folders (first words of their labels)")
    args = parser.parse_args()
    script = str(Path(sys.executable).with_name("loopspec"))
    print(machine())
    with tempfile.TemporaryDirectory() as scratch:
        chosen = set(args.sizes.split(","))
        for label, events in SIZES.items():
            if label.split()[0] not in chosen:
                continue
            folder = Path(scratch, label.replace(" ", "-"))
            folder.mkdir()
            total = sum(write_log(folder / f"log{i:02}.events.jsonl", "chunks", events, seed=i)
                        for i in range(args.logs))
            size = sum(p.stat().st_size for p in folder.iterdir())
            runs: dict[int, list[float]] = {1: [], 2: []}
            cpu: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(args.repeat * REPEAT_FACTOR[label]):
                for jobs in (1, 2):
                    w, c = timed([script, "check", "-q", "--jobs", str(jobs), str(folder)])
                    runs[jobs].append(w)
                    cpu[jobs].append(c)
            one, two = statistics.median(runs[1]), statistics.median(runs[2])
            print(f"{label}: {args.logs} logs, {total:,} events, {size / 1e6:.1f} MB; --jobs 1 {one:.2f} s "
                  f"(runs {min(runs[1]):.2f}-{max(runs[1]):.2f}), --jobs 2 {two:.2f} s "
                  f"(runs {min(runs[2]):.2f}-{max(runs[2]):.2f}); speed-up --jobs 2 / --jobs 1: {one / two:.2f}x wall; "
                  f"CPU --jobs 2 / --jobs 1: {statistics.median(cpu[2]) / statistics.median(cpu[1]):.2f}")


if __name__ == "__main__":
    main()
