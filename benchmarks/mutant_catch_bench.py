"""Benchmark of ``loopspec drive`` against the mutants (not a test): examples to the first catch.

    python benchmarks/mutant_catch_bench.py [--seeds 0 1 2] [--examples 300] [--steps 30] [--mutant NAME ...]
                                            [--plain]

For every mutant of ``tests/vectors/mutants`` (in-process adapters; the protocol-v2-only ones are
left out) and every seed, runs ``drive`` with its default budget and no shrinking, and prints how
many examples it took to find the first disagreement (``-`` when the budget ran out).

With ``--plain`` it also runs the generator without its swarm and hints (the mix every example had
before them: ``drive`` draws no swarm and the generator takes no hint) and prints, measured in the
same run, both columns and the ratio of mean examples-to-first-catch, a miss counting as the whole
budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from loopspec.vectors import command_gen, drive
from loopspec.vectors.adapter.client import InProcessAdapter
from vectors.mutants.catalogue import MUTANTS, handler
from vectors.mutants.handler import Mutant


@contextmanager
def plain_generator() -> Iterator[None]:
    """``drive`` as it was before swarms and hints: no swarm per example, no hinted command."""
    plain: dict[tuple[object, str], object] = {
        (drive, "swarms"): lambda: st.none(),
        (command_gen, "hinted"): lambda gen, agent: None,
    }
    saved = {key: getattr(*key) for key in plain}
    try:
        for (module, name), value in plain.items():
            setattr(module, name, value)
        yield
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)


def catch(mutant: Mutant, seed: int, examples: int, steps: int) -> int | None:
    adapter = InProcessAdapter(handler(mutant.name).handle, name=mutant.name)
    report = drive.drive(adapter, examples=examples, steps=steps, seed=seed, shrink=False)
    assert report.adapter_failure is None, report.adapter_failure
    return report.examples if report.disagreement is not None else None


def cells(found: list[int | None]) -> str:
    return " ".join(f"{'-' if n is None else n:>4}" for n in found)


def mean(found: list[int | None], budget: int) -> float:
    return statistics.fmean(budget if n is None else n for n in found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--mutant", nargs="*", default=[])
    parser.add_argument("--plain", action="store_true", help="also run without swarm and hints, and compare")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if m.needs is None and (not args.mutant or m.name in args.mutant)]
    header = f"{'mutant':38} {'rule':10} {'seeds ' + ' '.join(map(str, args.seeds)):>{5 * len(args.seeds)}}"
    print(header + ("   plain" if args.plain else ""))
    start = time.perf_counter()
    now: list[int | None] = []
    before: list[int | None] = []
    missed: list[str] = []
    for mutant in chosen:
        row = [catch(mutant, seed, args.examples, args.steps) for seed in args.seeds]
        now += row
        if None in row:
            missed.append(mutant.name)
        line = f"{mutant.name:38} {mutant.rule:10} {cells(row)}"
        if args.plain:
            with plain_generator():
                plain = [catch(mutant, seed, args.examples, args.steps) for seed in args.seeds]
            before += plain
            line += f"   {cells(plain)}"
        print(line, flush=True)
    print(f"\n{len(chosen) - len(missed)} of {len(chosen)} mutants caught at every seed "
          f"({len(args.seeds)} seeds, {args.examples} examples of up to {args.steps} commands)")
    if missed:
        print("missed at some seed: " + ", ".join(missed))
    caught = [n for n in now if n is not None]
    print(f"examples to first catch: median {statistics.median(caught):.0f}, max {max(caught)}, "
          f"mean {mean(now, args.examples):.1f} (a miss counts {args.examples})")
    if args.plain:
        misses = sum(1 for n in before if n is None)
        print(f"plain generator: mean {mean(before, args.examples):.1f}, {misses} misses; ratio plain / swarm+hints "
              f"{mean(before, args.examples) / mean(now, args.examples):.2f}")
    print(f"({time.perf_counter() - start:.0f} s)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
