"""Exploration throughput, run by hand (not a test): ``python benchmarks/explore_bench.py [--ids K --depth N]``.

Measures, in one run, for one scope (default ``--ids 2 --depth 5``):

* the model alone (:class:`loopspec.statespace.model_space.ModelSpace`: step and key, no checks);
* the full exploration on one core (every invariant and the log checker on every transition);
* the full exploration on two worker processes;
* the search judge on model-written logs (logs per second, events per second).

It prints distinct states, transitions, wall-clock and CPU seconds, states per second of each,
and the ratios between the runs.  CPU seconds are what to compare on a shared machine: wall-clock
time there depends on what else runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

try:
    from loopspec.statespace.scope import Scope
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "model"))
    from loopspec.statespace.scope import Scope
from loopspec.data.errors import CommandRefused
from loopspec.explore.judge import judge_events
from loopspec.explore.run import explore
from loopspec.loop.lifecycle import step
from loopspec.loop.state import Agent
from loopspec.statespace.model_space import ModelSpace
from loopspec.statespace.search import breadth_first
from loopspec.vectors.command_gen import Generator, RandomChooser


def _children() -> float:
    times = os.times()
    return times.children_user + times.children_system


def _row(name: str, states: int, transitions: int, wall: float, cpu: float) -> tuple[float, float]:
    per_cpu, per_wall = states / max(cpu, 1e-9), states / max(wall, 1e-9)
    print(f"{name:34} {states:>8} states {transitions:>9} transitions {wall:7.1f} s wall {cpu:7.1f} s CPU  "
          f"{per_cpu:>8,.0f} states/CPU-s {per_wall:>8,.0f} states/s")
    return per_cpu, per_wall


def _logs(count: int) -> list[list[dict[str, object]]]:
    out = []
    for index in range(count):
        generator, agent = Generator(RandomChooser(random.Random(index))), Agent()
        for _ in range(30):
            try:
                agent = step(agent, generator.next_command(agent)).agent
            except CommandRefused:
                continue
        out.append([json.loads(json.dumps(e.to_json())) for e in agent.log.events])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--ids", type=int, default=2)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--logs", type=int, default=200, help="model-written logs for the judge")
    args = parser.parse_args()
    scope = Scope(args.ids, args.depth)
    print(f"scope: {scope.describe()}; {os.cpu_count()} core(s), load average {os.getloadavg()[0]:.1f}")

    wall, cpu = time.perf_counter(), time.process_time()
    alone = breadth_first(ModelSpace(scope), scope.depth)
    model = _row("model alone, one core", alone.states, alone.transitions, time.perf_counter() - wall,
                 time.process_time() - cpu)

    wall, cpu = time.perf_counter(), time.process_time()
    one = explore(scope)
    serial = _row("exploration, one core", one.states, one.transitions, time.perf_counter() - wall,
                  time.process_time() - cpu)

    wall, cpu, children = time.perf_counter(), time.process_time(), _children()
    two = explore(scope, workers=2)
    parallel = _row("exploration, two worker processes", two.states, two.transitions, time.perf_counter() - wall,
                    time.process_time() - cpu + _children() - children)
    assert (one.states, one.transitions) == (two.states, two.transitions)

    logs = _logs(args.logs)
    events = sum(len(log) for log in logs)
    wall, cpu = time.perf_counter(), time.process_time()
    verdicts = [judge_events(list(log)).status for log in logs]
    judge_wall, judge_cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert set(verdicts) == {"valid"}
    print(f"{'judge, model-written logs':34} {len(logs):>8} logs  {events:>9} events      {judge_wall:7.1f} s wall "
          f"{judge_cpu:7.1f} s CPU  {len(logs) / judge_cpu:>8,.0f} logs/CPU-s {events / judge_cpu:>8,.0f} events/CPU-s")

    print(f"ratio: checks cost {model[0] / serial[0]:.1f}x the model alone per state (CPU); the state key with the "
          f"checker's state has {one.states / alone.states:.1f}x the model's states")
    print(f"ratio: two processes reach {parallel[1] / serial[1]:.2f}x the one-core states/s (wall) and "
          f"{parallel[0] / serial[0]:.2f}x per CPU-second")


if __name__ == "__main__":
    main()
