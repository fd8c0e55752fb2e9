"""The README's command table names every option of every command, and its layout every folder
of the repository (issue 40): a user meets the tool there first."""

from __future__ import annotations

import argparse
import re

from conftest import REPO
from loopspec.cli import build_parser

README = (REPO / "README.md").read_text(encoding="utf-8")


def _options(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                found += _options(child, f"{name} {sub}")
        found += [(name, o) for o in action.option_strings if o.startswith("--") and o != "--help"]
    return found


def test_the_command_table_names_every_option() -> None:
    table = README[README.index("## Using the oracle"):README.index("## For implementers")]
    rows = [line for line in table.splitlines() if line.startswith("| `loopspec")]
    missing = []
    for command, option in _options(build_parser(), "loopspec"):
        mine = [row for row in rows if row.startswith(f"| `{command}") or f"`{command} " in row]
        if not any(re.search(rf"{re.escape(option)}\b", row) for row in mine):
            missing.append(f"{command} {option}")
    assert not missing, f"the README's command table does not name: {missing}"


def test_the_layout_names_every_folder() -> None:
    layout = README[README.index("## Layout"):]
    folders = sorted(p.name for p in REPO.iterdir() if p.is_dir() and (p.name == ".ci" or not p.name.startswith(".")))
    folders = [f for f in folders if f not in ("__pycache__",) and (REPO / f / ".git").exists() is False]
    tracked = [f for f in folders if any((REPO / f).rglob("*"))]
    missing = [f for f in tracked if f"`{f}/" not in layout and f"`{f}`" not in layout]
    assert not missing, f"the README's layout does not name: {missing}"
