"""Each event kind is spelled in one module (issue 24): :mod:`loopspec.log.kinds`, or for the live
notifications :mod:`loopspec.data.notification_kinds`, which it re-exports."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from conftest import REPO
from loopspec.data import notification_kinds
from loopspec.log import kinds

PACKAGE = REPO / "model" / "loopspec"
HOMES = {Path(kinds.__file__).resolve(), Path(notification_kinds.__file__).resolve()}
SPELLINGS = {value for name, value in vars(kinds).items() if name.isupper() and isinstance(value, str)}


def _kind_literals(path: Path) -> list[tuple[int, str]]:
    """The string tokens of ``path`` that are exactly a kind, quoted (docstrings and prose are longer)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    out: list[tuple[int, str]] = []
    for token in tokens:
        text = token.string
        if token.type == tokenize.STRING and text[:1] in "\"'" and text[1:-1] in SPELLINGS:
            out.append((token.start[0], text[1:-1]))
    return out


def test_the_kinds_module_names_every_kind_the_notifications_carry() -> None:
    assert {"agent/inbox/inserted", "agent/inbox/discarded", "agent/inbox/claimed", "agent/status",
            "agent/error"} <= SPELLINGS
    assert kinds.SURFACE | kinds.TOOL_TRAFFIC <= SPELLINGS
    assert len(SPELLINGS) == len([v for n, v in vars(kinds).items() if n.isupper() and isinstance(v, str)])


def test_no_module_of_the_package_spells_a_kind_of_its_own() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line}: {kind!r}"
        for path in sorted(PACKAGE.rglob("*.py")) if path.resolve() not in HOMES
        for line, kind in _kind_literals(path)
    ]
    assert found == []


def test_the_scan_sees_a_spelled_kind(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('"""A docstring naming "turn/start" is prose."""\nKIND = "turn/start"\nTEXT = f"{KIND} at"\n')
    assert _kind_literals(probe) == [(2, "turn/start")]
