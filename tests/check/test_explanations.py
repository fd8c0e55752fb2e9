"""A violation explains itself from the rule catalogue plus the facts of its case (issue 24, point 3).

The checker's ``violate(rule, message, because)`` passes in ``because`` only what this log showed
(numbers, ids, the pending inbox): the rule's norm and its reason are the catalogue's **Rule** and
**Why**, which the reports print.  A literal sentence there would restate the catalogue and drift
from it, so the sources are read here: ``because`` is absent, an f-string with at least one
placeholder, or a value computed from the case (a call or a local name), never a string constant.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.cli import main
from loopspec.rules.catalogue import load_spec

CHECKER = REPO / "model" / "loopspec" / "check"


def _violate_calls() -> list[tuple[Path, ast.Call]]:
    calls = []
    for path in sorted(CHECKER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "violate":
                calls.append((path, node))
    return calls


def _module_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)}


def _prose(node: ast.expr, constants: set[str]) -> bool:
    """Whether ``node`` is case-independent text: a string constant, a module constant, or built of them."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return not any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _prose(node.left, constants) or _prose(node.right, constants)
    if isinstance(node, ast.Name | ast.Subscript):
        base = node if isinstance(node, ast.Name) else node.value
        return isinstance(base, ast.Name) and base.id in constants
    return False


@pytest.mark.rule("LOG-1")
def test_no_violation_restates_its_rule_in_prose() -> None:
    calls = _violate_calls()
    assert len(calls) > 90, "the checker's violate calls were not found"
    prose = []
    for path, call in calls:
        because = call.args[2] if len(call.args) > 2 else next(
            (k.value for k in call.keywords if k.arg == "because"), None)
        if because is not None and _prose(because, _module_constants(path)):
            prose.append(f"{path.relative_to(REPO)}:{call.lineno}: {ast.unparse(because)[:80]}")
    assert not prose, "because holds prose, not the case's facts:\n" + "\n".join(prose)


@pytest.mark.rule("LOG-1")
def test_every_rule_a_violation_names_has_a_norm_and_a_reason_in_the_catalogue() -> None:
    rules = {r.id: r for r in load_spec().rules}
    named = {str(call.args[0].value) for _, call in _violate_calls()
             if call.args and isinstance(call.args[0], ast.Constant)}
    assert named, "no rule ids found"
    missing = sorted(r for r in named if r not in rules or not rules[r].rule or not rules[r].why)
    assert not missing, missing


@pytest.mark.rule("TURN-1")
def test_the_reports_give_the_catalogues_rule_and_why_with_the_facts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "t.events.jsonl"
    log.write_text(json.dumps({"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 2}}) + "\n")
    rule = next(r for r in load_spec().rules if r.id == "TURN-1")
    assert main(["check", str(log)]) == 1
    text = " ".join(capsys.readouterr().out.split())
    assert "facts: the last turn/start was 0" in text
    assert f"rule: {' '.join(rule.rule.split())}" in text
    assert f"why: {' '.join(rule.why.split())}" in text
    assert f"see: {rule.section}" in text
    assert main(["check", "--format", "json", str(log)]) == 1
    (violation,) = json.loads(capsys.readouterr().out)["logs"][0]["violations"]
    assert (violation["because"], violation["rule_text"], violation["rule_why"]) == (
        "the last turn/start was 0", rule.rule, rule.why)
