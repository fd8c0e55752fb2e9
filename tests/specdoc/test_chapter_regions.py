"""The generated regions of the spec chapters: the lifecycle table and the code beside the rules (issue 26).

``loopspec docs --check`` compares every chapter with what ``loopspec docs --write`` would write
(``test_generated_docs.py``); these tests pin what the regions hold and that a broken marker or a
function that is gone is an error naming the chapter, never a silently kept stale region.
"""

from __future__ import annotations

import re

import pytest

from conftest import REPO
from loopspec.loop.lifecycle import TABLE
from loopspec.rules.catalogue import SpecFormatError
from loopspec.specdoc.chapter_regions import begin, end, function_excerpt, with_regions
from loopspec.specdoc.generate import render_all
from loopspec.specdoc.project import load_project

EXCERPTS = {
    "spec/03-inbox-operations.md": ("model/loopspec/inbox/operations.py::mutate",),
    "spec/06-claim.md": ("model/loopspec/inbox/operations.py::claim",),
    "spec/07-lifecycle.md": ("model/loopspec/loop/lifecycle.py::step", "model/loopspec/loop/lifecycle.py::_fire"),
    "spec/08-pre-step-decision.md": ("model/loopspec/loop/pre_step.py::run_chain",),
}


def test_the_lifecycle_table_is_in_the_spec_one_line_per_row() -> None:
    chapter = render_all(load_project(REPO))["spec/07-lifecycle.md"]
    region = chapter.split(begin("lifecycle-table"))[1].split(end("lifecycle-table"))[0]
    lines = [line for line in region.splitlines() if line.startswith("| `")]
    assert len(lines) == len(TABLE)
    for line, row in zip(lines, TABLE, strict=True):
        assert line.startswith(f"| `{row.phase}` | `{row.input}` | `{row.guard}` → "), line
        assert f"| `{row.next}` |" in line
        for rule_id in row.rules:
            assert re.search(rf"\[{rule_id}\]\([0-9]{{2}}-[a-z-]+\.md#", line), (rule_id, line)


@pytest.mark.parametrize(("chapter", "where"), [(c, w) for c, ws in EXCERPTS.items() for w in ws])
def test_each_excerpt_is_the_function_as_the_source_has_it(chapter: str, where: str) -> None:
    text = render_all(load_project(REPO))[chapter]
    path, _, name = where.partition("::")
    excerpt, _ = function_excerpt(REPO, where)
    assert f"```python\n{excerpt}\n```" in text.split(begin(f"code {where}"))[1]
    source = (REPO / path).read_text(encoding="utf-8")
    body = [line.strip() for line in excerpt.splitlines() if line.strip() and '"""' not in line]
    assert all(line in source for line in body)
    assert excerpt.startswith(f"def {name}(")


def test_contract_conditions_are_left_out_of_an_excerpt_and_said_to_be() -> None:
    excerpt, omitted = function_excerpt(REPO, "model/loopspec/inbox/operations.py::mutate")
    assert omitted
    assert "post:" not in excerpt
    assert "Contracts (" not in excerpt
    assert '"""The one write path.' in excerpt
    _, plain = function_excerpt(REPO, "model/loopspec/loop/lifecycle.py::_fire")
    assert not plain


def test_a_stale_region_is_written_afresh() -> None:
    project = load_project(REPO)
    name = "code model/loopspec/inbox/operations.py::claim"
    stale = f"# t\n\n{begin(name)}\nold text\n{end(name)}\n\nafter\n"
    fresh = with_regions(project, "t.md", stale)
    assert "old text" not in fresh
    assert fresh.endswith(f"{end(name)}\n\nafter\n")
    assert with_regions(project, "t.md", fresh) == fresh


@pytest.mark.parametrize(("text", "message"), [
    (f"{begin('code model/loopspec/loop/lifecycle.py::no_such')}\n"
     f"{end('code model/loopspec/loop/lifecycle.py::no_such')}\n", "defines no function 'no_such'"),
    (f"{begin('drawing x')}\n{end('drawing x')}\n", "unknown kind 'drawing'"),
    (f"{begin('lifecycle-table')}\n", "has no matching END line"),
])
def test_a_broken_region_is_an_error_naming_it(text: str, message: str) -> None:
    with pytest.raises(SpecFormatError, match=re.escape(message)):
        with_regions(load_project(REPO), "t.md", text)
