"""The map of the decision record (``spec/decision-record.md``) points at real rules and tests.

Each row of the page is one sentence of seed000's English text: what it says, the rules that
carry it and the tests that prove them, each test followed by the rule IDs it names.  The first
tests here hold the page to that: consecutive row numbers, rule IDs of the catalogue, decision
links that land on a heading of decisions.md, a test for every rule of a normative row, and
tests that exist and name (``@pytest.mark.rule`` or docstring, as ``docs/traceability.md``
counts them) the rules they are listed with.  The last tests close the record's sentences that
no test named before the page was written.
"""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import attrs
import pytest

from conftest import REPO
from loopspec.data.messages import InboxState, InboxTarget, UserMessage
from loopspec.inbox import fold
from loopspec.inbox.session import InboxSession
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.phases import DECIDED, DECIDING, DECISION_RETURNED
from loopspec.loop.state import Agent
from loopspec.rules.catalogue import Spec, heading_anchor, load_spec
from loopspec.specdoc.traceability import META_TESTS, scan_file
from loopspec.vectors.codec import CodecError, decode_command
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import Claim, Unsupported, apply

PAGE = REPO / "spec" / "decision-record.md"
DECISIONS = REPO / "spec" / "decisions.md"
# The lines of seed000's English paragraphs (the others are titles, headings and the Chinese
# text, which the page's introduction accounts for): every one must have rows.
ENGLISH_PARAGRAPHS = frozenset({6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 21, 23})
NORMATIVE, OUTSIDE = "normative", "outside"
NOT_NORMATIVE = frozenset({"context", "pointer", "alternative", "rationale", "practice"})

_ROW = re.compile(r"^\| DR-(?P<n>[0-9]+) \|")
_ID = re.compile(r"\b(?!DR-)[A-Z]+-[0-9]+\b")
_DECISION = re.compile(r"\]\(decisions\.md#(?P<anchor>[^)]+)\)")
_TEST = re.compile(r"`(?P<file>tests/[\w/]+\.py)::(?P<name>\w+(?:::\w+)?)` \((?P<ids>[^)]*)\)")


@attrs.frozen
class Row:
    number: int
    line: int
    kind: str
    says: str
    carried: str
    proved: str
    at: int  # line of the page, for messages

    @property
    def label(self) -> str:
        return f"DR-{self.number} (page line {self.at})"

    def rule_ids(self) -> tuple[str, ...]:
        return tuple(_ID.findall(self.carried))


def read_rows(text: str) -> tuple[Row, ...]:
    rows: list[Row] = []
    for at, line in enumerate(text.splitlines(), start=1):
        match = _ROW.match(line)
        if not match:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not cells[1].isdigit():
            raise AssertionError(f"page line {at}: a row has six cells (row, line, kind, says, carried, proved)")
        rows.append(Row(int(match["n"]), int(cells[1]), cells[2], cells[3], cells[4], cells[5], at))
    return tuple(rows)


def decision_anchors(decisions: Path) -> frozenset[str]:
    lines = decisions.read_text(encoding="utf-8").splitlines()
    return frozenset(heading_anchor(line.lstrip("#")) for line in lines if line.startswith("### "))


def _spans(tree: ast.Module, name: str) -> tuple[tuple[int, int], ...]:
    """Line spans (decorators included) where a mention of an ID counts for the test ``name``."""

    def span(node: ast.stmt) -> tuple[int, int]:
        decorators = getattr(node, "decorator_list", [])
        return (min([node.lineno, *(d.lineno for d in decorators)]), node.end_lineno or node.lineno)

    def defines(node: ast.stmt, wanted: str) -> bool:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return node.name == wanted
        return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == wanted for t in node.targets)

    outer, _, inner = name.partition("::")
    node = next((n for n in tree.body if defines(n, outer)), None)
    if node is None:
        return ()
    if not inner:
        return (span(node),)
    if not isinstance(node, ast.ClassDef):
        return ()
    method = next((m for m in node.body if defines(m, inner)), None)
    # A marker on the class (its decorators) applies to its methods.
    return () if method is None else ((span(node)[0], node.lineno), span(method))


def reference_problems(row: Row, spec: Spec, repo: Path) -> list[str]:
    """What is wrong with the tests a row names."""
    out: list[str] = []
    leftover = _TEST.sub("", row.proved).replace("<br>", "").strip()
    if leftover:
        out.append(f"{row.label}: unreadable test reference near {leftover[:40]!r}")
    carried = set(row.rule_ids())
    for ref in _TEST.finditer(row.proved):
        where = f"{row.label}: {ref['file']}::{ref['name']}"
        ids = [i.strip() for i in ref["ids"].split(",") if i.strip()]
        path = repo / ref["file"]
        if not ids:
            out.append(f"{where} is listed with no rule ID")
        if not ref["name"].split("::")[-1].startswith(("test", "Test")):
            out.append(f"{where} is not a test (its name does not start with test or Test)")
        if path.name in META_TESTS or "mutants" in Path(ref["file"]).parts:
            out.append(f"{where} proves no rule (a meta test or a mutant)")
        spans = _spans(ast.parse(path.read_text(encoding="utf-8")), ref["name"]) if path.is_file() else ()
        if not spans:
            out.append(f"{where} does not exist")
            continue
        cited = {(c.rule_id, c.line) for c in scan_file(path, spec.id_pattern(), repo)}
        for rule_id in ids:
            if rule_id not in carried:
                out.append(f"{where} is listed for {rule_id}, which the row does not name")
            if not any(r == rule_id and lo <= line <= hi for r, line in cited for lo, hi in spans):
                out.append(f"{where} does not name {rule_id}")
    return out


def problems(rows: tuple[Row, ...], spec: Spec, repo: Path, decisions: Path) -> list[str]:
    """Everything wrong with the table, one message per fault."""
    out: list[str] = []
    numbers = [r.number for r in rows]
    if numbers != list(range(1, len(rows) + 1)):
        missing = sorted(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        out.append(f"rows must be numbered DR-1, DR-2, … in order: missing {missing}, repeated {repeated}, "
                   f"order {'kept' if numbers == sorted(numbers) else 'broken'}")
    known, anchors = set(spec.ids()), decision_anchors(decisions)
    for row in rows:
        ids = row.rule_ids()
        out += [f"{row.label}: {i} is not a rule of the catalogue" for i in ids if i not in known]
        out += [f"{row.label}: no decision has the anchor #{m['anchor']}" for m in _DECISION.finditer(row.carried)
                if m["anchor"] not in anchors]
        out += reference_problems(row, spec, repo)
        if row.kind in NOT_NORMATIVE:
            if not row.carried.startswith("not normative: ") or row.proved:
                out.append(f"{row.label}: a {row.kind} row gives the reason it is not normative and no tests")
            continue
        if row.kind not in (NORMATIVE, OUTSIDE):
            out.append(f"{row.label}: unknown kind {row.kind!r}")
            continue
        if row.kind == NORMATIVE and not ids:
            out.append(f"{row.label}: a normative row names the rules that carry it")
        if row.kind == OUTSIDE and not _DECISION.search(row.carried):
            out.append(f"{row.label}: a row outside the model names the decision that says so")
        listed = {i.strip() for ref in _TEST.finditer(row.proved) for i in ref["ids"].split(",")}
        out += [f"{row.label}: no test of the row names {i}" for i in ids if i in known and i not in listed]
    return out


@pytest.fixture(scope="module")
def rows() -> tuple[Row, ...]:
    return read_rows(PAGE.read_text(encoding="utf-8"))


def test_every_row_points_at_real_rules_and_tests(rows: tuple[Row, ...]) -> None:
    found = problems(rows, load_spec(), REPO, DECISIONS)
    assert not found, "spec/decision-record.md:\n  " + "\n  ".join(found)


def test_every_english_paragraph_has_rows_in_order(rows: tuple[Row, ...]) -> None:
    lines = [r.line for r in rows]
    assert lines == sorted(lines), "rows follow the record's order"
    assert set(lines) == ENGLISH_PARAGRAPHS
    assert sum(r.kind in (NORMATIVE, OUTSIDE) for r in rows) > len(rows) / 2


def test_the_checks_above_can_fail(tmp_path: Path) -> None:
    """A wrong rule ID, a missing row, a missing test, a test that names another rule, a bad link."""
    toy = "## TOY-{n} — Toy\n- **Rule:** R.\n- **Why:** W.\n- **Source:** S.\n- **Checkable from:** log\n\n"
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "01-toy.md").write_text("# Toy\n\n" + toy.format(n=1) + toy.format(n=2), encoding="utf-8")
    decisions = tmp_path / "spec" / "decisions.md"
    decisions.write_text("# D\n\n### X1. A toy decision\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text(
        'def test_one() -> None:\n    """TOY-1"""\n\n\ndef test_two() -> None:\n    """TOY-2"""\n', encoding="utf-8")
    good = "| DR-1 | 6 | normative | s | `TOY-1` | `tests/test_toy.py::test_one` (TOY-1) |"
    page = "\n".join((
        good,
        "| DR-3 | 7 | normative | s | `TOY-9`, `TOY-2` | `tests/test_toy.py::test_one` (TOY-2) |",
        "| DR-4 | 9 | outside | s | [X2](decisions.md#x2-gone) | `tests/test_toy.py::test_three` (TOY-1) |",
        "| DR-5 | 9 | context | s | because | |",
    ))
    spec = load_spec(tmp_path / "spec")
    assert problems(read_rows(good), spec, tmp_path, decisions) == []
    found = problems(read_rows(page), spec, tmp_path, decisions)
    assert found == [
        "rows must be numbered DR-1, DR-2, … in order: missing [2], repeated [], order kept",
        "DR-3 (page line 2): TOY-9 is not a rule of the catalogue",
        "DR-3 (page line 2): tests/test_toy.py::test_one does not name TOY-2",
        "DR-4 (page line 3): no decision has the anchor #x2-gone",
        "DR-4 (page line 3): tests/test_toy.py::test_three does not exist",
        "DR-5 (page line 4): a context row gives the reason it is not normative and no tests",
    ]


# ---- sentences of the record that no test named before the page was written ----


@pytest.mark.rule("DECIDE-1", "DECIDE-2")
def test_the_pre_step_waterfall_is_the_only_hook_at_a_boundary() -> None:
    """DR-9, DR-14, DR-47, DR-48: one awaited decision opens every step; the old hooks are gone.

    Only the ``decide`` answer of the deciding phase opens a step (the turn acts on it at the hop
    after the pre-step returned it, decisions.md G17), every claim leads to that phase, a decision is
    a reject or an entry, and no catalog names a removed hook."""
    assert {r.key for r in TABLE if "step-start" in r.effects} == {f"{DECISION_RETURNED}/auto/enter"}
    assert {(r.phase, r.input, r.next) for r in TABLE if r.next in (DECIDED, DECISION_RETURNED)
            and r.phase != r.next} == {(DECIDING, "decide", DECIDED), (DECIDED, "auto", DECISION_RETURNED)}
    assert {r.next for r in TABLE if any(e.startswith("claim") for e in r.effects)} == {DECIDING}
    awaited = {r.input for r in TABLE if r.phase == DECIDING} - {"edit", "send", "send-wake", "cancel", "restart"}
    assert awaited == {"decide"}
    assert typing.get_args(ls.PreStepDecision) == (ls.Reject, ls.Enter)
    with pytest.raises(CodecError, match="'reject' or 'enter'"):
        decode_command({"op": "decide", "listeners": [{"kind": "veto", "decision": {"kind": "admit", "messages": []}}]})
    removed = re.compile(r"agent/(?:prompt-prepare|prompt-submit|step)\b(?![-/])")
    catalogs = [*sorted((REPO / "spec" / "schemas").glob("*.json")), REPO / "docs" / "events.md",
                REPO / "spec" / "command-language.md", REPO / "spec" / "adapter-protocol.md"]
    assert [p.name for p in catalogs if removed.search(p.read_text(encoding="utf-8"))] == []
    assert "agent/pre-step" in (REPO / "spec" / "schemas" / "live-record.schema.json").read_text(encoding="utf-8")


@pytest.mark.rule("DATA-4")
def test_the_inbox_is_two_ordered_lists_both_empty_at_first() -> None:
    """DR-15: the inbox is the next-turn and next-step lists, in insertion order, empty at first."""
    assert [f.name for f in attrs.fields(InboxState)] == ["next_turn", "next_step"]
    assert {t.value for t in InboxTarget} == {"next-turn", "next-step"}
    empty = InboxState()
    assert (empty.next_turn, empty.next_step) == ((), ())
    assert fold.replay(()) == InboxSession().inbox == Agent().inbox == empty
    a, b, c = (UserMessage.create(i) for i in "abc")
    session = InboxSession()
    for target, message in ((InboxTarget.NEXT_TURN, a), (InboxTarget.NEXT_STEP, c), (InboxTarget.NEXT_TURN, b)):
        session = session.append(target, message).session
    assert session.inbox == InboxState(next_turn=(a, b), next_step=(c,))


@pytest.mark.rule("CLAIM-7")
def test_only_the_loop_claims() -> None:
    """DR-21: no public command of an agent and no listener action is a claim."""
    assert Claim not in typing.get_args(cmd.Command)
    assert all("claim" not in PROFILES[p].ops for p in ("loop", "full"))
    with pytest.raises(Unsupported):
        apply(Agent(), Claim(InboxTarget.NEXT_TURN, 1))
    claim = {"op": "claim", "target": "next-turn", "turn": 1}
    for command in (
        {"op": "decide", "listeners": [{"kind": "wrap", "before": [claim]}]},
        {"op": "decide", "listeners": [{"kind": "veto", "decision": {"kind": "reject"}, "before": [claim]}]},
        {"op": "turn-stopping", "actions": [claim]},
    ):
        with pytest.raises(CodecError, match="is not an action"):
            decode_command(command)
