"""Shared by the benchmark scripts (not a test): the logs they check and how they time.

Logs are written in the real format by :func:`check.synthetic_logs.generate` (a test fixture; a valid session
of sends, edits, cancels, crashes, tool steps, ...), in three shapes:

* ``structural``: inbox records and turn/step records only (``agent/inbox/spliced``,
  ``turn/*``, ``step/*``, ``user/message``, ``session/end-seed``), with a queue of ``pending``
  follow-ups kept waiting (default 3);
* ``chunks``: every step streams 40 to 80 ``assistant/chunk`` deltas between ``request/header``
  and ``assistant/message`` (and tool calls), as a real model does;
* either of them with a deep queue (``pending`` = 10,000).

Timing: CPU time of this process (``time.process_time``), so other load on the machine counts
less; the two sides of a ratio are run alternately ``repeat`` times and the medians compared, so
a burst of load hits both.  Every log is checked to be valid first: a benchmark of a rejected log
would time the wrong thing.
"""

from __future__ import annotations

import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from loopspec.check.runner import check_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the log generator is a test fixture

from check.synthetic_logs import generate

STRUCTURAL_TYPES = frozenset({
    "agent/inbox/spliced", "turn/start", "turn/end", "step/start", "step/end", "user/message", "session/end-seed",
})


def _structural(events: int, pending: int, seed: int) -> Iterator[dict[str, object]]:
    """The session's inbox and lifecycle records only, renumbered (the model side left out)."""
    seq = 0
    for event in generate(random.Random(seed).randrange, events * 4, chunks=0, backlog=pending):
        if event["type"] not in STRUCTURAL_TYPES:
            continue
        event["seq"] = seq
        seq += 1
        yield event
        if seq >= events:
            return


def write_log(path: Path, shape: str, events: int, pending: int = 3, seed: int = 1, chunks: int = 40) -> int:
    """Write a log of ``shape`` (``structural``, or ``chunks``: ``chunks`` to twice that many deltas
    per step); the number of events written."""
    if shape == "structural":
        source = _structural(events, pending, seed)
    elif shape == "chunks":
        source = generate(random.Random(seed).randrange, events, chunks=chunks, backlog=pending)
    else:
        raise ValueError(f"unknown log shape {shape!r}")
    count = 0
    with path.open("wb") as out:
        for event in source:
            out.write(orjson.dumps(event) + b"\n")
            count += 1
    result = check_file(path)
    if result.status != "valid":
        raise SystemExit(f"benchmark log {path} is not valid: {result.violations[:1]}")
    return count


def bare_parse(path: Path) -> None:
    """The floor: orjson parses every line, nothing else."""
    loads = orjson.loads
    with path.open("rb") as stream:
        for line in stream:
            loads(line)


def check(path: Path) -> None:
    result = check_file(path)
    if result.status != "valid":
        raise SystemExit(f"{path} is not valid: {result.violations[:1]}")


def cpu_seconds(work: Callable[[], object]) -> float:
    gc.collect()
    started = time.process_time()
    work()
    return time.process_time() - started


def interleaved(sides: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """CPU seconds of each side, run alternately ``repeat`` times."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(repeat):
        for name, work in sides.items():
            times[name].append(cpu_seconds(work))
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def machine() -> str:
    """One line naming where the numbers were taken."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()} CPUs ({model}), load average {load:.1f}, Python {sys.version.split()[0]}, "
            f"{time.strftime('%Y-%m-%d')}")


def parse_ratio(shape: str, goal: float, default_events: int = 1_000_000) -> None:
    """Figures 1 and 2: ``check`` against a bare orjson parse of the same log, one run."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=f"check / bare orjson parse on a {shape} log")
    parser.add_argument("--events", type=int, default=default_events)
    parser.add_argument("--repeat", type=int, default=5, help="alternating runs of each side (medians compared)")
    parser.add_argument("--keep", type=Path, help="write the log here instead of a temporary directory")
    if shape == "chunks":
        parser.add_argument("--chunks", type=int, default=40, help="streamed deltas per step: N to 2N")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        log = where / f"{shape}.events.jsonl"
        events = write_log(log, shape, args.events, chunks=getattr(args, "chunks", 40))
        print(f"{machine()}")
        print(f"log: {events:,} events ({shape}), {log.stat().st_size / 1e6:.0f} MB")
        times = interleaved({"bare": lambda: bare_parse(log), "check": lambda: check(log)}, args.repeat)
    bare, checked = median(times["bare"]), median(times["check"])
    print(f"bare orjson parse: {bare:.2f} s CPU ({events / bare:,.0f} lines/s); runs {_shown(times['bare'])}")
    print(f"loopspec check:    {checked:.2f} s CPU ({events / checked:,.0f} events/s); runs {_shown(times['check'])}")
    print(f"ratio check / bare parse ({shape}): {checked / bare:.2f}x (goal <= {goal}x)")


def _shown(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"
