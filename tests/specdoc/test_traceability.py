"""Traceability of the rule catalogue: every rule enforced in the model and named by a test.

Meta tests: they prove no single rule but that the spec, the model and the tests still point at
each other (see ``docs/traceability.md`` for the current map).  A failure lists, per rule, what
is missing, or every citation of an ID the spec does not define.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from loopspec.rules.catalogue import SpecFormatError, load_spec, parse_file
from loopspec.specdoc.traceability import Traceability, collect


@pytest.fixture(scope="module")
def trace() -> Traceability:
    return collect(load_spec(), REPO)


def test_spec_parses_with_every_rule_complete() -> None:
    """Each rule has the four bullets, a valid 'Checkable from' and an ID used once."""
    spec = load_spec()
    assert len(spec.rules) == len(set(spec.ids()))
    for rule in spec.rules:
        assert all((rule.title, rule.rule, rule.why, rule.source)), rule.id
        assert rule.rule.rstrip().endswith("."), f"{rule.id}: the rule sentence should end with a full stop"


def test_every_rule_is_enforced_and_tested(trace: Traceability) -> None:
    gaps = trace.gaps()
    report = "\n".join(f"  {rule_id}: {'; '.join(what)}" for rule_id, what in gaps.items())
    assert not gaps, (
        f"{len(gaps)} of {len(trace.spec.rules)} rules lack an enforcing site (an ID mention in a "
        f"model/loopspec module) or a test naming them:\n{report}"
    )


def test_no_citation_of_an_undefined_rule(trace: Traceability) -> None:
    bad = trace.undefined()
    report = "\n".join(f"  {c.rule_id} at {c.where}" + (f" ({c.scope})" if c.scope else "") for c in bad)
    assert not bad, f"code or tests cite IDs that spec/*.md does not define:\n{report}"


def test_the_checks_above_can_fail(tmp_path: Path) -> None:
    """The scanner finds a missing site, a missing test and an undefined ID in a toy checkout."""
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "01-toy.md").write_text(
        "# Toy\n\n"
        "## TOY-1 — Enforced and tested\n- **Rule:** R.\n- **Why:** W.\n- **Source:** S.\n- **Checkable from:** log\n\n"
        "## TOY-2 — Neither\n- **Rule:** R.\n- **Why:** W.\n- **Source:** S.\n- **Checkable from:** live\n",
        encoding="utf-8",
    )
    model = tmp_path / "model" / "loopspec"
    model.mkdir(parents=True)
    (model / "code.py").write_text("def f() -> None:\n    # TOY-1 and TOY-9\n    pass\n", encoding="utf-8")
    (model / "rules").mkdir()
    (model / "rules" / "catalogue.py").write_text("# TOY-2 (tooling: not an enforcing site)\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text('"""TOY-1"""\n', encoding="utf-8")
    (tmp_path / "tests" / "test_traceability.py").write_text("# TOY-2 does not count\n", encoding="utf-8")
    toy = collect(load_spec(tmp_path / "spec"), tmp_path)
    assert toy.gaps() == {"TOY-2": ("no enforcing site in model/loopspec", "no test naming it")}
    assert [(c.rule_id, c.file, c.line, c.scope) for c in toy.undefined()] == [
        ("TOY-9", "model/loopspec/code.py", 2, "f")
    ]


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("## TOY-1 — T\n- **Rule:** R.\n- **Why:** W.\n- **Source:** S.\n", r"lacks field\(s\) Checkable from"),
        (
            "## TOY-1 — T\n- **Rule:** R.\n- **Why:** W.\n- **Source:** S.\n- **Checkable from:** logs\n",
            "must be one of",
        ),
        ("## TOY-1 - T\n- **Rule:** R.\n", "malformed rule heading"),
        ("## TOY-1 — T\n- **Rule:** R.\n- **Rule:** again.\n", "given twice"),
        ("## TOY-1 — T\n- **Rule:** R.\nstray prose\n", "unexpected line"),
    ],
)
def test_malformed_rules_are_reported_with_their_line(tmp_path: Path, text: str, complaint: str) -> None:
    path = tmp_path / "01-bad.md"
    path.write_text("# Bad\n\n" + text, encoding="utf-8")
    with pytest.raises(SpecFormatError, match=complaint) as err:
        parse_file(path)
    assert "01-bad.md:" in str(err.value)


def test_missing_spec_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SpecFormatError, match="spec directory not found"):
        load_spec(tmp_path / "nowhere")
