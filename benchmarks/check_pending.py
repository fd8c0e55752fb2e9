"""Benchmark (not a test): the checker's cost per event with 10,000 messages pending against 3.

    python benchmarks/check_pending.py [--events 200000] [--repeat 5] [--shape chunks|structural]

Figure 3 of docs/performance.md.  Two logs of the same session shape, one keeping 3 follow-ups
queued, one keeping 10,000 (each turn claims one and a new one is sent): the inbox fold must cost
the same per event however long the queue (the lanes move a head instead of copying lists).
Also prints the cost per event at 10, 100 and 1,000 pending.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from bench_common import check, interleaved, machine, median, write_log

DEPTHS = (3, 10, 100, 1_000, 10_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shape", choices=("chunks", "structural"), default="chunks")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as scratch:
        logs = {depth: Path(scratch, f"pending-{depth}.events.jsonl") for depth in DEPTHS}
        counts = {depth: write_log(path, args.shape, args.events, pending=depth, seed=2)
                  for depth, path in logs.items()}
        sides: dict[str, Callable[[], object]] = {str(depth): partial(check, path) for depth, path in logs.items()}
        times = interleaved(sides, args.repeat)
    per_event = {depth: median(times[str(depth)]) / counts[depth] for depth in DEPTHS}
    for depth in DEPTHS:
        print(f"  {depth:>6} pending: {per_event[depth] * 1e6:.2f} us/event ({counts[depth]:,} events, {args.shape})")
    print(f"ratio per-event cost 10,000 pending / 3 pending: {per_event[10_000] / per_event[3]:.2f} (goal <= 1.2)")


if __name__ == "__main__":
    main()
