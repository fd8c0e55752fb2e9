"""Benchmark (not a test): an older tree against this one, side by side in one run.

    python benchmarks/tree_compare.py OLD_REV [--new REV] [--repeat 5] [--only startup,structural,...]
    python benchmarks/tree_compare.py OLD_REV --instructions [--only ...]

Restructurings must not cost speed (issue 24), and this machine's speed drifts by up to 1.7x
within an hour (docs/performance.md), so the two trees are timed alternately, A B A B, and each
pair gives its own ratio; the figure is the median of those ratios.  ``OLD_REV`` (and ``--new``,
by default the working tree) is unpacked with ``git archive`` into a scratch folder and compiled
first, so neither side pays for compiling.  Every workload runs as a child process
``python -m loopspec ...`` with ``PYTHONPATH`` pointing at one tree's ``model/``; its CPU time
(user + system, with the adapter processes it waited for) comes from ``os.wait4``.

``--instructions`` counts instead of timing: each workload runs once per tree under valgrind's
callgrind, which counts the instructions the Python process executes (not its child processes:
``drive``'s adapter is left out).  A count does not drift with the machine's speed, so a 1%
difference shows where CPU ratios on this machine scatter by 5-15%; it does not see cache
misses, so it complements the CPU ratios rather than replacing them.  The check workloads are also
given net of the start-up workload's count (the per-record work alone) when ``startup`` is
measured in the same run.  The two trees run at once (a count does not depend on the load); under
callgrind a workload runs about 50 times slower: ``explore --scope ci`` takes some 20 minutes.

Workloads (``--only`` picks some):

* ``startup``: ``check`` of an empty log;
* ``structural``: ``check`` of a log of inbox and turn/step records (bench_common.py), 200,000 events;
* ``chunks``: ``check`` of a chunk-heavy log (40-80 streamed deltas a step), 400,000 events;
* ``explore``: ``explore --scope ci`` (every invariant and the checker on every transition);
* ``drive``: ``drive`` against the JavaScript example adapter, 100 examples of 30 commands.

Both trees check the same log files, written once by this tree's generator.  A side that exits
other than expected stops the run: timing a failure would time the wrong thing.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs
from bench_common import write_log

ROOT = Path(__file__).resolve().parents[1]


@attrs.frozen
class Workload:
    name: str
    argv: Callable[[Path, Path], list[str]]  # (tree, scratch folder) -> loopspec's arguments
    expect: int = 0


def _adapter(tree: Path) -> list[str]:
    return ["--", "node", str(tree / "examples" / "adapters" / "js" / "adapter.js")]


WORKLOADS = (
    Workload("startup", lambda tree, scratch: ["check", str(scratch / "empty.events.jsonl")]),
    Workload("structural", lambda tree, scratch: ["check", str(scratch / "structural.events.jsonl")]),
    Workload("chunks", lambda tree, scratch: ["check", str(scratch / "chunks.events.jsonl")]),
    Workload("explore", lambda tree, scratch: ["explore", "--scope", "ci"]),
    Workload("drive", lambda tree, scratch: ["drive", "--examples", "100", "--seed", "1", *_adapter(tree)]),
)


def _unpack(rev: str, scratch: Path) -> Path:
    tree = scratch / rev.replace("/", "_")
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def _run(tree: Path, argv: list[str], expect: int) -> float:
    """CPU seconds of ``python -m loopspec ARGV`` over ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree / "model"))
    child = subprocess.Popen([sys.executable, "-m", "loopspec", *argv], cwd=tree, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped by wait4; keep Popen from waiting again
    code = os.waitstatus_to_exitcode(status)
    if code != expect:
        raise SystemExit(f"{tree.name}: loopspec {' '.join(argv)} exited {code}, not {expect}:\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    return usage.ru_utime + usage.ru_stime


_COLLECTED = re.compile(rb"Collected : (\d+)")


def _count(tree: Path, argv: list[str], expect: int) -> float:
    """Instructions executed by ``python -m loopspec ARGV`` over ``tree`` (callgrind's count)."""
    # A fixed hash seed: with a random one, dicts and sets lay out differently from run to run and
    # the count of one tree moved by 0.5%; with it, two runs agree to the instruction or nearly.
    env = dict(os.environ, PYTHONPATH=str(tree / "model"), PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-m", "loopspec", *argv],
                          cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != expect or found is None:
        raise SystemExit(f"{tree.name}: loopspec {' '.join(argv)} under callgrind exited {done.returncode}, "
                         f"not {expect}:\n{done.stderr.decode(errors='replace')[-2000:]}")
    return float(found.group(1))


def _instructions(chosen: list[Workload], old: Path, new: Path, scratch: Path) -> None:
    counts: dict[str, tuple[float, float]] = {}
    for work in chosen:
        # A count does not depend on the load, so the two trees run at once.
        with ThreadPoolExecutor(1) as both:
            old_count = both.submit(_count, old, work.argv(old, scratch), work.expect)
            n = _count(new, work.argv(new, scratch), work.expect)
            o = old_count.result()
        counts[work.name] = (o, n)
        net = ""
        if work.name in ("structural", "chunks") and "startup" in counts:
            o0, n0 = counts["startup"]
            net = f"   net of start-up {(n - n0) / (o - o0):.3f}"
        print(f"{work.name:11s} old {o / 1e6:10.1f} M   new {n / 1e6:10.1f} M   new/old {n / o:.3f}{net}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("old", help="the older revision (a commit, tag or branch)")
    parser.add_argument("--new", help="the newer revision (default: the working tree)")
    parser.add_argument("--repeat", type=int, default=5, help="A B pairs per workload (default: 5)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind's callgrind, once per tree (see above)")
    parser.add_argument("--only", help="comma-separated workloads (default: all): "
                        + ",".join(w.name for w in WORKLOADS))
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind on the PATH (Debian: apt install valgrind)")
    chosen = [w for w in WORKLOADS if not args.only or w.name in args.only.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        old = _unpack(args.old, scratch)
        new = _unpack(args.new, scratch) if args.new else ROOT
        for tree in (old, new):
            compileall.compile_dir(tree / "model", quiet=1)
        (scratch / "empty.events.jsonl").write_bytes(b"")
        write_log(scratch / "structural.events.jsonl", "structural", 200_000)
        write_log(scratch / "chunks.events.jsonl", "chunks", 400_000)
        if args.instructions:
            print(f"old: {args.old}   new: {args.new or 'the working tree'}   instructions executed, millions "
                  f"({time.strftime('%Y-%m-%d %H:%M')})")
            _instructions(chosen, old, new, scratch)
            return
        print(f"old: {args.old}   new: {args.new or 'the working tree'}   {args.repeat} A B pairs, CPU seconds "
              f"(load average {os.getloadavg()[0]:.1f} at the start, {time.strftime('%Y-%m-%d %H:%M')})")
        for work in chosen:
            pairs = [(_run(old, work.argv(old, scratch), work.expect), _run(new, work.argv(new, scratch), work.expect))
                     for _ in range(args.repeat)]
            ratios = sorted(n / o for o, n in pairs)
            print(f"{work.name:11s} old median {statistics.median(o for o, _ in pairs):8.3f} s   "
                  f"new median {statistics.median(n for _, n in pairs):8.3f} s   "
                  f"new/old {statistics.median(ratios):.3f} (pairs {ratios[0]:.3f}-{ratios[-1]:.3f})", flush=True)


if __name__ == "__main__":
    main()
