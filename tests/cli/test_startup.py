"""Start-up of ``loopspec check``: it imports the checker and nothing of the other commands.

The checker runs once per log (or batch) across whole fleets in CI, so what it imports is paid
again and again: Hypothesis (the vectors and ``drive``), jsonschema (tests only), the docs
generator and the vector package must stay out.  Checked in a fresh interpreter, the way a user
runs the command.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from loopspec.cli import COMMAND_MODULES, build_parser

HEAVY = ("hypothesis", "jsonschema", "loopspec.vectors", "loopspec.specdoc", "concurrent.futures",
         "loopspec.inbox.fold")
# attrs builds its own classes as it is imported, about 30 ms of CPU here (3x `python -c pass`),
# and checking a log reads parsed JSON only (decisions.md P2); the report of a violation may load
# it (the rule catalogue's classes), a log that passes does not.
FROZEN_CLASSES = ("attr", "attrs")
PROBE = """
import json, sys
from loopspec.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _loaded(*argv: str) -> tuple[int, set[str]]:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True).stdout
    report = json.loads(out.splitlines()[-1])
    return report["code"], set(report["modules"])


def _heavy(modules: set[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy))


def test_check_of_an_empty_log_imports_nothing_heavy(tmp_path: Path) -> None:
    empty = tmp_path / "empty.events.jsonl"
    empty.write_bytes(b"")
    _, modules = _loaded("check", str(empty))
    assert "loopspec.check.runner" in modules  # the probe did run the checker
    assert _heavy(modules) == []
    assert _heavy(modules, FROZEN_CLASSES) == []
    assert "msgspec" not in modules  # the typed path pays its import only on a large log


def test_the_text_report_offers_every_format_the_reports_render() -> None:
    from loopspec.check.report import FORMATS
    from loopspec.check.report_text import FORMAT_NAMES

    assert tuple(FORMATS) == FORMAT_NAMES


def test_check_of_a_log_with_a_violation_imports_nothing_heavy(tmp_path: Path) -> None:
    log = tmp_path / "bad.events.jsonl"
    log.write_text('{"type":"turn/end","seq":0,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}\n')
    code, modules = _loaded("check", str(log))
    assert code == 1
    assert _heavy(modules) == []


def test_replay_imports_nothing_of_the_vectors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.events.jsonl"
    empty.write_bytes(b"")
    _, modules = _loaded("replay", str(empty))
    assert not [m for m in modules if m.startswith(("hypothesis", "loopspec.vectors", "loopspec.specdoc"))]


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


def test_the_command_table_names_the_module_that_registers_each_command() -> None:
    everything = _commands(build_parser())
    for command, module in COMMAND_MODULES.items():
        alone = _commands(build_parser(command))
        assert list(alone) == [command], f"{module} registers {list(alone)}, not {command}"
        assert alone[command].format_help() == everything[command].format_help()
