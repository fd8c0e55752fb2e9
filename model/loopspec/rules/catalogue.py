"""The rule catalogue in ``spec/*.md``, parsed into values.

Every normative rule is a level-2 heading ``## ID — title`` followed by exactly four bullets:
``**Rule:**`` (the norm), ``**Why:**``, ``**Source:**`` and ``**Checkable from:**`` (``log``,
``live`` or ``commands``, optionally followed by `` — `` and how a log or a live stream shows the
rule, which keeps the statement to the norm itself).  Tooling (traceability checks, generated
documentation) reads the spec only through :func:`load_spec`, so the format is defined in one
place and a malformed rule is reported with its file and line instead of being silently skipped.

The spec is found by :func:`loopspec.rules.shipped.spec_dir`: the package data of an installed
wheel, else the checkout's ``spec/``.  A rule's :attr:`Rule.file` is always ``spec/NAME.md``, the
path of its chapter in the repository, wherever it was read from.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

from loopspec.rules.shipped import CHECKOUT_GUESS, SpecMissing
from loopspec.rules.shipped import spec_dir as shipped_spec_dir

# The source checkout's root and spec, for the tools that only work in one (``loopspec docs``).
REPO_ROOT = CHECKOUT_GUESS
SPEC_DIR = REPO_ROOT / "spec"

CHECKABLE_FROM = ("log", "live", "commands")
FIELDS = (("rule", "Rule"), ("why", "Why"), ("source", "Source"), ("checkable_from", "Checkable from"))

# A rule ID: an area in capitals, a hyphen, a number (e.g. CLAIM-4).  Vectors and reports match IDs
# with this pattern too, so the syntax is stated once.
RULE_ID_PATTERN = "[A-Z]+-[0-9]+"
_HEADING = re.compile(rf"^## (?P<id>{RULE_ID_PATTERN}) — (?P<title>\S.*)$")
# A level-2 heading that looks like a rule but is not in the exact format is a typo, not prose.
_NEAR_HEADING = re.compile(rf"^##\s+{RULE_ID_PATTERN}\b")
_BULLET = re.compile(r"^- \*\*(?P<name>[A-Za-z ]+):\*\* (?P<text>\S.*)$")
_ID = re.compile(r"^(?P<area>[A-Z]+)-(?P<number>[0-9]+)$")


def heading_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


class SpecFormatError(ValueError):
    """The spec directory is missing or a rule is not in the catalogue's exact format."""


@attrs.frozen
class Rule:
    """One normative rule of the catalogue."""

    id: str
    title: str
    rule: str
    why: str
    source: str
    checkable_from: tuple[str, ...]
    file: str
    line: int
    # How a log (or live stream) shows the rule, after the classification: a checker's inferences.
    evidence: str = ""

    @property
    def area(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def number(self) -> int:
        return int(self.id.split("-", 1)[1])

    @property
    def anchor(self) -> str:
        return heading_anchor(f"{self.id} — {self.title}")

    @property
    def section(self) -> str:
        """Where the rule is stated: ``spec/NN-chapter.md#anchor``."""
        return f"{self.file}#{self.anchor}"


@attrs.frozen
class Spec:
    """All rules in catalogue order (file name order, then position in the file)."""

    rules: tuple[Rule, ...]

    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rules)

    def areas(self) -> tuple[str, ...]:
        """Area prefixes in order of first appearance (``DATA``, ``NORM``, ...)."""
        seen: dict[str, None] = {}
        for r in self.rules:
            seen.setdefault(r.area, None)
        return tuple(seen)

    def get(self, rule_id: str) -> Rule | None:
        for r in self.rules:
            if r.id == rule_id:
                return r
        return None

    def id_pattern(self) -> re.Pattern[str]:
        """Matches any token shaped like an ID of one of the spec's areas, defined or not."""
        return re.compile(r"\b(?:" + "|".join(self.areas()) + r")-[0-9]+\b")


def _parse_bullets(lines: list[str], path: Path, heading_line: int) -> dict[str, str]:
    """The four bullets of one rule; continuation lines (indented) join their bullet."""
    found: dict[str, str] = {}
    current: str | None = None
    for offset, raw in enumerate(lines, start=1):
        line_no = heading_line + offset
        if not raw.strip():
            current = None
            continue
        match = _BULLET.match(raw)
        if match:
            names = {label: key for key, label in FIELDS}
            key = names.get(match["name"])
            if key is None:
                raise SpecFormatError(f"{path.name}:{line_no}: unknown field '{match['name']}'")
            if key in found:
                raise SpecFormatError(f"{path.name}:{line_no}: field '{match['name']}' given twice")
            found[key] = match["text"].strip()
            current = key
        elif current is not None and raw.startswith("  "):
            found[current] += " " + raw.strip()
        else:
            raise SpecFormatError(f"{path.name}:{line_no}: unexpected line inside a rule: {raw.strip()[:60]!r}")
    missing = [label for key, label in FIELDS if key not in found]
    if missing:
        raise SpecFormatError(f"{path.name}:{heading_line}: rule lacks field(s) {', '.join(missing)}")
    return found


def parse_file(path: Path, file: str | None = None) -> tuple[Rule, ...]:
    """The rules of one spec file, in order; ``file`` names it in the rules (default ``spec/NAME``)."""
    text = path.read_text(encoding="utf-8").splitlines()
    starts: list[int] = []
    for index, line in enumerate(text):
        if _HEADING.match(line):
            starts.append(index)
        elif _NEAR_HEADING.match(line):
            raise SpecFormatError(f"{path.name}:{index + 1}: malformed rule heading {line!r}")
    rules: list[Rule] = []
    for n, start in enumerate(starts):
        heading = _HEADING.match(text[start])
        assert heading is not None
        # A rule runs to the next heading of any level.
        end = next((i for i in range(start + 1, len(text)) if text[i].startswith("#")), len(text))
        if n + 1 < len(starts):
            end = min(end, starts[n + 1])
        fields = _parse_bullets(text[start + 1 : end], path, start + 1)
        classification, _, evidence = fields["checkable_from"].partition(" — ")
        checkable = tuple(part.strip() for part in classification.split(","))
        bad = [c for c in checkable if c not in CHECKABLE_FROM]
        if bad:
            raise SpecFormatError(
                f"{path.name}:{start + 1}: {heading['id']}: 'Checkable from' must be one of "
                f"{' | '.join(CHECKABLE_FROM)}, got {', '.join(bad)}"
            )
        rules.append(
            Rule(
                id=heading["id"],
                title=heading["title"].strip(),
                rule=fields["rule"],
                why=fields["why"],
                source=fields["source"],
                checkable_from=checkable,
                file=file or f"spec/{path.name}",
                line=start + 1,
                evidence=evidence.strip(),
            )
        )
    return tuple(rules)


def load_spec(spec_dir: Path | None = None) -> Spec:
    """Parse every ``spec/*.md`` (default: the shipped spec); :class:`SpecFormatError` when absent,
    malformed or ambiguous."""
    if spec_dir is None:
        try:
            spec_dir = shipped_spec_dir()
        except SpecMissing as err:
            raise SpecFormatError(str(err)) from None
    if not spec_dir.is_dir():
        raise SpecFormatError(f"spec directory not found at {spec_dir}")
    rules: list[Rule] = []
    where: dict[str, str] = {}
    for path in sorted(spec_dir.glob("*.md")):
        for rule in parse_file(path):
            if rule.id in where:
                raise SpecFormatError(f"{rule.file}:{rule.line}: {rule.id} is already defined in {where[rule.id]}")
            where[rule.id] = f"{rule.file}:{rule.line}"
            rules.append(rule)
    if not rules:
        raise SpecFormatError(f"no rules found in {spec_dir}/*.md")
    return Spec(tuple(rules))


def sort_key(rule_id: str) -> tuple[str, int]:
    """Order IDs by area, then numerically (rule 2 of an area before its rule 10)."""
    match = _ID.match(rule_id)
    if match is None:
        return (rule_id, 0)
    return (match["area"], int(match["number"]))
