"""Every repository path and relative link in README.md, spec/ and docs/ resolves (issue 26).

A *link* is a Markdown link or image whose target is not a URL: it must name a file or folder
relative to the page, and an anchor into a Markdown page (``#anchor``, ``page.md#anchor``) must
name one of its headings, as GitHub spells them, or an ``<a id>``.  A *repository path* is an
inline code span that names a file: it starts with a top-level folder of the repository (``tests/...``,
``model/...``, ``.ci/run``), or it holds a ``/`` and ends in a file extension
(``inbox/operations.py``, ``schemas/event.schema.json``), or it is a bare module name
(``errors.py``; other bare names, ``manifest.json``, name a file a tool reads or writes).  It must
resolve from the repository root, from the page's folder, from ``model/`` or from
``model/loopspec/`` (the package, which the docs name modules by: ``check/lifecycle.py``).
A line suffix (``:12``, ``#L12``), an anchor or a ``::function`` after a path is not part of it.
Code spans with spaces or shell and glob characters are commands or patterns, not paths, and a
path with a placeholder part in capitals (``NAME.events.jsonl``, ``DIR/``) is a pattern too.
The same holds for a Python file named in the prose outside code spans and links (``inbox.py``,
``check/splices.py``).  A *module name* is a code span spelled ``loopspec.PACKAGE.MODULE`` with
perhaps a name after it (``loopspec.inbox.fold.apply``): the module must exist under ``model/``,
and the first name after it must be defined in it.  Fenced code blocks are not read.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

from conftest import REPO
from loopspec.rules.catalogue import heading_anchor

EXTENSIONS = frozenset({"py", "md", "json", "jsonl", "sh", "toml", "svg", "html", "yml", "yaml", "js", "txt",
                        "gz", "cfg", "ini", "csv", "png"})
TOP_LEVEL = frozenset({"model", "tests", "spec", "docs", "examples", "benchmarks", "scripts", ".ci"})
_FENCE = re.compile(r"^(```|~~~)")
_CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_NOT_A_PATH = re.compile(r"[\s*?<>{}\[\]()$|=,;'\"\\]|^-|^[a-z]+:")
_SUFFIX = re.compile(r"(::[\w.]+|#.*|:[0-9]+(-[0-9]+)?)$")
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z_0-9]+$")
_HEADING = re.compile(r"^#{1,6} (.+)$")
_ID_ANCHOR = re.compile(r'<a (?:id|name)="([^"]+)"')
_LINE_ANCHOR = re.compile(r"^L[0-9]+(-L[0-9]+)?$")
# A Python file named in running text: not part of a longer word, path or URL.
_PROSE_FILE = re.compile(r"(?<![\w/.@-])((?:[\w-]+/)*[\w-]+\.py)(?![\w/])")
_MODULE_NAME = re.compile(r"^loopspec(?:\.[A-Za-z_]\w*)+$")


def pages(root: Path) -> tuple[Path, ...]:
    found = [root / "README.md", *sorted((root / "spec").rglob("*.md")), *sorted((root / "docs").rglob("*.md"))]
    return tuple(p for p in found if p.is_file())


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of a page: its headings as GitHub slugs them (a repeated one gets ``-1``, ``-2``)
    and its explicit ``<a id>`` anchors."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in _prose_lines(page.read_text(encoding="utf-8")):
        found.update(_ID_ANCHOR.findall(line))
        heading = _HEADING.match(line)
        if heading:
            slug = heading_anchor(heading[1])
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


def _is_path(token: str) -> bool:
    if _NOT_A_PATH.search(token):
        return False
    if "/" not in token:
        return token.endswith(".py") and not token.startswith(".")
    if token.split("/", 1)[0] in TOP_LEVEL:
        return True
    name = token.rstrip("/").rsplit("/", 1)[-1]
    return "." in name.lstrip(".") and name.rsplit(".", 1)[1] in EXTENSIONS


def _placeholder(token: str) -> bool:
    return any(_PLACEHOLDER.match(word) for word in re.split(r"[-_./]", token))


def _resolves(root: Path, page: Path, target: str, *, from_page_only: bool) -> bool:
    bases = (page.parent,) if from_page_only else (root, page.parent, root / "model", root / "model" / "loopspec")
    return any((base / target).exists() for base in bases)


@functools.cache
def _defined_names(module: Path) -> frozenset[str]:
    """The top-level names a module file defines or imports (read, not imported)."""
    names: set[str] = set()
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        else:
            for child in ast.walk(node):
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    names.add(child.id)
    return frozenset(names)


def module_problem(root: Path, name: str) -> str | None:
    """Why ``loopspec.a.b[.attr]`` names nothing under ``model/``, else None."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        base = root.joinpath("model", *parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if module.is_file():
            rest = parts[cut:]
            if rest and rest[0] not in _defined_names(module) and not (base / f"{rest[0]}.py").is_file():
                return f"{'.'.join(parts[:cut])} defines no {rest[0]}"
            return None
    return "no such module"


def broken(root: Path, page: Path) -> list[str]:
    """``page:line: what`` for every path or link of ``page`` that does not resolve."""
    where = page.relative_to(root).as_posix()
    out: list[str] = []
    for number, line in _prose_lines(page.read_text(encoding="utf-8")):
        without_code = _CODE_SPAN.sub("", line)
        for match in _PROSE_FILE.finditer(_LINK.sub("", without_code)):
            if not _resolves(root, page, match[1], from_page_only=False):
                out.append(f"{where}:{number}: file {match[1]} does not resolve")
        for match in _LINK.finditer(without_code):
            target = match[1]
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            if not _resolves(root, page, path, from_page_only=True):
                out.append(f"{where}:{number}: link {target} does not resolve")
                continue
            linked = page.parent / path if path else page
            if anchor and linked.suffix == ".md" and not _LINE_ANCHOR.match(anchor) and anchor not in anchors(linked):
                out.append(f"{where}:{number}: link {target}: no heading or anchor #{anchor} there")
        for match in _CODE_SPAN.finditer(line):
            token = _SUFFIX.sub("", match[1].strip())
            if _MODULE_NAME.match(token):
                problem = module_problem(root, token)
                if problem is not None:
                    out.append(f"{where}:{number}: module {token}: {problem}")
                continue
            if not _is_path(token) or _resolves(root, page, token, from_page_only=False) or _placeholder(token):
                continue
            else:
                out.append(f"{where}:{number}: path {match[1]} does not resolve")
    return out


def test_every_path_and_link_of_the_docs_resolves() -> None:
    found = [problem for page in pages(REPO) for problem in broken(REPO, page)]
    assert not found, "\n".join(found)


def test_a_stale_path_or_link_is_reported(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_here.py").write_text("")
    (tmp_path / "tests" / "x.md").write_text("# A, b\n")
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "README.md"
    page.write_text(
        "# Top\n"
        "See `tests/test_here.py` and `tests/test_gone.py:12`, [here](../tests/test_here.py#L3),\n"
        "[gone](gone.md), `inbox.py`, `turn/start`, `loopspec check LOG`, `NAME.events.jsonl`,\n"
        "[web](https://example.org), [top](#top), [no](#nowhere) and [there](../tests/x.md#a-b).\n"
        "```\n`tests/in_a_fence.py`\n```\n"
        "The old errors.py and tests/test_here.py, [tests/gone_text.py](../tests/test_here.py), e.g. www.x.py.\n"
        "`loopspec.pkg.mod.here`, `loopspec.pkg.mod.gone`, `loopspec.pkg.lost`, `loopspec.pkg`, `loopspec.pkg.mod`.\n"
    )
    (tmp_path / "model" / "loopspec" / "pkg").mkdir(parents=True)
    (tmp_path / "model" / "loopspec" / "__init__.py").write_text("")
    (tmp_path / "model" / "loopspec" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "model" / "loopspec" / "pkg" / "mod.py").write_text("def here() -> None: ...\n")
    assert broken(tmp_path, page) == [
        "docs/README.md:2: path tests/test_gone.py:12 does not resolve",
        "docs/README.md:3: link gone.md does not resolve",
        "docs/README.md:3: path inbox.py does not resolve",
        "docs/README.md:4: link #nowhere: no heading or anchor #nowhere there",
        "docs/README.md:8: file errors.py does not resolve",
        "docs/README.md:9: module loopspec.pkg.mod.gone: loopspec.pkg.mod defines no gone",
        "docs/README.md:9: module loopspec.pkg.lost: loopspec.pkg defines no lost",
    ]
