"""Sections of ``docs/traceability.md``: for every rule, where the model enforces it and which tests prove it."""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from loopspec.specdoc.markdown import cell, file_link, rule_link
from loopspec.specdoc.traceability import Citation

if TYPE_CHECKING:
    from loopspec.specdoc.project import Project


def _short(path: str) -> str:
    """A citation's file without the directory every model file shares."""
    return path.removeprefix("model/loopspec/")


def _sites(citations: tuple[Citation, ...]) -> str:
    """One link per cited line, with the enclosing def/class: ``inbox.py:87 (mutate)``."""
    links = []
    for c in sorted(set(citations)):
        label = f"{_short(c.file)}:{c.line}" + (f" ({c.scope})" if c.scope else "")
        links.append(file_link(label, c.file, c.line))
    return "<br>".join(links) if links else "—"


def _tests(citations: tuple[Citation, ...]) -> str:
    """One link per test (file::scope), at its first mention of the rule."""
    first: dict[tuple[str, str], Citation] = {}
    for c in sorted(citations):
        first.setdefault((c.file, c.scope), c)
    links = []
    for c in first.values():
        label = c.file.removeprefix("tests/") + (f"::{c.scope}" if c.scope else "")
        links.append(file_link(label, c.file, c.line))
    return "<br>".join(links) if links else "—"


def summary(project: Project) -> str:
    rules = project.spec.rules
    trace = project.traceability
    enforced = sum(1 for r in rules if trace.sites_of(r.id))
    tested = sum(1 for r in rules if trace.tests_of(r.id))
    return (
        "Every normative rule of `spec/` should have at least one enforcing site in `model/loopspec` (a\n"
        "docstring or comment citing its ID next to the code that implements it) and at least one test that\n"
        "names it. `tests/specdoc/test_traceability.py` fails while either is missing.\n\n"
        f"- rules: {len(rules)}\n"
        f"- with an enforcing site: {enforced}\n"
        f"- named by a test: {tested}\n"
        f"- citations of undefined IDs: {len(trace.undefined())}\n"
    )


def gaps(project: Project) -> str:
    missing = project.traceability.gaps()
    lines = ["## Gaps", ""]
    if not missing:
        lines.append("None: every rule is enforced and tested.")
    else:
        for rule_id, what in missing.items():
            rule = project.spec.get(rule_id)
            label = rule_link(rule) if rule else rule_id
            lines.append(f"- {label}: {'; '.join(what)}")
    return "\n".join(lines) + "\n"


def by_area(project: Project) -> str:
    trace = project.traceability
    out: list[str] = []
    for area, rules in groupby(project.spec.rules, key=lambda r: r.area):
        rules_in_area = list(rules)
        out += [f"## {area}", "", f"Defined in `{rules_in_area[0].file}`.", ""]
        out += ["| rule | title | checkable from | enforced at | tests |", "|---|---|---|---|---|"]
        for rule in rules_in_area:
            out.append(
                f"| {rule_link(rule)} | {cell(rule.title)} | {', '.join(rule.checkable_from)} "
                f"| {_sites(trace.sites_of(rule.id))} | {_tests(trace.tests_of(rule.id))} |"
            )
        out.append("")
    return "\n".join(out)


def undefined(project: Project) -> str:
    bad = project.traceability.undefined()
    lines = ["## Citations of undefined IDs", ""]
    if not bad:
        lines.append("None.")
    for c in bad:
        lines.append(f"- `{c.rule_id}` at {file_link(c.where, c.file, c.line)}")
    return "\n".join(lines) + "\n"
