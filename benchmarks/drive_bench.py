"""Benchmark of ``loopspec drive`` throughput (not a test): commands per second against an adapter.

    python benchmarks/drive_bench.py [--examples 200] [--steps 30] [--repeat 3] [-- ADAPTER...]

The adapter defaults to the JavaScript example (``node examples/adapters/js/adapter.js``).  Two
ways of driving it are measured in the same run, alternately, best of ``--repeat``:

* **previous** — one request at a time (send, wait for the answer, then the next: reset, and per
  command the command and a ``state``) with every choice drawn through ``st.integers`` strategies,
  as drive did before;
* **current** — each example pipelined (every command written as soon as it is drawn, the
  answers read at the end), choices drawn straight from Hypothesis' choice sequence
  (``drive_draws.SpanChooser``), and the commands of examples Hypothesis cuts short compared too.

For each it prints commands/s by the wall clock and by CPU time (this process plus the adapter
process, read from /proc; on a shared machine the wall clock mostly measures the neighbours), and
the ratio current / previous of both.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from loopspec.vectors import drive_draws
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.drive import drive

ROOT = Path(__file__).resolve().parents[1]
JS = ["node", str(ROOT / "examples" / "adapters" / "js" / "adapter.js")]


def child_cpu(adapter: SubprocessAdapter) -> float:
    """User + system CPU seconds of the adapter process so far (Linux /proc)."""
    fields = Path(f"/proc/{adapter._proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


def measure(adapter: SubprocessAdapter, examples: int, steps: int, previous: bool) -> tuple[float, float]:
    """(commands/s by wall clock, commands/s by CPU) of one drive run."""
    fast = drive_draws.fast_draws
    if previous:
        drive_draws.fast_draws = lambda data: None  # strategy draws, as before
    try:
        cpu0, child0, wall0 = time.process_time(), child_cpu(adapter), time.perf_counter()
        report = drive(adapter, examples=examples, steps=steps, seed=0, lockstep=previous)
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0 + child_cpu(adapter) - child0
    finally:
        drive_draws.fast_draws = fast
    if not report.ok:
        raise SystemExit(f"drive found a disagreement, so this is no throughput run: {report.disagreement}")
    return report.sent / wall, report.sent / cpu


def main(argv: list[str]) -> int:
    adapter_argv = argv[argv.index("--") + 1:] if "--" in argv else JS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    best: dict[bool, tuple[float, float]] = {True: (0.0, 0.0), False: (0.0, 0.0)}
    adapter = SubprocessAdapter(adapter_argv)
    with adapter:
        print(f"adapter: {adapter.implementation}; {args.examples} examples x {args.steps} commands, "
              f"best of {args.repeat}", flush=True)
        for _ in range(args.repeat):
            for previous in (True, False):
                wall, cpu = measure(adapter, args.examples, args.steps, previous)
                best[previous] = (max(best[previous][0], wall), max(best[previous][1], cpu))
    show: Callable[[str, tuple[float, float]], None] = lambda name, rate: print(  # noqa: E731
        f"{name:9} {rate[0]:8,.0f} commands/s (wall)  {rate[1]:8,.0f} commands/s (CPU)")
    show("previous", best[True])
    show("current", best[False])
    wall_ratio, cpu_ratio = best[False][0] / best[True][0], best[False][1] / best[True][1]
    print(f"ratio     {wall_ratio:8.2f} (wall)              {cpu_ratio:8.2f} (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
