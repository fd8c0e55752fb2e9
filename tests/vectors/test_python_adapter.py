"""The second example implementation (``examples/adapters/python``), written from the documents alone.

It is a separate program using only Python's standard library (no ``loopspec`` import), run the
way a user runs any adapter: ``vectors run`` over a generated suite in profiles ``full`` and
``inbox``, and ``drive``.  Agreement of three implementations (model, JavaScript, Python) on the
suite is evidence that the documents, not only the model's code, determine the behaviour.  A
sabotaged copy (NORM-5's refusal removed) fails, so the harness can tell.
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.cli import main
from loopspec.vectors.suite import generate

HERE = REPO / "examples" / "adapters" / "python"
ADAPTER = [sys.executable, str(HERE / "adapter.py")]
COMMAND_RULES = (
    "NORM-1", "NORM-2", "NORM-3", "NORM-5", "SPLICE-1", "SPLICE-3", "SPLICE-7", "SPLICE-9",
    "INPUT-1", "INPUT-2", "INPUT-3", "INPUT-4", "DECIDE-1", "DECIDE-2", "DECIDE-3",
    "RESULT-1", "RESULT-2", "RESULT-3", "RESULT-4", "CHAIN-1", "CANCEL-2", "CANCEL-4",
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("python-suite")
    generate(out)  # the suite as the CLI writes it (its exit code also reports rules without a case)
    return out


def test_it_uses_the_standard_library_only() -> None:
    local = {p.stem for p in HERE.glob("*.py")}
    for path in HERE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                assert top in local or top in sys.stdlib_module_names or top == "__future__", (path.name, name)
                assert top != "loopspec", path.name


@pytest.mark.rule(*COMMAND_RULES)
@pytest.mark.parametrize("profile", ["full", "inbox"])
def test_python_adapter_passes_every_vector_of_its_profile(
        suite: Path, profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["vectors", "run", str(suite), "--", *ADAPTER, "--profile", profile])
    out = capsys.readouterr().out
    failures = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert code == 0, "\n".join(failures)
    assert f"loopspec-python-example 0.2.0 conforms to profile {profile}" in out


@pytest.mark.rule("CLAIM-1", "CLAIM-4")
@pytest.mark.parametrize("profile", ["full", "inbox"])
def test_drive_finds_no_disagreement_with_the_python_adapter(profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["drive", "--examples", "60", "--steps", "30", "--", *ADAPTER, "--profile", profile])
    captured = capsys.readouterr()
    assert code == 0, captured.err + captured.out
    assert f"no disagreement in 60 of 60 examples against loopspec-python-example 0.2.0 (profile {profile})" \
        in captured.err


@pytest.mark.rule("NORM-5")
def test_a_sabotaged_copy_fails(tmp_path: Path, suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "python"
    shutil.copytree(HERE, broken)
    inbox = broken / "inbox.py"
    source = inbox.read_text(encoding="utf-8")
    sabotaged = source.replace("if negative_zero:", "if False:")
    assert sabotaged != source, "the NORM-5 check moved: update this control"
    inbox.write_text(sabotaged, encoding="utf-8")
    assert main(["vectors", "run", str(suite), "--select", "NORM-5", "--", sys.executable,
                 str(broken / "adapter.py")]) == 1
    assert "FAIL    norm/splice/norm-5" in capsys.readouterr().out
