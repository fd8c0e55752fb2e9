"""``loopspec reproduce`` on the command line: exit codes, both input forms, text and JSON reports, usage."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.cli import main

RECORDINGS = REPO / "examples" / "recordings"
SYNTHETIC = REPO / "examples" / "recordings-synthetic"


def _log(name: str, folder: Path = RECORDINGS) -> list[str]:
    return [str(folder / f"{name}.events.jsonl"), "--live", str(folder / f"{name}.live.jsonl")]


@pytest.mark.rule("REPAIR-4")
def test_a_folder_of_real_recordings_reproduces(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", str(RECORDINGS)]) == 0
    out = capsys.readouterr().out
    assert "resume_crash_mid_turn: reproduced (73 live records, 44 events, final state)" in out
    assert out.endswith("reproduce: 8 reproduced, 0 different, 0 unusable of 8 recording(s)\n")


def test_a_log_with_its_live_recording_takes_the_final_state_next_to_it(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    assert main(["reproduce", *_log("inbox_replace")]) == 0
    assert "inbox_replace: reproduced (37 live records, 7 events, final state)" in capsys.readouterr().out
    for suffix in (".events.jsonl", ".live.jsonl"):
        shutil.copy(RECORDINGS / f"inbox_replace{suffix}", tmp_path / f"run{suffix}")
    assert main(["reproduce", *_log("run", tmp_path)]) == 0
    assert "run: reproduced (37 live records, 7 events)" in capsys.readouterr().out
    final = tmp_path / "elsewhere.json"
    final.write_text((RECORDINGS / "inbox_replace.final.json").read_text().replace('"inbox_replace"', '"run"'))
    assert main(["reproduce", *_log("run", tmp_path), "--final", str(final)]) == 0
    assert "run: reproduced (37 live records, 7 events, final state)" in capsys.readouterr().out


def test_a_difference_exits_1_naming_file_line_seq_and_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", *_log("wrong_cancel_cause", SYNTHETIC / "differs")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"wrong_cancel_cause: DIFFERENT at {SYNTHETIC}/differs/wrong_cancel_cause.events.jsonl:12 "
                      "seq 11: the turn/end event [END-1]")
    assert out[1] == '    first difference: $.data.reason.reason.kind: the model "disposed", the recording "user"'
    assert out[2].startswith("    recording: ")
    assert '"reason": {"kind": "user"}' in out[2]
    assert out[3].startswith("    model:     ")
    assert '"reason": {"kind": "disposed"}' in out[3]


def test_several_folders_report_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", str(RECORDINGS), str(SYNTHETIC / "reproduces")]) == 0
    assert "19 reproduced, 0 different, 0 unusable of 19 recording(s)" in capsys.readouterr().out


def test_the_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", str(SYNTHETIC / "unusable"), "--format", "json"]) == 2
    report = json.loads(capsys.readouterr().out)
    assert report["exit"] == 2
    assert report["summary"] == {"recordings": 5, "reproduced": 0, "different": 0, "unusable": 5}
    unknown = next(r for r in report["recordings"] if r["name"] == "unknown_kind")
    assert unknown["status"] == "unusable"
    assert unknown["difference"] is None
    assert unknown["problem"]["line"] == 9
    assert "'checkpoint'" in unknown["problem"]["message"]


def test_garbage_is_unusable_input_without_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "x.events.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (tmp_path / "x.live.jsonl").write_bytes(b"{not json\n")
    assert main(["reproduce", str(tmp_path / "x.events.jsonl"), "--live", str(tmp_path / "x.live.jsonl")]) == 2
    captured = capsys.readouterr()
    assert "x: UNUSABLE" in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_a_lone_surrogate_in_a_recording_is_printed_escaped(tmp_path: Path) -> None:
    """Through a real process, whose stdout is UTF-8: the report escapes what UTF-8 cannot hold."""
    for suffix in (".events.jsonl", ".live.jsonl"):
        shutil.copy(RECORDINGS / f"single_followup{suffix}", tmp_path / f"run{suffix}")
    live = tmp_path / "run.live.jsonl"
    text = live.read_text()
    live.write_text(text.replace('"text":"hello"', '"text":"\\ud800"', 1))  # the body the model is given
    done = subprocess.run([sys.executable, "-m", "loopspec", "reproduce", str(tmp_path)], capture_output=True,
                          timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stdout + done.stderr
    assert b'"text": "\\ud800"' in done.stdout


@pytest.mark.parametrize(("argv", "says"), [
    # No NAME.live.jsonl beside it: the recording's other half must be named.
    ([str(REPO / "examples" / "logs" / "valid" / "S01-single-followup.events.jsonl")], "needs its live recording"),
    ([str(RECORDINGS / "single_followup.events.jsonl"), str(RECORDINGS), "--live", "x"], "goes alone"),
    ([str(RECORDINGS), "--live", str(RECORDINGS / "single_followup.live.jsonl")], "go with a LOG file"),
    ([str(RECORDINGS / "nowhere")], "no such file or folder"),
])
def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["reproduce", *argv]) == 2
    assert says in capsys.readouterr().err


def test_help_names_the_format_and_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["reproduce", "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("examples/recordings/README.md", "Exit 0: reproduced", "1: a difference", "2: unusable input",
                  "--format {text,json}", "--live RECORDING", "--final FILE"):
        assert words in text
