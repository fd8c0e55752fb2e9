"""Benchmark (not a test): start-up of ``loopspec check EMPTY_FILE`` against ``python -c pass``.

    python benchmarks/startup.py [--runs 21]

Both commands run as child processes, interleaved, ``--runs`` times each; the figure is the ratio
of the medians of their CPU time (user + system, from ``os.wait4``), so other load on the machine
touches both sides alike.  The wall-clock medians are printed too.  The ``loopspec`` script is
the one installed next to this interpreter (the project's ``.venv``).  The package's bytecode is
compiled first, as an installed wheel's is: with ``PYTHONDONTWRITEBYTECODE`` set (as in this
project's environment) an editable install would otherwise compile every module on every run.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4; keep Popen from waiting again
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("loopspec")
    if not script.exists():
        raise SystemExit(f"no loopspec script next to {sys.executable}: install the project first")
    import loopspec

    for folder in loopspec.__path__:
        compileall.compile_dir(folder, quiet=1)
    with tempfile.TemporaryDirectory() as scratch:
        empty = Path(scratch, "empty.events.jsonl")
        empty.write_bytes(b"")
        sides = {"python -c pass": [sys.executable, "-c", "pass"],
                 "loopspec check EMPTY": [str(script), "check", str(empty)]}
        cpu: dict[str, list[float]] = {name: [] for name in sides}
        wall: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, argv in sides.items():
                c, w = _run(argv)
                cpu[name].append(c)
                wall[name].append(w)
    for name in sides:
        print(f"{name:22s} CPU median {statistics.median(cpu[name]) * 1e3:6.1f} ms, "
              f"wall median {statistics.median(wall[name]) * 1e3:6.1f} ms ({args.runs} runs)")
    ratio = statistics.median(cpu["loopspec check EMPTY"]) / statistics.median(cpu["python -c pass"])
    wall_ratio = statistics.median(wall["loopspec check EMPTY"]) / statistics.median(wall["python -c pass"])
    wall_ms = statistics.median(wall["loopspec check EMPTY"]) * 1e3
    print(f"ratio loopspec check EMPTY / python -c pass: {ratio:.1f}x CPU, {wall_ratio:.1f}x wall; "
          f"{wall_ms:.0f} ms wall (goal: about 100 ms wall, 8x)")


if __name__ == "__main__":
    main()
