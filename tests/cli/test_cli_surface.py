"""The command line's surface: help, --version, exit codes, the internal-error line, docs outside a checkout."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.cli import EXIT_CODES, build_parser, main
from loopspec.rules.shipped import digest_of, spec_digest
from loopspec.vectors.adapter.client import PROTOCOL
from loopspec.vectors.case import CASE_FORMAT
from loopspec.vectors.suite import SUITE_FORMAT


def _parsers(parser: argparse.ArgumentParser, name: str = "loopspec") -> list[tuple[str, argparse.ArgumentParser]]:
    """The parser and every subcommand's parser, nested ones included."""
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += _parsers(sub, f"{name} {sub_name}")
    return found


PARSERS = _parsers(build_parser())


def test_every_subcommand_is_listed() -> None:
    names = {name for name, _ in PARSERS}
    for expected in ("check", "replay", "docs", "adapter", "drive", "vectors generate", "vectors run",
                     "vectors pack"):
        assert f"loopspec {expected}" in names


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=[n for n, _ in PARSERS])
def test_every_subcommand_has_a_description_and_every_option_help_with_its_default(
        name: str, parser: argparse.ArgumentParser) -> None:
    """Each option's default is stated exactly once (a required option has none to state)."""
    assert len(parser.description or "") > 40, f"{name} has no description"
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction) or action.dest == "version":
            continue
        assert action.help, f"{name}: {action.option_strings or action.dest} has no help text"
        if action.option_strings:
            shown = " ".join(parser._get_formatter()._format_action(action).split())
            assert shown.count("(default") == (0 if action.required else 1), f"{name}: {shown}"


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for code in ("0", "1", "2", "3"):
        assert re.search(rf"^  {code}  \S", out, re.MULTILINE), f"exit code {code} undocumented"
    assert EXIT_CODES.splitlines()[1].strip()[:20] in out


def test_version_names_package_spec_digest_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("loopspec 0.")
    for part in (spec_digest(), CASE_FORMAT, SUITE_FORMAT, PROTOCOL):
        assert part in out


def test_the_digest_covers_exactly_the_shipped_files(tmp_path: Path) -> None:
    """Same files, same digest wherever they lie; any byte of a shipped file changes it; other files do not."""
    spec = REPO / "spec"
    copy = tmp_path / "spec"
    (copy / "schemas").mkdir(parents=True)
    for path in [*spec.glob("*.md"), *spec.glob("schemas/*.json"), spec / "lifecycle-table.json"]:
        (copy / path.relative_to(spec)).write_bytes(path.read_bytes())
    assert digest_of(copy) == spec_digest() == digest_of(spec)
    (copy / "notes.txt").write_text("not shipped", encoding="utf-8")
    assert digest_of(copy) == spec_digest()
    schema = next(copy.glob("schemas/*.json"))
    schema.write_bytes(schema.read_bytes().replace(b"\n", b"\r\n"))  # a checkout with autocrlf
    assert digest_of(copy) == spec_digest()
    schema.write_bytes(schema.read_bytes() + b" ")
    assert digest_of(copy) != spec_digest()


def test_an_internal_error_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from loopspec.cli import check as check_command

    def broken(*_: object, **__: object) -> object:
        raise KeyError("surprise\nsecond line")

    monkeypatch.setattr(check_command, "check_files", broken)
    monkeypatch.delenv("LOOPSPEC_TRACEBACK", raising=False)
    code = main(["check", str(REAL_TRACES)])
    out, err = capsys.readouterr()
    assert code == 3
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("loopspec check: internal error — please report")
    assert str(REAL_TRACES) in lines[0]
    assert "KeyError" in lines[0]


def test_an_internal_error_in_worker_processes_prints_no_traceback() -> None:
    """Through a real process with --jobs 2: the workers' failure reaches the user as the one line."""
    program = (
        "import sys\n"
        "import loopspec.check.parallel as parallel\n"
        "from loopspec.cli import main\n"
        "def broken(path, options=None, live=None):\n"
        "    raise RuntimeError('worker broke on ' + str(path))\n"
        "parallel.check_file = broken\n"
        "parallel.MIN_PARALLEL_BYTES = 0  # fork for these small logs\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program, "check", "--jobs", "2", str(REAL_TRACES)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "LOOPSPEC_TRACEBACK": ""})
    assert done.returncode == 3, done
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.startswith("loopspec check: internal error — please report"), done.stderr
    assert "worker broke" in done.stderr


def test_docs_without_a_checkout_says_what_it_needs(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from loopspec.cli import docs as docs_command

    monkeypatch.setattr(docs_command, "checkout_root", lambda: None)
    assert main(["docs", "--check"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "source checkout" in err
    assert "clone" in err


def test_a_usage_error_is_exit_2_without_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["check", "--format", "yaml", str(REAL_TRACES)])
    assert done.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--version"], ["check", str(REAL_TRACES)]])
def test_a_reader_that_went_away_gets_no_traceback(argv: list[str]) -> None:
    """``loopspec --version | head -0``: the pipe is closed before anything is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write the command makes meets a closed pipe
    try:
        done = subprocess.run([sys.executable, "-m", "loopspec", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
