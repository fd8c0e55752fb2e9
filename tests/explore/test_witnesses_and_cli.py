"""Shortest witnesses per row pair, the parallel search, and ``loopspec explore`` on the command line.

* :func:`loopspec.statespace.model_space.shortest_witnesses` gives, for every row pair a scope
  reaches, a shortest command sequence whose last command fires the pair's second row right after
  its first; ``--witnesses DIR`` writes them as vector cases that the model itself passes.
* Partitioning the frontier over processes changes no count, row or pair of the search.
* The command line prints the summary and exits 0 on an exhausted scope, 2 on bad usage.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.explore.run import explore
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run_command
from loopspec.loop.state import Agent
from loopspec.statespace.scope import Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.observation import observation_difference
from statespace.fixtures import shortest_witnesses

SMALL = Scope(1, 4)


def _fired_pairs(commands: tuple[cmd.LoopCommand, ...]) -> tuple[list[tuple[str, str]], int]:
    """Every consecutive pair of rows the commands fire, and where the last command's rows begin."""
    agent, rows, last = Agent(), list[str](), 0
    for command in commands:
        last = len(rows)
        transition = run_command(agent, command)
        agent, rows = transition.agent, rows + list(transition.fired)
    return list(itertools.pairwise(rows)), last


@pytest.mark.rule("INPUT-4")
def test_each_witness_fires_its_pair_with_its_last_command() -> None:
    witnesses = shortest_witnesses(SMALL)
    assert len(witnesses) > 100
    for pair, commands in witnesses.items():
        assert len(commands) <= SMALL.depth
        pairs, last = _fired_pairs(commands)
        assert pair in pairs[max(last - 1, 0):], (pair, commands)
    shorter = shortest_witnesses(Scope(1, 3))
    assert all(len(witnesses[pair]) == len(commands) for pair, commands in shorter.items())  # shortest


def test_witness_cases_pass_against_the_model(tmp_path: Path) -> None:
    assert main(["explore", "--ids", "1", "--depth", "3", "--witnesses", str(tmp_path)]) == 0
    cases = sorted(tmp_path.rglob("*.json"))
    assert cases
    for path in cases:
        case = json.loads(path.read_text(encoding="utf-8"))
        assert case["kind"] == "row"
        assert len(case["rows"]) == 2
        adapter = InProcessAdapter(ModelHandler().handle)
        for item in case["steps"]:
            assert observation_difference(item["expect"], adapter.command(item["command"])) is None


def test_both_cores_find_what_one_finds() -> None:
    scope = Scope(2, 4)
    one, two = explore(scope), explore(scope, workers=2)
    assert (one.states, one.transitions, one.levels, one.complete) == (two.states, two.transitions, two.levels,
                                                                       two.complete)
    assert set(one.rows) == set(two.rows)
    assert set(one.pairs) == set(two.pairs)
    assert all(len(one.pairs[p]) == len(two.pairs[p]) for p in one.pairs)


def test_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--ids", "1", "--depth", "3", "--commands", "sends,decisions,results"]) == 0
    out = capsys.readouterr().out
    assert "exhausted: all executions of up to 3 commands over 1 message id(s), the families sends" in out
    assert "distinct states:" in out
    assert main(["explore", "--commands", "sends,bogus"]) == 2
    with pytest.raises(SystemExit) as usage:  # argparse's usage error, naming the range
        main(["explore", "--ids", "9"])
    assert usage.value.code == 2
    assert "argument --ids: must be 1 to 6, got 9" in capsys.readouterr().err
    assert main(["explore", "--write-doc"]) == 2
    assert main(["explore", "--ids", "2", "--depth", "6", "--max-states", "50"]) == 1  # budget: not exhausted
    assert "NOT exhausted" in capsys.readouterr().out
