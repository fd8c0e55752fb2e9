"""The row-pair walk (:mod:`loopspec.vectors.row_pairs`) finds every pair the model produces.

Its abstraction of the agent is what makes the walk finite; if the abstraction dropped something
a guard reads, random runs would produce pairs the walk never reached.  Long seeded runs of the
full command generator, plain and swarm-weighted, produce none outside its set, and every witness
the walk returns produces its pair when run from scratch.
"""

from __future__ import annotations

import itertools
import random

import pytest

from loopspec.data.errors import CommandRefused
from loopspec.loop.lifecycle import TABLE, run_command
from loopspec.loop.state import Agent
from loopspec.vectors import row_pairs
from loopspec.vectors.command_gen import RandomChooser
from loopspec.vectors.profile_gen import ProfileGenerator
from loopspec.vectors.row_pairs import Pair
from loopspec.vectors.swarm import Swarm

RUNS, STEPS = 400, 80


@pytest.fixture(scope="module")
def pairs() -> dict[Pair, tuple[object, ...]]:
    return row_pairs.reachable_pairs()  # type: ignore[return-value]


def test_every_witness_produces_its_pair(pairs: dict[Pair, tuple[object, ...]]) -> None:
    for pair, commands in pairs.items():
        agent, rows = Agent(), list[str]()
        for command in commands:
            transition = run_command(agent, command)  # type: ignore[arg-type]
            agent, rows = transition.agent, rows + list(transition.fired)
        assert pair in set(itertools.pairwise(rows)), pair
    # every row, those of calls landing at a hop included (commands that stop there)
    assert {row for pair in pairs for row in pair} == {row.key for row in TABLE}


@pytest.mark.parametrize("swarmed", [False, True], ids=["plain", "swarm"])
def test_random_runs_produce_no_pair_outside_the_walk(pairs: dict[Pair, tuple[object, ...]], swarmed: bool) -> None:
    seen: set[Pair] = set()
    for n in range(RUNS):
        rng = random.Random(f"pairs-{swarmed}-{n}")
        swarm = Swarm.draw(RandomChooser(rng)) if swarmed else None
        generator = ProfileGenerator(RandomChooser(rng), "full", swarm=swarm, stops=("run", "hop"))
        agent, last = Agent(), None
        for _ in range(STEPS):
            try:
                transition = run_command(agent, generator.next_command(agent))  # type: ignore[arg-type]
            except CommandRefused:
                continue
            rows = transition.fired if last is None else (last, *transition.fired)
            seen.update(itertools.pairwise(rows))
            agent, last = transition.agent, transition.fired[-1]
    assert seen - set(pairs) == set(), "the walk's abstraction misses what a guard reads"
    assert len(seen) > len(pairs) // 2  # the runs are long enough to mean something
