"""Generated regions inside the hand-written spec chapters: the lifecycle table and code beside the rules.

A chapter marks a region with two comment lines::

    <!-- BEGIN generated: NAME — written by `loopspec docs --write`, do not edit by hand -->
    <!-- END generated: NAME -->

and ``loopspec docs --write`` replaces what lies between them with what :data:`REGION_KINDS`
renders for ``NAME``; ``loopspec docs --check`` fails when a region differs from it.  A name is a
kind and its argument: ``lifecycle-table`` (the model's table as Markdown) or
``code model/loopspec/PATH.py::FUNCTION`` (the source of the function that enforces the rules
around it, so a reviewer reads the rule and its code together).  The rest of the chapter is
kept as written.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from loopspec.rules.catalogue import SpecFormatError
from loopspec.specdoc.diagrams import table_markdown
from loopspec.specdoc.project import Project

_REGION = re.compile(
    r"^<!-- BEGIN generated: (?P<name>.+?) — written by `loopspec docs --write`, do not edit by hand -->\n"
    r"(?P<body>.*?)"
    r"^<!-- END generated: (?P=name) -->$",
    re.MULTILINE | re.DOTALL,
)
_BEGIN_LINE = re.compile(r"^<!-- BEGIN generated: ", re.MULTILINE)
# Docstring paragraphs the excerpt leaves out: the PEP 316 conditions CrossHair checks
# (docs/contracts.md lists them) are for the prover, not the reader of a rule.
_CONTRACT_PARAGRAPH = re.compile(r"^(Contracts \(|pre:|post:|raises:|inv:)")


def begin(name: str) -> str:
    return f"<!-- BEGIN generated: {name} — written by `loopspec docs --write`, do not edit by hand -->"


def end(name: str) -> str:
    return f"<!-- END generated: {name} -->"


def _function(tree: ast.Module, qualified: str) -> ast.FunctionDef | None:
    scope: list[ast.stmt] = tree.body
    found: ast.FunctionDef | ast.ClassDef | None = None
    for part in qualified.split("."):
        found = next((n for n in scope if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part), None)
        if found is None:
            return None
        scope = found.body
    return found if isinstance(found, ast.FunctionDef) else None


def _contract_paragraph(paragraph: str) -> bool:
    return _CONTRACT_PARAGRAPH.match(paragraph.strip()) is not None


def _readers_docstring(doc: str, indent: str) -> list[str]:
    """A docstring without its contract paragraphs, as source lines."""
    text = "\n\n".join(p for p in doc.split("\n\n") if not _contract_paragraph(p)).strip()
    if not text:
        return []
    lines = [f'{indent}"""{line}' if i == 0 else (f"{indent}{line}" if line else "")
             for i, line in enumerate(text.splitlines())]
    if len(lines) == 1:
        return [lines[0] + '"""']
    return [*lines, f'{indent}"""']


def function_excerpt(root: Path, where: str) -> tuple[str, bool]:
    """``PATH::NAME``: the function's source (decorators, signature, body) with a reader's docstring,
    and whether contract paragraphs were left out of it."""
    path, _, qualified = where.partition("::")
    source = (root / path).read_text(encoding="utf-8")
    node = _function(ast.parse(source), qualified)
    if node is None:
        raise SpecFormatError(f"generated region 'code {where}': {path} defines no function {qualified!r}")
    lines = source.splitlines()
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
    last = node.end_lineno or node.lineno
    doc = ast.get_docstring(node)
    if doc is None or len(node.body) == 1:
        return textwrap.dedent("\n".join(lines[first:last])), False
    statement = lines[node.body[1].lineno - 1]
    indent = statement[: len(statement) - len(statement.lstrip())]
    doc_first, doc_last = node.body[0].lineno - 1, node.body[0].end_lineno or node.body[0].lineno
    picked = [*lines[first:doc_first], *_readers_docstring(doc, indent), *lines[doc_last:last]]
    return textwrap.dedent("\n".join(picked)), any(_contract_paragraph(p) for p in doc.split("\n\n"))


def _code(project: Project, where: str) -> str:
    path, _, qualified = where.partition("::")
    excerpt, omitted = function_excerpt(project.root, where)
    note = " (its CrossHair contracts left out, see [docs/contracts.md](../docs/contracts.md))" if omitted else ""
    return f"`{qualified}` in [{path}](../{path}){note}:\n\n```python\n{excerpt}\n```"


def _lifecycle_table(project: Project, _: str) -> str:
    return table_markdown(project.spec)


REGION_KINDS: Mapping[str, Callable[[Project, str], str]] = MappingProxyType({
    "lifecycle-table": _lifecycle_table,
    "code": _code,
})


def render_region(project: Project, name: str) -> str:
    kind, _, argument = name.partition(" ")
    renderer = REGION_KINDS.get(kind)
    if renderer is None:
        raise SpecFormatError(f"generated region {name!r}: unknown kind {kind!r} (known: {', '.join(REGION_KINDS)})")
    return renderer(project, argument)


def with_regions(project: Project, chapter: str, text: str) -> str:
    """A chapter's text with every generated region filled in afresh."""
    if len(_BEGIN_LINE.findall(text)) != len(_REGION.findall(text)):
        raise SpecFormatError(f"{chapter}: a generated region's BEGIN line has no matching END line")

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        return f"{begin(name)}\n\n{render_region(project, name)}\n\n{end(name)}"

    return _REGION.sub(fill, text)
