"""``vectors run`` and ``drive`` as a CI job meets them: formats, selection, progress, summaries, usage errors.

* ``--format json`` is one parseable document with the verdict, counts per area and every case;
  ``--format junit`` is JUnit XML with a testsuite per area and the cases outside the profile
  skipped.
* ``--select`` takes a rule ID, an area or a glob; a selection that matches nothing is a usage error.
* The text report ends with a summary per area and the per-profile verdict; a progress line is
  written only to a terminal.
* ``drive`` ends with one line: examples run of those requested, commands sent, commands/s, and
  whether the time budget cut the run short; invalid options are usage errors, not tracebacks.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from loopspec.cli import main
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.runner import run_suite
from loopspec.vectors.suite import generate

REFERENCE = [sys.executable, "-m", "loopspec", "adapter"]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite-cli")
    generate(out, seed=4, count=3)
    return out


def test_json_format(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "run", str(suite), "--format", "json", "--", *REFERENCE, "--profile", "loop"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == "loopspec-run/1"
    assert (report["profile"], report["conforms"]) == ("loop", True)
    assert "conforms to profile loop" in report["verdict"]
    assert report["counts"]["pass"] + report["counts"]["not-run"] == len(report["cases"])
    assert report["counts"]["outside-profile"] == report["counts"]["not-run"] > 0
    assert sum(a["pass"] for a in report["areas"].values()) == report["counts"]["pass"]
    outside = [c for c in report["cases"] if c["status"] == "not-run"]
    assert all(c["reason"] == "outside-profile" and "which profile loop does not have" in c["detail"] for c in outside)


def test_junit_format(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "run", str(suite), "--format", "junit", "--", *REFERENCE]) == 0
    root = ET.fromstring(capsys.readouterr().out)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert {s.get("name") for s in suites} >= {"loopspec.splice", "loopspec.lifecycle", "loopspec.claim"}
    cases = root.findall("testsuite/testcase")
    assert len(cases) == int(root.get("tests", "0")) > 0
    skipped = root.findall("testsuite/testcase/skipped")
    assert skipped
    assert all("a case of profile inbox only" in (s.get("message") or "") for s in skipped)
    assert not root.findall("testsuite/testcase/failure")


def test_a_failure_in_junit_and_json(suite: Path) -> None:
    from vectors.fixtures import WrongRemove

    out = io.StringIO()
    run_suite(suite, lambda: InProcessAdapter(WrongRemove().handle), out, fmt="junit")
    failures = ET.fromstring(out.getvalue()).findall("testsuite/testcase/failure")
    assert any("expected false, got null" in (f.get("message") or "") for f in failures)
    out = io.StringIO()
    report = run_suite(suite, lambda: InProcessAdapter(WrongRemove().handle), out, fmt="json")
    data = json.loads(out.getvalue())
    assert data["conforms"] is False
    assert not report.ok
    assert "does NOT conform to profile full" in data["verdict"]


@pytest.mark.parametrize(("pattern", "prefix"), [
    ("SPLICE-7", "splice/"),
    ("claim", "claim/"),
    ("lifecycle/decide/*", "lifecycle/decide/"),
])
def test_select(suite: Path, pattern: str, prefix: str) -> None:
    report = run_suite(suite, lambda: InProcessAdapter(ModelHandler().handle), io.StringIO(), select=[pattern])
    assert report.results
    assert all(r.id.startswith(prefix) for r in report.results)


def _run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "loopspec", "vectors", "run", *map(str, args)],
                          capture_output=True, text=True, check=False)


def test_a_selection_that_passes_claims_no_conformance(suite: Path) -> None:
    """A subset is no conformance (issue 40): every format says what was selected, out of what, and
    with what it was judged; the JSON's ``conforms`` is null and the exit code 0 (nothing failed)."""
    manifest = hashlib.sha256((suite / "manifest.json").read_bytes()).hexdigest()
    text = _run(suite, "--select", "SPLICE-3", "--", *REFERENCE)
    assert text.returncode == 0, text.stderr
    last = text.stdout.splitlines()[-1]
    assert "selected case(s) of profile full passed" in last
    assert "a selection proves no conformance" in last
    assert " conforms " not in text.stdout
    assert f"judged with suite {suite} (sha256 {manifest[:16]}" in text.stdout
    assert "--select SPLICE-3" in text.stdout
    data = json.loads(_run(suite, "--select", "SPLICE-3", "--format", "json", "--", *REFERENCE).stdout)
    assert data["conforms"] is None
    assert data["selection"] == ["SPLICE-3"]
    assert data["suite"] == {"path": str(suite), "sha256": manifest,
                             "cases": len(json.loads((suite / "manifest.json").read_text())["cases"])}
    assert data["tool"]
    assert data["spec"].startswith("sha256:")
    junit = ET.fromstring(_run(suite, "--select", "SPLICE-3", "--format", "junit", "--", *REFERENCE).stdout)
    properties = {p.get("name"): p.get("value") for p in junit.findall("testsuite/properties/property")}
    assert properties["selection"] == "SPLICE-3"
    assert properties["suite.sha256"] == manifest


def test_a_selection_that_fails_is_still_a_failure(suite: Path) -> None:
    from vectors.fixtures import WrongRemove

    out = io.StringIO()
    report = run_suite(suite, lambda: InProcessAdapter(WrongRemove().handle), out, select=["SPLICE-7"])
    assert report.conforms is False
    assert "does NOT conform to profile full" in out.getvalue().splitlines()[-1]
    assert "selected case(s) failed or were not run" in out.getvalue().splitlines()[-1]


def test_select_by_rule_uses_the_cases_rules(suite: Path) -> None:
    report = run_suite(suite, lambda: InProcessAdapter(ModelHandler().handle), io.StringIO(), select=["SPLICE-7"])
    for result in report.results:
        assert "SPLICE-7" in json.loads((suite / f"{result.id}.json").read_text())["rules"]


def test_a_selection_matching_nothing_is_a_usage_error(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "run", str(suite), "--select", "NOPE-99", "--", *REFERENCE]) == 2
    assert "matches no case" in capsys.readouterr().err


def test_text_report_ends_with_areas_and_the_verdict(suite: Path) -> None:
    out = io.StringIO()
    run_suite(suite, lambda: InProcessAdapter(ModelHandler().handle), out)
    tail = out.getvalue().split("per area:\n", 1)[1].splitlines()
    assert any(line.split()[0] == "splice" and "passed" in line for line in tail)
    assert tail[-1].endswith("case(s) of other profiles only skipped)")
    assert "case(s) of the profile passed;" in tail[-1]
    assert "conforms to profile full" in tail[-1]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_goes_to_a_terminal_only(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tty = Tty()
    run_suite(suite, lambda: InProcessAdapter(ModelHandler().handle), io.StringIO(), progress=tty)
    assert "\r[0/" in tty.getvalue()
    assert " failed  " in tty.getvalue()
    assert main(["vectors", "run", str(suite), "--select", "splice", "--", *REFERENCE]) == 0
    assert "\r" not in capsys.readouterr().err  # pytest's stderr is not a terminal


def test_drive_progress_and_final_line(capsys: pytest.CaptureFixture[str]) -> None:
    from loopspec.vectors.drive import drive

    tty = Tty()
    report = drive(InProcessAdapter(ModelHandler().handle), examples=40, steps=15, seed=0, progress=tty)
    assert report.ok
    assert report.examples == 40
    assert report.sent >= 40 * 15
    assert "examples" in tty.getvalue()
    assert "commands" in tty.getvalue()
    line = report.summary("model")
    assert line.startswith("no disagreement in 40 of 40 examples against model (profile full)")
    assert "commands sent" in line
    assert "commands/s" in line


def test_drive_says_when_the_time_budget_cut_it_short(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["drive", "--examples", "100000", "--time-budget", "1", "--", *REFERENCE]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no disagreement: no case to print
    err = err.strip().splitlines()[-1]
    assert err.startswith("stopped by the time budget after ")
    assert "of 100000 examples: no disagreement in those" in err
    assert "a search cut short is not a pass" in err
    assert "commands/s" in err


def test_drive_leaves_the_working_folder_as_it_was(tmp_path: Path) -> None:
    """No ``.hypothesis/`` (Hypothesis caches constants there even without an example database).

    A fresh process, as a user runs it: Hypothesis collects the constants once per process.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPOTHESIS")}
    command = [sys.executable, "-m", "loopspec", "drive", "--examples", "3", "--steps", "5", "--",
               sys.executable, "-m", "loopspec", "adapter"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["drive", "--examples", "0"],
    ["drive", "--steps", "-1"],
    ["drive", "--time-budget", "0"],
    ["drive", "--timeout", "nan"],
    ["drive", "--examples", "many"],
    ["vectors", "run", "x", "--timeout", "-1"],
    ["vectors", "run", "x", "--format", "xml"],
])
def test_invalid_options_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--", *REFERENCE])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert "Traceback" not in err


def test_quiet_keeps_only_the_cases_that_count_against(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-q``: no line for a case that passed or was skipped (24 identical "needs claim" lines before)."""
    argv = ["vectors", "run", str(suite), "--select", "claim", "--select", "splice", "--", *REFERENCE,
            "--profile", "loop"]
    assert main(argv) == 0
    loud = capsys.readouterr().out.splitlines()
    assert any(line.startswith("SKIPPED ") for line in loud)
    assert main([*argv[:3], "-q", *argv[3:]]) == 0
    quiet = capsys.readouterr().out.splitlines()
    assert not [line for line in quiet if line.startswith(("PASS ", "SKIPPED "))]
    assert quiet[-4:] == loud[-4:]  # the count line, what it was judged with, the verdict
