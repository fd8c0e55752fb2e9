"""A page that says something false is worse than none (issue 25): ``check --format html`` and
``render`` as a user runs them, their exit codes and their words."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from conftest import REAL_TRACES, REPO, run_loopspec

EXAMPLES = REPO / "examples" / "logs"
FOLLOWUP = REAL_TRACES / "single_followup.events.jsonl"
NOTIFY_1 = EXAMPLES / "invalid" / "NOTIFY-1-inserted-with-a-placement-field.live.jsonl"
CANCEL_5 = EXAMPLES / "invalid" / "CANCEL-5-send-between-skipped-calls.events.jsonl"


def _page(*argv: object) -> str:
    done = run_loopspec("check", "--format", "html", *argv)
    assert done.returncode == 1, done.stderr
    return done.stdout


def test_a_live_side_violation_names_the_live_file_and_marks_the_live_record() -> None:
    page = _page(FOLLOWUP, "--live", NOTIFY_1)
    assert f"<h1>INVALID: [NOTIFY-1] at line 3 of {NOTIFY_1.name} (the live recording)</h1>" in page
    assert re.search(r'<g class="violation" data-live-line="3" data-rule="NOTIFY-1">', page)
    assert f"{NOTIFY_1.name} line 3:" in page


def test_the_window_summary_is_true_and_the_rule_text_is_plain() -> None:
    log = EXAMPLES / "invalid" / "LOG-2-seq-gap.events.jsonl"
    events = len(log.read_text(encoding="utf-8").splitlines())
    page = _page(log)
    summary = html.unescape(re.findall(r'<ul class="meta"><li>(.*?)</li>', page)[0])
    after = int(re.search(r"and (\d+) event\(s\) after it", summary).group(1))  # type: ignore[union-attr]
    assert after < events
    assert "up to" in summary
    assert "`" not in page, "raw Markdown in the page"


def test_captions_end_at_a_word_and_cancel_5_names_what_the_log_shows() -> None:
    page = html.unescape(_page(CANCEL_5))
    said = re.search(r"\[CANCEL-5\] \S+ line 15, seq 14: (.*)", run_loopspec("check", CANCEL_5).stdout)
    assert said is not None
    full = f"✖ CANCEL-5: {said.group(1)}"
    (caption,) = re.findall(r'class="highlight-label">([^<]*)<', page)
    assert caption == full or (caption.endswith("…") and full.startswith(caption[:-1] + " ")), caption
    assert "abort skipped" not in page
    assert "that followed step 1.1's skipped call" in page
    assert "enter [A, ?]" in page
    assert "? : the drawn events may not show every message entered" in page
    assert "enter [ids, ?]" in page  # and the legend says what the ? is


def test_the_legend_lists_only_the_marks_drawn() -> None:
    valid = run_loopspec("render", FOLLOWUP).stdout
    legend = valid[valid.index('class="legend-box"'):]
    assert "lost write" not in legend
    assert "listener threw" not in legend
    assert "completed" in legend
    crashed = run_loopspec("render", REAL_TRACES / "resume_crash_mid_turn.events.jsonl", "--live",
                           REAL_TRACES / "resume_crash_mid_turn.live.jsonl").stdout
    legend = crashed[crashed.index('class="legend-box"'):]
    assert "a process ended by a crash" in legend
    assert "lost write" in legend


def test_render_refuses_what_check_refuses(tmp_path: Path) -> None:
    noise = tmp_path / "noise.jsonl"
    noise.write_bytes(bytes(range(256)) * 8)
    done = run_loopspec("render", noise)
    assert done.returncode == 2
    assert "not a session log" in done.stderr
    assert done.stdout == ""
    assert run_loopspec("check", noise).returncode == 2


def test_render_refuses_another_sessions_live_recording() -> None:
    done = run_loopspec("render", FOLLOWUP, "--live", REAL_TRACES / "inbox_replace.live.jsonl")
    assert done.returncode == 2
    assert "is not the live recording of" in done.stderr
    own = run_loopspec("render", FOLLOWUP, "--live", REAL_TRACES / "single_followup.live.jsonl")
    assert own.returncode == 0, own.stderr


def test_render_words_for_folders_empty_logs_and_windows(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    done = run_loopspec("render", folder)
    assert done.returncode == 2
    assert "is a folder" in done.stderr
    assert "no such file" not in done.stderr
    empty = tmp_path / "empty.events.jsonl"
    empty.write_text("", encoding="utf-8")
    drawn = run_loopspec("render", empty, "--out", tmp_path / "e.html")
    assert drawn.returncode == 0
    assert "an empty log" in drawn.stderr
    assert "–-1" not in drawn.stderr + (tmp_path / "e.html").read_text(encoding="utf-8")
    far = run_loopspec("render", FOLLOWUP, "--from", "100", "--to", "200", "--out", tmp_path / "f.html")
    assert "seq 16–15" not in far.stderr + (tmp_path / "f.html").read_text(encoding="utf-8")
    assert "no event of the window is in the log" in far.stderr
    one = run_loopspec("render", FOLLOWUP, "--turns", "1")
    assert "(default" not in one.stdout
    assert "at most the last 1 turn(s) (--turns)" in one.stdout


def test_no_caption_runs_past_the_pictures_right_edge() -> None:
    page = _page(CANCEL_5)
    svg = page[page.index("<svg") : page.index("</svg>")]
    width = float(re.search(r'width="([\d.]+)"', svg).group(1))  # type: ignore[union-attr]
    (caption,) = re.findall(r'<text x="([\d.]+)"[^>]*class="highlight-label">([^<]*)<', svg)
    assert float(caption[0]) + 6 * len(html.unescape(caption[1])) <= width


def _spliced(seq: int, start: int, mid: str) -> str:
    message = {"id": mid, "role": "user", "content": [{"type": "text", "text": mid}], "source": {"kind": "user"}}
    return json.dumps({"type": "agent/inbox/spliced", "seq": seq, "time": seq + 1,
                       "data": {"target": "next-turn", "start": start, "inserted": [message]}})


def test_inbox_lane_rows_are_in_list_order(tmp_path: Path) -> None:
    """u3 appended, then u2 prepended before it, then u4 between them: the lane reads u2, u4, u3."""
    log = tmp_path / "order.events.jsonl"
    log.write_text("\n".join([_spliced(0, 0, "u3"), _spliced(1, 0, "u2"), _spliced(2, 1, "u4")]) + "\n",
                   encoding="utf-8")
    assert run_loopspec("check", log).returncode == 0
    done = run_loopspec("render", log, "--format", "svg")
    assert done.returncode == 0, done.stderr
    tops = {mid: float(y) for mid, y in
            re.findall(r'<g class="bar fate-pending" data-id="(\w+)"[^>]*><title>[^<]*</title><rect x="[\d.]+" '
                       r'y="([\d.]+)"', done.stdout)}
    assert sorted(tops, key=tops.__getitem__) == ["u2", "u4", "u3"], tops
