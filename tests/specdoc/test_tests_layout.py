"""The tests mirror the package, and share helpers through fixtures modules (issue 24).

Every package of ``model/loopspec`` has a folder of the same name under ``tests/`` with at least
one test module, so a reader finds a package's tests where its name says.  A test module
(``test_*.py``) imports no other test module: what two test modules share lives in a module that
is not collected (``tests/<package>/fixtures.py`` and the like), so running, moving or deleting
one test module never changes what another one is.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO


def _is_test_module(name: str) -> bool:
    return name.rsplit(".", 1)[-1].startswith("test_")


def imports_of_test_modules(tests: Path) -> list[str]:
    """``file:line: module`` for every import, in any module under ``tests``, of a test module."""
    found: list[str] = []
    for path in sorted(tests.rglob("*.py")):
        where = path.relative_to(tests).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                # ``from pkg.test_x import y`` names the module; ``from pkg import test_x`` the names do.
                named = [base] if _is_test_module(base) else [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            found += [f"{where}:{node.lineno}: {name.lstrip('.')}" for name in named if _is_test_module(name)]
    return found


def untested_packages(root: Path) -> list[str]:
    """The packages of ``model/loopspec`` with no ``tests/<package>/test_*.py``."""
    packages = sorted(p.parent.name for p in (root / "model" / "loopspec").glob("*/__init__.py"))
    return [name for name in packages if not any((root / "tests" / name).glob("test_*.py"))]


def test_no_test_module_imports_another() -> None:
    found = imports_of_test_modules(REPO / "tests")
    assert not found, "move what is shared into a fixtures module:\n" + "\n".join(found)


def test_every_package_has_a_tests_folder() -> None:
    missing = untested_packages(REPO)
    assert not missing, f"packages of model/loopspec without tests/<package>/test_*.py: {missing}"


def test_the_layout_checks_report_what_they_are_for(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "a").mkdir(parents=True)
    (tests / "a" / "fixtures.py").write_text("import json\n")
    (tests / "a" / "test_one.py").write_text(
        "from a.fixtures import x\nfrom a.test_two import y\nfrom a import test_two, fixtures\n"
        "def f():\n    import a.test_two\n    from .test_two import z\n"
    )
    (tests / "a" / "test_two.py").write_text("from a import fixtures\n")
    assert imports_of_test_modules(tests) == [
        "a/test_one.py:2: a.test_two",
        "a/test_one.py:3: a.test_two",
        "a/test_one.py:5: a.test_two",
        "a/test_one.py:6: test_two",
    ]
    for name in ("a", "b", "c"):
        (tmp_path / "model" / "loopspec" / name).mkdir(parents=True)
        (tmp_path / "model" / "loopspec" / name / "__init__.py").write_text("")
    (tests / "b").mkdir()
    (tests / "b" / "fixtures.py").write_text("")
    assert untested_packages(tmp_path) == ["b", "c"]
