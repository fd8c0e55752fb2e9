"""The independent JavaScript implementation (``examples/adapters/js``) conforms to the model.

The JS inbox and loop were written from the spec and the behaviour digest, not ported from the
Python model, so agreement is evidence for both (and a disagreement points at one of them).  It is
run exactly as a user would: ``loopspec vectors generate``, ``loopspec vectors run SUITE -- node
examples/adapters/js/adapter.js`` and ``loopspec drive -- node ...``.  The rules named are the
command-checkable ones the suite's hand-written cases cover, plus the lifecycle rows' rules.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from conftest import REPO
from loopspec.cli import main
from loopspec.vectors.suite import generate

NODE = shutil.which("node")
ADAPTER = ["node", str(REPO / "examples" / "adapters" / "js" / "adapter.js")]
# Each drive example is ~50 JSON round trips to a node process; the profile's 500 examples would
# take over a minute on CI, so drive stays short here (the suite and the mutant tests do the rest).
DRIVE_EXAMPLES = 100

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js >= 20) is not on PATH")

COMMAND_RULES = (
    "NORM-1", "NORM-2", "NORM-3", "NORM-5", "SPLICE-1", "SPLICE-3", "SPLICE-7", "SPLICE-9",
    "INPUT-1", "INPUT-2", "INPUT-3", "INPUT-4", "DECIDE-1", "DECIDE-2", "DECIDE-3",
    "RESULT-1", "RESULT-2", "RESULT-3", "RESULT-4", "CHAIN-1", "CANCEL-2", "CANCEL-4",
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("js-suite")
    generate(out)  # the suite as the CLI writes it (its exit code also reports rules without a case)
    return out


@pytest.mark.rule(*COMMAND_RULES)
def test_js_adapter_passes_every_vector(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vectors", "run", str(suite), "--", *ADAPTER])
    out = capsys.readouterr().out
    failures = [line for line in out.splitlines() if line.startswith(("FAIL", "NOT RUN"))]
    assert code == 0, "\n".join(failures)
    assert "0 failed" in out
    assert "loopspec-js-example 0.2.0 conforms to profile full" in out
    outside = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert all(line.split()[1].startswith(("claim/", "random/inbox/")) for line in outside)  # need claim


@pytest.mark.rule(*COMMAND_RULES)
def test_drive_finds_no_disagreement_with_the_js_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    examples = min(settings().max_examples, DRIVE_EXAMPLES)
    steps = settings().stateful_step_count
    code = main(["drive", "--examples", str(examples), "--steps", str(steps), "--", *ADAPTER])
    captured = capsys.readouterr()
    assert code == 0, captured.err + captured.out
    assert "no disagreement" in captured.err


@pytest.mark.rule("SPLICE-3", "DATA-5")
def test_drive_would_notice_a_broken_js_adapter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Control: the same harness fails when the JS implementation is sabotaged (dup check removed)."""
    broken = tmp_path / "js"
    shutil.copytree(REPO / "examples" / "adapters" / "js", broken)
    inbox = broken / "inbox.js"
    source = inbox.read_text(encoding="utf-8")
    sabotaged = source.replace("if (seen.has(m.id)) throw", "if (false) throw")
    assert sabotaged != source, "the duplicate check moved: update this control"
    inbox.write_text(sabotaged, encoding="utf-8")
    code = main(["drive", "--examples", str(DRIVE_EXAMPLES), "--shrink-budget", "2",
                 "--", "node", str(broken / "adapter.js")])
    captured = capsys.readouterr()
    assert code == 1
    assert "disagreement" in captured.err
