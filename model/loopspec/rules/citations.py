"""Source citations in the spec and docs, resolved against ``spec/sources.md``.

Every rule names its sources with short tokens (``seed000``, ``seed002 §3``, ``real §6.6``,
``S23``, ``real traces``).  ``spec/sources.md`` defines one HTML anchor per source and section and
states, at its top, the grammar that maps a token to its anchor; this module is that grammar as
code.  A citation that names no anchor, or a ``§`` that belongs to no citation, is reported with
its file and line so that the traceability check can fail on it: a citation that resolves only
to a document outside the repository helps no reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import attrs

SOURCES_FILE = "sources.md"

CITATION = re.compile(
    r"\b(?P<seed>seed00[023])\b(?: §(?P<seedsec>[1-4])\b)?"
    r"|\breal (?:v[0-9][0-9a-z.]*[0-9a-z] )?§(?P<real>[0-9]+(?:\.[0-9]+)?)"
    r"|\b(?P<scenario>S[0-9]{1,2})\b"
    r"|\b(?P<recordings>real traces?)\b"
)
_ANCHOR = re.compile(r'<a id="(?P<id>[^"]+)"></a>')
# The grammar section of sources.md shows the forms with placeholders; it ends at this anchor.
_GRAMMAR_END = '<a id="precedence"></a>'
# A fenced block (code, a regular expression) is not prose: it cites nothing.
_FENCE = re.compile(r"^\s*```")


@attrs.frozen(order=True)
class Citation:
    """One citation token at a place in a Markdown file."""

    file: str
    line: int
    text: str
    anchor: str


@attrs.frozen(order=True)
class Unresolved:
    """A citation with no anchor in ``sources.md``, or a stray ``§`` that cites nothing."""

    file: str
    line: int
    text: str
    why: str


def anchor_of(match: re.Match[str]) -> str:
    """The ``sources.md`` anchor a citation token names (the grammar at the top of that file)."""
    if match["seed"]:
        return match["seed"] + (f"-{match['seedsec']}" if match["seedsec"] else "")
    if match["real"]:
        return f"real-{match['real']}"
    if match["scenario"]:
        # File names pad the number (S07-...); the scenario is S7 all the same.
        return f"real-10-s{int(match['scenario'][1:])}"
    return "recordings"


def anchors(sources: Path) -> frozenset[str]:
    return frozenset(m["id"] for m in _ANCHOR.finditer(sources.read_text(encoding="utf-8")))


def _prose_lines(path: Path) -> Iterable[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    if path.name == SOURCES_FILE:
        # Keep the line numbers: blank out the grammar section instead of cutting it.
        head, _, tail = text.partition(_GRAMMAR_END)
        text = "\n" * head.count("\n") + tail
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            # An anchor's id is the target of citations, not one; blank it out, keeping columns.
            yield number, _ANCHOR.sub(lambda m: " " * len(m[0]), line)


def scan(paths: Iterable[Path], sources: Path, root: Path) -> tuple[tuple[Citation, ...], tuple[Unresolved, ...]]:
    """Every citation in ``paths`` and every one that does not resolve, in file and line order."""
    known = anchors(sources)
    found: list[Citation] = []
    bad: list[Unresolved] = []
    for path in sorted(paths):
        rel = path.relative_to(root).as_posix()
        for number, line in _prose_lines(path):
            covered: set[int] = set()
            for match in CITATION.finditer(line):
                anchor = anchor_of(match)
                found.append(Citation(rel, number, match[0], anchor))
                covered.update(range(match.start(), match.end()))
                if anchor not in known:
                    bad.append(Unresolved(rel, number, match[0], f"no anchor #{anchor} in spec/{SOURCES_FILE}"))
            for index, char in enumerate(line):
                if char == "§" and index not in covered:
                    bad.append(Unresolved(rel, number, line[max(0, index - 12):index + 8].strip(),
                                          "a § that belongs to no `real §N` or `seed002 §K` citation"))
    return tuple(found), tuple(bad)
