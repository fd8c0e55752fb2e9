"""The ``loopspec check`` command line: exit codes, report formats, parallel runs, the manifest.

Exit 0 when every log is valid, 1 when some log violates a rule, 2 for unusable input or bad
usage; ``--format json|junit`` parse; ``--jobs N`` gives exactly the serial results.
"""

from __future__ import annotations

import json
import random
import shutil
import tracemalloc
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from check.log_mutations import dumps
from check.synthetic_logs import generate
from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions, check_file, check_files
from loopspec.check.reader import discover
from loopspec.cli import main

EXAMPLES = REPO / "examples" / "logs"
INVALID = sorted((EXAMPLES / "invalid").glob("*.events.jsonl"))  # the session logs (a live recording is no log)


def test_real_traces_directory_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(REAL_TRACES)]) == 0
    out = capsys.readouterr().out
    assert out.count(": VALID") == 8
    assert "live.jsonl" not in out  # live streams are not logs
    assert "checked 8 log(s): 8 valid" in out
    assert "events/s" in out


def test_manifest_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--manifest", str(EXAMPLES / "manifest.json")]) == 0
    assert "MISMATCH" not in capsys.readouterr().out


def test_manifest_mismatch_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "a.events.jsonl"
    shutil.copy(INVALID[0], log)
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"logs": [{"file": "a.events.jsonl", "verdict": "valid"}]}), encoding="utf-8")
    assert main(["check", "--manifest", str(manifest)]) == 1
    assert "MISMATCH" in capsys.readouterr().out
    manifest.write_text("{", encoding="utf-8")
    assert main(["check", "--manifest", str(manifest)]) == 2


@pytest.mark.rule("TURN-5")
def test_an_invalid_log_exits_1_with_an_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    log = EXAMPLES / "invalid" / "TURN-5-blocked-turn-chains.events.jsonl"
    assert main(["check", str(log)]) == 1
    out = capsys.readouterr().out
    for part in ("[TURN-5]", "rule:", "why:", "see:", "state before:", "set up by:"):
        assert part in out
    assert "offending: line 6 seq 5: turn/start" in out


def test_unusable_input_and_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "missing.events.jsonl")]) == 2
    broken = tmp_path / "b.events.jsonl.gz"
    broken.write_bytes(b"not gzip")
    assert main(["check", str(broken)]) == 2
    assert "UNUSABLE" in capsys.readouterr().out
    assert main(["check"]) == 2
    two = [str(p) for p in sorted(REAL_TRACES.glob("*.events.jsonl"))[:2]]
    assert main(["check", *two, "--live", str(REAL_TRACES / "single_followup.live.jsonl")]) == 2
    with pytest.raises(SystemExit) as usage:
        main(["check", "--jobs", "0", str(REAL_TRACES)])
    assert usage.value.code == 2


def test_live_option(capsys: pytest.CaptureFixture[str]) -> None:
    log, live = REAL_TRACES / "resume_crash_mid_turn.events.jsonl", REAL_TRACES / "resume_crash_mid_turn.live.jsonl"
    assert main(["check", str(log), "--live", str(live)]) == 0


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--all", "--format", "json", *map(str, INVALID[:5]), str(REAL_TRACES)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["summary"]["logs"], report["summary"]["invalid"]) == (13, 5)
    bad = [log for log in report["logs"] if log["status"] == "invalid"]
    assert all(log["violations"][0]["rule"] and log["violations"][0]["rule_why"] for log in bad)
    assert all(log["violations"][0]["state"]["phase"] for log in bad)


def test_junit_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    garbage = tmp_path / "g.events.jsonl"  # a session log with a garbage line: a LOG-1 failure
    garbage.write_bytes((REAL_TRACES / "single_followup.events.jsonl").read_bytes().split(b"\n")[0]
                        + b"\n\x00\x01\x02 \xff\n")
    assert main(["check", "--format", "junit", *map(str, INVALID), str(garbage), str(REAL_TRACES)]) == 1
    root = ET.fromstring(capsys.readouterr().out)
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(INVALID) + 1 + 8
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == len(INVALID) + 1
    assert root.get("failures") == str(len(failed))


def test_jobs_give_the_serial_results() -> None:
    logs, _ = discover([EXAMPLES, REAL_TRACES])
    options = CheckOptions(all=True)
    assert check_files(logs, options, jobs=3) == check_files(logs, options, jobs=1)


def test_quiet_and_max_violations(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "many.events.jsonl"  # one event, then fifty lines that are not events
    first = (REAL_TRACES / "single_followup.events.jsonl").read_bytes().split(b"\n")[0] + b"\n"
    log.write_bytes(first + b"".join(b"[%d]\n" % i for i in range(50)))
    assert main(["check", "-q", "--max-violations", "3", str(log), str(REAL_TRACES)]) == 1
    out = capsys.readouterr().out
    assert out.count("[LOG-1]") == 3
    assert "stopped at --max-violations" in out
    assert ": VALID" not in out


def test_torn_tail_flag(tmp_path: Path) -> None:
    log = tmp_path / "t.events.jsonl"
    log.write_bytes((REAL_TRACES / "single_followup.events.jsonl").read_bytes()[:-40])
    assert main(["check", str(log)]) == 1
    assert main(["check", "--allow-torn-tail", str(log)]) == 0


def test_memory_is_flat_in_the_log_length(tmp_path: Path) -> None:
    """Logs are streamed: ten times the events, about the same peak memory."""
    peaks = []
    for size in (3_000, 30_000):
        path = tmp_path / f"{size}.events.jsonl"
        path.write_bytes(dumps(list(generate(random.Random(7).randrange, size, chunks=5))))
        # Checked once untraced first: a module imported lazily on the way (a larger log takes
        # another path) must not count as the log's memory.
        assert check_file(path).status == "valid"
        tracemalloc.start()
        assert check_file(path).status == "valid"
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < peaks[0] * 2 + 200_000, peaks


class _Terminal:
    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


def test_progress_shows_only_on_a_terminal_for_many_files() -> None:
    from loopspec.cli.check import _Progress

    terminal = _Terminal()
    progress = _Progress(terminal, 25)  # type: ignore[arg-type]
    for done in range(1, 26):
        progress(done, 25)
    assert terminal.text.endswith("checking logs: 25/25\n")
    few = _Terminal()
    _Progress(few, 3)(3, 3)  # type: ignore[arg-type]
    assert few.text == ""


@pytest.mark.rule("STEP-3")
@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_reports_survive_lone_surrogates(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    log = tmp_path / "s.events.jsonl"
    log.write_bytes(b'{"type":"user/message","seq":0,"time":1,"data":{"id":"\\ud800\\u0001","role":"user",'
                    b'"content":[],"source":{}},"surfaceOp":"append"}\n')
    assert main(["check", "--format", fmt, str(log)]) == 1
    out = capsys.readouterr().out
    if fmt == "junit":
        assert ET.fromstring(out).find("./testsuite/testcase/failure") is not None
    elif fmt == "json":
        assert json.loads(out)["logs"][0]["violations"][0]["rule"] == "STEP-3"
