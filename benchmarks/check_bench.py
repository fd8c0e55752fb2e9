"""Benchmark of ``loopspec check`` (not a test): speed against a bare JSON parse, and flatness.

    python benchmarks/check_bench.py [--events 1000000] [--repeat 3] [--keep DIR]

1. Writes a valid log of ``--events`` events with :func:`check.synthetic_logs.generate` (in ``tests/``)
   (follow-ups, turns, claims, steps, tool calls, steering, cancels, crashes, and 40-80 streamed
   ``assistant/chunk`` events per step, as a real model's token stream produces).
2. Times, best of ``--repeat`` (CPU time of this process, so other load on the machine matters
   less): a bare parse of every line with the fastest JSON parser installed (orjson, else the
   standard library), and ``check_file`` on the same file; prints the ratio (the aim is <= 2.5).
3. Checks logs that keep 10, 100, 1,000 and 10,000 messages pending and prints the cost per
   event, which should stay flat.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

from loopspec.check.runner import check_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the log generator is a test fixture

from check.synthetic_logs import generate

try:
    import orjson

    dumps: Callable[[object], bytes] = orjson.dumps
    bare_loads: Callable[[bytes], object] = orjson.loads
    PARSER = "orjson"
except ImportError:  # pragma: no cover
    PARSER = "json"

    def dumps(value: object) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

    bare_loads = json.loads


def write_log(path: Path, events: int, seed: int, backlog: int = 0) -> Counter[str]:
    mix: Counter[str] = Counter()
    choose = random.Random(seed).randrange
    with path.open("wb") as out:
        for event in generate(choose, events, chunks=40, backlog=backlog):
            mix[str(event["type"])] += 1
            out.write(dumps(event) + b"\n")
    return mix


def bare_parse(path: Path) -> None:
    loads = bare_loads  # the parser alone: not the checker's reading, which also refuses repeated keys
    with path.open("rb") as stream:
        for line in stream:
            loads(line)


def cpu_seconds(work: Callable[[], object]) -> float:
    gc.collect()
    started = time.process_time()
    work()
    return time.process_time() - started


def check_valid(path: Path) -> None:
    result = check_file(path)
    if result.status != "valid":
        raise SystemExit(f"benchmark log is not valid: {result.violations[:1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--flat-events", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, help="write the logs here instead of a temporary directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        log = where / "bench.events.jsonl"
        mix = write_log(log, args.events, seed=1)
        total = sum(mix.values())
        size = log.stat().st_size
        print(f"log: {total:,} events, {size / 1e6:.0f} MB; mix: "
              + ", ".join(f"{k} {v / total:.1%}" for k, v in mix.most_common(6)))
        bare, check = float("inf"), float("inf")
        for _ in range(args.repeat):  # interleaved, best of each: robust against a busy machine
            bare = min(bare, cpu_seconds(lambda: bare_parse(log)))
            check = min(check, cpu_seconds(lambda: check_valid(log)))
        print(f"bare parse ({PARSER}): {bare:.2f} s ({total / bare:,.0f} lines/s)")
        print(f"loopspec check:      {check:.2f} s ({total / check:,.0f} events/s)")
        print(f"ratio check / bare parse: {check / bare:.2f} (aim <= 2.5)")
        print("cost per event against pending messages (same session shape, a queue kept that long):")
        for backlog in (10, 100, 1_000, 10_000):
            path = where / f"backlog-{backlog}.events.jsonl"
            n = sum(write_log(path, args.flat_events, seed=2, backlog=backlog).values())
            best = min(cpu_seconds(partial(check_valid, path)) for _ in range(args.repeat))
            print(f"  {backlog:>6} pending: {best / n * 1e6:.2f} us/event")


if __name__ == "__main__":
    main()
