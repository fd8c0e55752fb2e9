"""The glossary (``spec/glossary.md``) defines words the rules use and links rules that exist (issue 26).

Each entry is a ``### term`` heading, its definition, and a ``Rules:`` line of links
``[ID](NN-chapter.md#anchor)``.  An entry is wrong when it links an ID the catalogue does not
define, links a defined rule at another anchor, links a rule whose text does not use the term,
or defines a term that no rule's text uses.  A rule's text is its title, its statement, its why
and what its Checkable-from paragraph says about the log; the term counts in the heading's words
with hyphens or spaces between them, or run together (``follow-up``: followup), the last word
also with a plural or verb ending (``boundary``: boundaries, ``latch``: latched).
"""

from __future__ import annotations

import re

import attrs

from conftest import REPO
from loopspec.rules.catalogue import Rule, Spec, load_spec

GLOSSARY = REPO / "spec" / "glossary.md"
_LINK = re.compile(r"\[(?P<id>[^\]]+)\]\((?P<target>[^)]+)\)")
# The terms issue 26 names; the glossary must keep defining them.
REQUIRED = ("boundary", "batch", "claim", "pure deletion", "waking send", "latch", "park", "chain",
            "turn-stopping", "pre-step decision", "crash repair", "torn tail")


@attrs.frozen
class Entry:
    term: str
    line: int
    links: tuple[tuple[str, str], ...]  # (link text, target)


def entries(text: str) -> tuple[Entry, ...]:
    found: list[Entry] = []
    term: str | None = None
    line = 0
    links: list[tuple[str, str]] = []
    for number, raw in enumerate([*text.splitlines(), "### "], start=1):
        if raw.startswith(("### ", "## ")):
            if term is not None:
                found.append(Entry(term, line, tuple(links)))
            term, line, links = (raw[4:].strip(), number, []) if raw.startswith("### ") else (None, 0, [])
        elif term is not None and raw.startswith("Rules: "):
            links += [(m["id"], m["target"]) for m in _LINK.finditer(raw)]
    return tuple(found)


def term_pattern(term: str) -> re.Pattern[str]:
    words = [re.escape(word) for word in re.split(r"[\s-]+", term.strip())]
    last = words[-1]
    endings = ["", "s", "es", "ed", "d", "ing"]
    forms = [last + ending for ending in endings]
    if term.endswith("y"):
        forms.append(last[:-1] + "ies")
    if term.endswith("e"):
        forms.append(last[:-1] + "ing")
    body = r"[\s-]?".join([*words[:-1], "(?:" + "|".join(forms) + ")"])
    return re.compile(r"(?<![\w-])" + body + r"(?![\w-])", re.IGNORECASE)


def rule_text(rule: Rule) -> str:
    return " ".join((rule.title, rule.rule, rule.why, rule.evidence))


def problems(glossary: tuple[Entry, ...], spec: Spec) -> list[str]:
    out: list[str] = []
    terms = [entry.term.lower() for entry in glossary]
    out += [f"{term} is defined twice" for term in sorted({t for t in terms if terms.count(t) > 1})]
    for entry in glossary:
        where = f"glossary.md:{entry.line}: {entry.term}"
        pattern = term_pattern(entry.term)
        if not any(pattern.search(rule_text(rule)) for rule in spec.rules):
            out.append(f"{where}: no rule's text uses the term")
        if not entry.links:
            out.append(f"{where}: links no rule")
        for rule_id, target in entry.links:
            rule = spec.get(rule_id)
            if rule is None:
                out.append(f"{where}: links {rule_id}, which no chapter defines")
            elif target != rule.section.removeprefix("spec/"):
                out.append(f"{where}: links {rule_id} at {target}, but the rule is at {rule.section}")
            elif not pattern.search(rule_text(rule)):
                out.append(f"{where}: links {rule_id}, whose text does not use the term")
    return out


def test_glossary_links_only_rules_that_exist_and_use_the_term() -> None:
    found = problems(entries(GLOSSARY.read_text(encoding="utf-8")), load_spec(REPO / "spec"))
    assert not found, "\n".join(found)


def test_glossary_defines_the_terms_the_issue_names() -> None:
    defined = {entry.term.lower() for entry in entries(GLOSSARY.read_text(encoding="utf-8"))}
    assert not set(REQUIRED) - defined


def _link(rule: Rule) -> str:
    return f"Rules: [{rule.id}]({rule.section.removeprefix('spec/')}).\n"


def _wrong_entries(spec: Spec) -> tuple[tuple[str, str], ...]:
    """(glossary text, the problem it must raise); IDs are taken from the spec, not written here, so
    this module cites no rule (docs/traceability.md counts a test's mentions as proofs)."""
    claim = next(rule for rule in spec.rules if term_pattern("claim").search(rule.title))
    latch = next(rule for rule in spec.rules if term_pattern("latch").search(rule.title))
    unknown = f"{claim.area}-{max(rule.number for rule in spec.rules) + 1}"
    return (
        (f"### claim\nX.\nRules: [{unknown}](x.md#y).\n", f"links {unknown}, which no chapter defines"),
        ("### frobnication\nX.\n" + _link(claim), "no rule's text uses the term"),
        (f"### claim\nX.\nRules: [{claim.id}](06-claim.md#wrong).\n", f"but the rule is at {claim.file}#"),
        ("### torn tail\nX.\n" + _link(claim), f"links {claim.id}, whose text does not use the term"),
        ("### latch\nX.\n", "links no rule"),
        ("### latch\nX.\n" + _link(latch) + "### Latch\nY.\n" + _link(latch), "latch is defined twice"),
    )


def test_a_wrong_entry_is_reported() -> None:
    spec = load_spec(REPO / "spec")
    for text, expected in _wrong_entries(spec):
        found = problems(entries(text), spec)
        assert any(expected in problem for problem in found), (text, found)


def test_terms_match_their_inflections_and_spellings() -> None:
    assert term_pattern("boundary").search("later boundaries of the same turn")
    assert term_pattern("latch").search("a wake latched after an abort")
    assert term_pattern("follow-up").search("`followup` MUST insert")
    assert term_pattern("turn-stopping").search("Turn stopping")
    assert not term_pattern("step").search("all of next-step")
    assert not term_pattern("park").search("sparkle")
