"""``loopspec vectors generate``: determinism, coverage and well-formedness of the suite.

* Same seed and count → byte-identical suite; another seed → different walks.
* Every rule whose "Checkable from" is ``commands`` has a hand-written case, and every case's
  probe (the rule's hallmark: this step refused with that code, that record at this start, …)
  holds on the model — generation fails otherwise.  Each probe is shown to be able to fail.
* Every row of the lifecycle table is fired by the last command of its row case.
* Every case file validates against ``spec/schemas/vector.schema.json`` and matches its
  manifest checksum.

The hand-written cases' probes prove, on the model, the rules checkable from commands: NORM-1,
NORM-2, NORM-3, NORM-5, SPLICE-1, SPLICE-3, SPLICE-7, SPLICE-9, INPUT-1, INPUT-2, INPUT-3,
INPUT-4, DECIDE-1, DECIDE-2, DECIDE-3, RESULT-1, RESULT-2, RESULT-3, RESULT-4, CHAIN-1,
CANCEL-2, CANCEL-4, CANCEL-5.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.loop.lifecycle import TABLE
from loopspec.rules.catalogue import load_spec
from loopspec.vectors.case import CaseSpec, ProbeFailed, build_case
from loopspec.vectors.profiles import case_ops, profiles_running
from loopspec.vectors.rule_cases.observability import NOT_OBSERVABLE
from loopspec.vectors.suite import SuiteError, generate, rule_cases
from vectors.fixtures import VECTOR

COMMANDS_RULES = (
    "DATA-1", "DATA-3", "DATA-4", "DATA-5", "NORM-1", "NORM-2", "NORM-3", "NORM-4", "NORM-5", "SPLICE-1",
    "SPLICE-3", "SPLICE-5", "SPLICE-7", "SPLICE-8", "SPLICE-9", "FOLD-4", "FOLD-5", "CLAIM-5", "INPUT-1", "INPUT-2",
    "CLAIM-7",
    "INPUT-3", "TURN-4", "INPUT-4", "DECIDE-1", "DECIDE-2", "DECIDE-3", "DECIDE-4", "DECIDE-7", "DECIDE-8",
    "DECIDE-9", "RESULT-1", "RESULT-2", "RESULT-3", "RESULT-4", "CHAIN-1", "CHAIN-2", "CANCEL-1", "CANCEL-2",
    "CANCEL-3", "CANCEL-4", "CANCEL-5", "WORK-1", "WORK-2", "REPAIR-4", "LOG-6",
)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.json"))}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite")
    generate(out, seed=7, count=8)
    return out


def test_generate_is_deterministic(suite: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate(again, seed=7, count=8)
    assert _files(again) == _files(suite)
    other = tmp_path / "other"
    generate(other, seed=8, count=8)
    walks = {k: v for k, v in _files(other).items() if k.startswith("random/")}
    assert walks != {k: v for k, v in _files(suite).items() if k.startswith("random/")}


@pytest.mark.rule(*COMMANDS_RULES)
def test_every_commands_rule_has_a_probed_hand_written_case(suite: Path) -> None:
    """The suite generated (so every probe held) and covers exactly the spec's commands rules."""
    wanted = {r.id for r in load_spec().rules if "commands" in r.checkable_from}
    assert wanted == set(COMMANDS_RULES), "the spec's commands rules changed: update this test and the cases"
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["uncoveredRules"] == []
    hand = {rule for spec in rule_cases() for rule in spec.rules}
    assert wanted <= hand | set(NOT_OBSERVABLE)  # or explained (issue 11's allowance)
    assert manifest["counts"]["negative"] >= 8, "refusals must be first-class cases"


@pytest.mark.parametrize("spec", rule_cases(), ids=lambda s: s.path)
def test_every_probe_can_fail(spec: CaseSpec) -> None:
    """A probe that accepted anything would make its case prove nothing: none accepts an empty run."""
    assert spec.probe([], {"inbox": {"next-turn": [], "next-step": []}, "phase": "?", "status": "?",
                           "lastTurn": -1}) is not None


def test_a_failing_probe_stops_generation() -> None:
    spec = rule_cases()[0]
    with pytest.raises(ProbeFailed):
        build_case(CaseSpec(spec.path, "rule", spec.rules, spec.description, spec.commands[:1], spec.probe))


def test_every_lifecycle_row_has_a_case_whose_last_command_fires_it(suite: Path) -> None:
    manifest = json.loads((suite / "manifest.json").read_text())
    for row in TABLE:
        path = suite / f"lifecycle/{row.input}/{row.phase}-{row.guard}.json"
        case = json.loads(path.read_text())
        assert case["kind"] == "row"
        assert row.key in case["steps"][-1]["rows"], row.key
        assert manifest["rows"][row.key], row.key


def test_cases_validate_and_match_the_manifest(suite: Path) -> None:
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["format"] == "loopspec-suite/2"
    assert manifest["protocol"] == "loopspec-adapter/2"
    counts = manifest["counts"]
    # count walks for the full profile and as many for each partial one (inbox, loop), and the pairs
    rows = len(TABLE)
    assert counts["cases"] == len(manifest["cases"]) == len(rule_cases()) + rows + 3 * 8 + counts["pair"]
    for entry in manifest["cases"]:
        data = (suite / entry["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        case = json.loads(data)
        VECTOR.validate(case)
        assert entry["path"] == case["id"] + ".json"
        assert case["negative"] == any(not s["expect"]["ok"] for s in case["steps"])
        assert case["profiles"] == entry["profiles"] == list(profiles_running(case_ops(case["steps"])))
    for name in ("inbox", "loop", "full"):
        assert manifest["counts"]["profiles"][name] == sum(name in e["profiles"] for e in manifest["cases"]) > 8


def test_generate_refuses_a_foreign_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SuiteError):
        generate(tmp_path, count=0)


def test_generate_cli_replaces_its_own_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "suite"
    assert main(["vectors", "generate", "--out", str(out), "--count", "3", "--seed", "1"]) == 0
    assert main(["vectors", "generate", "--out", str(out), "--count", "1", "--seed", "1"]) == 0
    assert not (out / "random/walk/walk-0002.json").exists()
    assert "3 random walk (1 per profile)" in capsys.readouterr().out.splitlines()[-1]
