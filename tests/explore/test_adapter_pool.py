"""Exhaustive conformance sends a state's loops in one sequence, and can spread its sequences over workers.

A loop (a refusal, an edit that changes nothing) leaves the model where it was, so all of a
state's loops go to the implementation as one sequence after the path; only a disagreement there
sends each loop alone.  ``--jobs N`` deals the sequences out to N worker processes, each with its
own adapter; the search, and so the counterexample, stays the serial one.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from loopspec.explore.adapter_pool import Finding
from loopspec.explore.conformance import CONFORMS
from loopspec.explore.run import explore
from loopspec.statespace.scope import Scope
from loopspec.vectors.drive_check import Expected
from loopspec.vectors.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[2]


class Recorded:
    """Checks that answer as a stand-in says and keep every sequence they were given."""

    def __init__(self, answer: Callable[[Sequence[Expected]], Finding] | None = None) -> None:
        self.profile, self.workers = PROFILES["full"], 1
        self.lacks: tuple[str, ...] = ()
        self.sequences: list[tuple[Expected, ...]] = []
        self.answer = answer

    @property
    def sent(self) -> int:
        return sum(len(s) for s in self.sequences)

    @property
    def cpu_seconds(self) -> float:
        return 0.0

    def run(self, sequences: Sequence[Sequence[Expected]]) -> list[Finding]:
        self.sequences.extend(tuple(s) for s in sequences)
        return [None if self.answer is None else self.answer(s) for s in sequences]


def test_a_states_loops_share_one_sequence_and_every_transition_is_sent_once() -> None:
    checks = Recorded()
    result = explore(Scope(1, 1), against=checks)  # one state: every sequence starts from the root
    assert result.complete
    assert result.counterexample is None
    assert sum(len(s) for s in checks.sequences) == result.transitions
    batches = [s for s in checks.sequences if len(s) > 1]
    assert len(batches) == 1
    assert len(checks.sequences) < result.transitions / 2
    loops = {str(step.encoded["op"]) for step in batches[0]}
    assert {"decide", "step-result", "splice"} <= loops  # refusals and edits that change nothing
    assert "append" not in loops


def test_a_disagreement_only_loops_in_a_row_show_is_reported_with_the_loops_it_needs() -> None:
    # An implementation that answers any second command of a case wrongly: every loop alone
    # agrees, the state's loops together do not.
    def second_wrong(steps: Sequence[Expected]) -> Finding:
        return ("command 2 (x): observation: differs", 2) if len(steps) >= 2 else None

    result = explore(Scope(1, 1), against=Recorded(second_wrong))
    found = result.counterexample
    assert found is not None
    assert found.problem.invariant == CONFORMS
    assert len(found.commands) == 2
    assert found.problem.before == found.commands[:1]
    assert "command 2 of 2" in found.problem.message


def _explore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "loopspec", "explore", *args], capture_output=True, text=True,
                          timeout=600, check=False, cwd=ROOT)


def test_workers_find_what_one_process_finds() -> None:
    mutant = [sys.executable, str(ROOT / "tests" / "vectors" / "mutants" / "run.py"), "seq-from-one"]
    serial = _explore("--ids", "1", "--depth", "2", "--", *mutant)
    pooled = _explore("--ids", "1", "--depth", "2", "--jobs", "2", "--", *mutant)
    assert serial.returncode == pooled.returncode == 1, pooled.stderr
    shortest = [line for line in serial.stdout.splitlines() if line.startswith("DISAGREEMENT: ")]
    assert shortest
    assert shortest == [line for line in pooled.stdout.splitlines() if line.startswith("DISAGREEMENT: ")]
    passed = _explore("--ids", "1", "--depth", "2", "--jobs", "2", "--", sys.executable, "-m", "loopspec", "adapter")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "over 2 process(es)" in passed.stdout
    assert "each answered as the model answers it" in passed.stdout


def test_a_worker_whose_adapter_cannot_start_is_reported_in_words(tmp_path: Path) -> None:
    # An adapter that starts once (the one that says who it is) and never again (the workers').
    once = tmp_path / "once.py"
    once.write_text("import os, sys\n"
                    f"marker = {str(tmp_path / 'started')!r}\n"
                    "if os.path.exists(marker):\n    sys.exit('this adapter starts only once')\n"
                    "open(marker, 'w').close()\n"
                    "os.execv(sys.executable, [sys.executable, '-m', 'loopspec', 'adapter'])\n")
    failed = _explore("--ids", "1", "--depth", "1", "--jobs", "2", "--", sys.executable, str(once))
    assert failed.returncode == 2, failed.stdout + failed.stderr
    assert failed.stderr.startswith("loopspec explore: cannot start the adapter")
    assert "this adapter starts only once" in failed.stderr
    assert "Traceback" not in failed.stderr
