"""Where the spec's rule IDs are cited: the model's enforcing sites and the tests that prove them.

A rule is *enforced* where a module of ``model/loopspec`` mentions its ID (docstring or
comment next to the code that implements it) and *tested* where a module of ``tests/`` outside the
mutants package mentions it (a ``@pytest.mark.rule`` marker or a docstring).  Tooling modules that only read or
render the catalogue (this module, the spec parser, the documentation generator) are not
enforcing sites.  Any token shaped like an ID of a spec area that the spec does not define is
an *undefined citation*: a typo or a rule that was renumbered away.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import attrs

from loopspec.rules.catalogue import REPO_ROOT, Spec, sort_key

MODEL_DIR = Path("model") / "loopspec"
TESTS_DIR = Path("tests")
# Modules that read or render the catalogue (or label diagrams with rule IDs): mentioning an ID
# there enforces nothing.
TOOLING_MODULES = frozenset({"cli/docs.py"})
TOOLING_PACKAGES = frozenset({"rules", "specdoc", "render"})  # render draws what the model says
# The traceability test judges the others; its own mentions prove nothing.
META_TESTS = frozenset({"test_traceability.py"})


@attrs.frozen(order=True)
class Citation:
    """One mention of a rule ID: repo-relative file, line, and the enclosing def/class (or '')."""

    file: str
    line: int
    rule_id: str
    scope: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _scopes(source: str) -> tuple[tuple[int, int, str], ...]:
    """(first line incl. decorators, last line, qualified name) of every def and class."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((first, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return tuple(found)


def scan_file(path: Path, pattern: re.Pattern[str], repo_root: Path = REPO_ROOT) -> tuple[Citation, ...]:
    """Every ID-shaped token in one file, with the innermost enclosing def/class."""
    source = path.read_text(encoding="utf-8")
    scopes = _scopes(source)
    rel = path.relative_to(repo_root).as_posix()
    out: list[Citation] = []
    for line_no, line in enumerate(source.splitlines(), start=1):
        for match in pattern.finditer(line):
            enclosing = [s for s in scopes if s[0] <= line_no <= s[1]]
            # The innermost scope is the one that starts last.
            scope = max(enclosing)[2] if enclosing else ""
            out.append(Citation(rel, line_no, match.group(0), scope))
    return tuple(out)


def _python_files(directory: Path) -> tuple[Path, ...]:
    return tuple(sorted(p for p in directory.rglob("*.py") if "__pycache__" not in p.parts))


def _is_tooling(path: Path, model_dir: Path) -> bool:
    rel = path.relative_to(model_dir)
    return rel.as_posix() in TOOLING_MODULES or (len(rel.parts) > 1 and rel.parts[0] in TOOLING_PACKAGES)


@attrs.frozen
class Traceability:
    """Citations of one checkout, split into enforcing sites, test mentions and the rest."""

    spec: Spec
    enforcing: tuple[Citation, ...]
    tests: tuple[Citation, ...]
    other: tuple[Citation, ...]

    def sites_of(self, rule_id: str) -> tuple[Citation, ...]:
        return tuple(c for c in self.enforcing if c.rule_id == rule_id)

    def tests_of(self, rule_id: str) -> tuple[Citation, ...]:
        return tuple(c for c in self.tests if c.rule_id == rule_id)

    def undefined(self) -> tuple[Citation, ...]:
        """Citations anywhere (model, tooling, tests) of an ID the spec does not define."""
        defined = set(self.spec.ids())
        every = self.enforcing + self.tests + self.other
        return tuple(sorted(c for c in every if c.rule_id not in defined))

    def gaps(self) -> dict[str, tuple[str, ...]]:
        """Per rule ID, what is missing ('no enforcing site', 'no test'); only rules with gaps."""
        out: dict[str, tuple[str, ...]] = {}
        for rule in self.spec.rules:
            missing: list[str] = []
            if not self.sites_of(rule.id):
                missing.append("no enforcing site in model/loopspec")
            if not self.tests_of(rule.id):
                missing.append("no test naming it")
            if missing:
                out[rule.id] = tuple(missing)
        return dict(sorted(out.items(), key=lambda item: sort_key(item[0])))


def _is_mutant(path: Path, tests_dir: Path) -> bool:
    return path.relative_to(tests_dir).parts[:2] == ("vectors", "mutants")


def collect(spec: Spec, repo_root: Path = REPO_ROOT) -> Traceability:
    """Scan ``model/loopspec`` and ``tests`` of the checkout at ``repo_root``."""
    pattern = spec.id_pattern()
    model_dir = repo_root / MODEL_DIR
    enforcing: list[Citation] = []
    other: list[Citation] = []
    for path in _python_files(model_dir):
        (other if _is_tooling(path, model_dir) else enforcing).extend(scan_file(path, pattern, repo_root))
    tests: list[Citation] = []
    tests_dir = repo_root / TESTS_DIR
    if tests_dir.is_dir():
        for path in _python_files(tests_dir):
            # The deliberately broken model copies (tests/vectors/mutants) name rules without
            # proving them; every other test module proves the rules it names.
            proves = not _is_mutant(path, tests_dir) and path.name not in META_TESTS
            (tests if proves else other).extend(scan_file(path, pattern, repo_root))
    return Traceability(spec, tuple(enforcing), tuple(tests), tuple(other))
