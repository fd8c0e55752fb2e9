"""``loopspec render`` and ``check --format html`` on the command line: outputs, windows, errors, exit codes.

No traceback reaches the user: a missing, unreadable or corrupt file is a message and exit 2.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from check.log_mutations import dumps
from check.synthetic_logs import generate
from loopspec.cli import main
from render.drawing import EXAMPLES, RECORDINGS

S16 = EXAMPLES / "valid" / "S16-keep-inbox-cancel-parks-queued-work.events.jsonl"


def test_render_prints_the_page_or_writes_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(S16)]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>")
    assert "</svg>" in page
    out = tmp_path / "s16.html"
    assert main(["render", str(S16), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == page
    assert "wrote" in capsys.readouterr().err
    assert main(["render", str(S16), "--format", "svg"]) == 0
    assert capsys.readouterr().out.startswith("<svg xmlns=")


def test_render_with_a_live_recording(capsys: pytest.CaptureFixture[str]) -> None:
    log = RECORDINGS / "steer_during_tool_call.events.jsonl"
    assert log.is_file(), "the recordings are part of the repository (examples/recordings)"
    assert main(["render", str(log), "--live", str(log.with_name("steer_during_tool_call.live.jsonl"))]) == 0
    page = capsys.readouterr().out
    assert 'class="notice' in page
    assert "claimed s1 by turn 1" in page


def test_from_and_to_choose_the_window(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "long.events.jsonl.gz"
    with gzip.open(log, "wb") as out:
        out.write(dumps(list(generate(random.Random(5).randrange, 400, chunks=3))))
    assert main(["render", str(log), "--from", "100", "--to", "160"]) == 0
    page = capsys.readouterr().out
    assert "drawn: seq 100–160" in page
    assert "before the window: seq 0–99" in page
    assert "after the window: seq 161" in page
    assert main(["render", str(log), "--turns", "1"]) == 0
    assert "the last 1 turn(s)" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "9", "--to", "3"], "--from 9 is after --to 3"),
    (["--live", "missing.live.jsonl"], "missing.live.jsonl: no such file"),
])
def test_render_usage_errors_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(S16), *args]) == 2
    assert message in capsys.readouterr().err


def test_render_unusable_input_exits_2_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(tmp_path / "nope.events.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    broken = tmp_path / "broken.events.jsonl.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    assert main(["render", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err
    assert "Traceback" not in err
    assert main(["render", str(S16), "--out", str(tmp_path / "no" / "such" / "dir.html")]) == 2
    assert "cannot be written: its folder" in capsys.readouterr().err  # said before the drawing


def test_render_says_where_the_model_refuses_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    log = EXAMPLES / "invalid" / "FOLD-2-removes-beyond-end.events.jsonl"
    assert main(["render", str(log)]) == 0
    captured = capsys.readouterr()
    assert "[FOLD-2]" in captured.err
    assert "stop-panel" in captured.out


def test_render_names_a_refused_line_as_check_does_when_its_seq_is_wrong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The first line claims seq 1 and carries a bad surfaceOp: the model refuses it (LOG-1) at seq 1,
    as ``loopspec check`` reports it, and the page says which line that is."""
    log = tmp_path / "wrong.events.jsonl"
    log.write_text('{"type":"turn/start","seq":1,"time":1,"data":{"turn":1},"surfaceOp":0}\n')
    assert main(["render", str(log)]) == 0
    captured = capsys.readouterr()
    assert "at line 1, whose seq is 1 (not its index 0) [LOG-1]" in captured.err
    assert "line 1, whose seq is 1 (not its index 0)" in captured.out


def test_check_html_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "html", str(EXAMPLES / "valid")]) == 2
    assert "give --out DIR" in capsys.readouterr().err
    assert main(["check", "--out", str(tmp_path), str(S16)]) == 2
    assert "--out is only used with --format html" in capsys.readouterr().err
    assert main(["check", "--format", "html", "--manifest", str(EXAMPLES / "manifest.json")]) == 2
    assert main(["check", "--format", "html", str(S16)]) == 0
    assert "VALID (40 events)" in capsys.readouterr().out
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    assert main(["check", "--format", "html", "--out", str(blocked / "pages"), str(S16)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_check_html_with_a_live_violation_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = EXAMPLES / "valid" / "S01-single-followup.events.jsonl"
    live = tmp_path / "s.live.jsonl"
    live.write_text(json.dumps({"kind": "live", "type": "agent/status", "nextSeq": 0, "status": "idle"}) + "\n",
                    encoding="utf-8")
    code = main(["check", "--format", "html", "--live", str(live), str(log)])
    page = capsys.readouterr().out
    assert code == 1
    assert "violation-panel" in page
    assert "INVALID" in page


def test_check_html_with_all_lists_the_further_violations(capsys: pytest.CaptureFixture[str]) -> None:
    log = EXAMPLES / "invalid" / "TURN-2-turn-start-while-open.events.jsonl"
    assert main(["check", "--all", "--format", "html", str(log)]) == 1
    page = capsys.readouterr().out
    assert "INVALID: [TURN-2] at line 5 of TURN-2-turn-start-while-open.events.jsonl and 1 more violation(s)" in page
    assert "<h2>Further violations</h2>" in page
    assert "[TURN-5]" in page
