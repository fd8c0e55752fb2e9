"""One home per fact: no module-level constant of the package is defined again elsewhere (issue 24).

A constant written out in two modules drifts: one copy is edited and the other silently keeps the
old fact. A definition counts as the same when two modules bind the same upper-case name to the
same expression (compared as syntax trees, so spacing and comments do not matter), or bind any
names to the same string literal of the wire format (a kind, a reason, a list's name). Imports
and aliases of an imported constant are not definitions. Type variables are exempt: each module
declares its own by the language's rules.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from conftest import REPO

PACKAGE = REPO / "model" / "loopspec"
# Strings that name different things in different modules, each with the reason it is not one fact.
DIFFERENT_FACTS = {
    "stopping": "a phase of the loop (loop) and the family of turn-stopping answers exploration draws "
                "from (statespace)",
}


def _definitions() -> dict[str, list[tuple[str, str, ast.expr]]]:
    """Upper-case module-level name -> [(module, name, value expression)]."""
    found: dict[str, list[tuple[str, str, ast.expr]]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        module = str(path.relative_to(PACKAGE))
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if (
                isinstance(node, ast.AnnAssign) and node.value is not None) else []
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            for target in targets:
                names = [target] if isinstance(target, ast.Name) else list(getattr(target, "elts", []))
                values = [value] if isinstance(target, ast.Name) else list(getattr(value, "elts", []))
                for name, expr in zip(names, values, strict=False):
                    if isinstance(name, ast.Name) and name.id.lstrip("_").isupper() and expr is not None:
                        found[name.id].append((module, name.id, expr))
    return found


def _is_alias_or_type_variable(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Name | ast.Attribute):
        return True  # X = imported.Y: a second name for the one definition
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "TypeVar"


def test_no_constant_is_defined_in_two_modules() -> None:
    twice = []
    for name, places in _definitions().items():
        by_value: dict[str, list[str]] = defaultdict(list)
        for module, _, expr in places:
            if not _is_alias_or_type_variable(expr):
                by_value[ast.dump(expr)].append(module)
        twice += [f"{name} in {', '.join(modules)}" for modules in by_value.values() if len(set(modules)) > 1]
    assert not twice, f"defined again instead of imported from its one home: {twice}"


def test_no_wire_string_is_spelled_as_a_constant_in_two_modules() -> None:
    modules_of: dict[str, set[str]] = defaultdict(set)
    for places in _definitions().values():
        for module, _, expr in places:
            if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and len(expr.value) > 3:
                modules_of[expr.value].add(module)
    twice = {value: sorted(modules) for value, modules in modules_of.items()
             if len(modules) > 1 and value not in DIFFERENT_FACTS}
    assert not twice, f"one string, several constants (import it from one home): {twice}"
