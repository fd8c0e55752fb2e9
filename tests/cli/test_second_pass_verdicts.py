"""Issue 40's false statements and exit codes, each run as a user runs the command: a process of
its own, its exit code and its words.

One policy throughout: unusable input or bad usage is exit 2 and judges nothing; a run that did
not finish what it was asked (a time budget) passes nothing (exit 1); a report says what it
judged and nothing more.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_loopspec
from loopspec.specdoc.generate import documents

RECORDINGS = REPO / "examples" / "recordings"
LOG = RECORDINGS / "inbox_replace.events.jsonl"
LIVE = RECORDINGS / "inbox_replace.live.jsonl"
OTHER_LIVE = RECORDINGS / "cancel_with_pending_inbox.live.jsonl"
TORN = REPO / "examples" / "logs" / "valid-with-allow-torn-tail" / "torn-tail-allowed.events.jsonl"
def run_loopspec_stdin(text: str, *argv: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "loopspec", *map(str, argv)], input=text, capture_output=True,
                          text=True, timeout=300, check=False)


FOREIGN = 'its line 5 marks seq 1 as "turn/start", where the log holds "agent/inbox/spliced"'


def test_a_live_recording_given_as_the_log_is_refused_by_render_as_by_check() -> None:
    for argv in (("render", LIVE), ("check", LIVE), ("replay", LIVE)):
        done = run_loopspec(*argv)
        assert done.returncode == 2, (argv, done)
        assert "a live recording, not a session log" in done.stdout + done.stderr
        assert "<dict>" not in done.stdout


@pytest.mark.parametrize("command", ["check", "render", "reproduce"])
def test_another_sessions_recording_does_not_belong_to_the_log_for_any_command(command: str) -> None:
    """check used to judge the pair (INVALID NOTIFY-2, exit 1) where render and reproduce refused it."""
    done = run_loopspec(command, LOG, "--live", OTHER_LIVE)
    assert done.returncode == 2, done
    words = done.stdout + done.stderr
    assert "not the live recording of" in words
    assert FOREIGN in words
    assert "NOTIFY-2" not in words


def test_a_recording_that_belongs_to_its_log_is_still_judged() -> None:
    assert run_loopspec("check", LOG, "--live", LIVE).returncode == 0


def test_generate_refuses_a_folder_that_is_not_a_suite_as_usage(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me", encoding="utf-8")
    done = run_loopspec("vectors", "generate", "--out", tmp_path)
    assert done.returncode == 2, done
    assert "is not empty and holds no manifest.json: refusing to write into it" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_generate_help_says_what_count_counts() -> None:
    words = " ".join(run_loopspec("vectors", "generate", "--help", columns=400).stdout.split())
    assert "seeded random walks per profile (full, inbox, loop: 3 x COUNT walk cases)" in words
    assert "more walks can mean fewer cases in all (default: 20)" in words


def test_a_drive_its_time_budget_cut_short_passes_nothing() -> None:
    done = run_loopspec("drive", "--examples", "100000", "--time-budget", "1", "--", "loopspec", "adapter")
    assert done.returncode == 1, done
    assert done.stdout == ""  # no disagreement, so no case
    assert "a search cut short is not a pass" in done.stderr.strip().splitlines()[-1]


def _with_seq(tmp_path: Path, line: int, seq: int) -> Path:
    rows = [json.loads(text) for text in LOG.read_text(encoding="utf-8").splitlines()]
    rows[line - 1]["seq"] = seq
    out = tmp_path / "wrong-seq.events.jsonl"
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out


def test_replay_judges_the_log_format_as_check_does(tmp_path: Path) -> None:
    wrong = _with_seq(tmp_path, 2, 7)
    replayed, checked = run_loopspec("replay", wrong), run_loopspec("check", wrong)
    assert (replayed.returncode, checked.returncode) == (1, 1)
    assert "[LOG-2] line 2: seq 7, but this is event 1 of the log" in replayed.stdout
    assert "[LOG-2]" in checked.stdout
    assert "seq 7, but this is event 1 of the log" in checked.stdout
    torn = run_loopspec("replay", TORN)
    assert torn.returncode == 1
    assert "[LOG-5] line 3: a torn tail" in torn.stdout
    assert "[LOG-5]" in run_loopspec("check", TORN).stdout
    allowed = run_loopspec("replay", "--allow-torn-tail", TORN)
    assert allowed.returncode == 0, allowed
    assert allowed.stdout.strip().endswith('{"next-turn": ["A"], "next-step": []}')


def test_an_adapter_that_exits_at_once_is_said_to_have_exited(tmp_path: Path) -> None:
    """``-- false`` used to be an adapter that "closed its stdin (exited?)"."""
    done = run_loopspec("drive", "--timeout", "2", "--", "false", cwd=tmp_path)
    assert done.returncode == 2, done
    assert "exited before reading the request" in done.stderr or "exited (stdout closed)" in done.stderr
    assert "exit code: 1" in done.stderr
    assert "closed its stdin" not in done.stderr


def test_an_exploration_cut_short_counts_the_level_it_was_in() -> None:
    done = run_loopspec("explore", "--scope", "ci", "--seconds", "1")
    assert done.returncode == 1
    states = int(re.search(r"distinct states: (\d+)", done.stdout).group(1))  # type: ignore[union-attr]
    levels = re.search(r"states per level: \[([\d, ]+)\](?: and (\d+) found at level (\d+) before the budget ran "
                       r"out)?", done.stdout)
    assert levels is not None, done.stdout
    counted = [int(n) for n in levels.group(1).split(",")]
    assert sum(counted) + int(levels.group(2) or 0) == states
    if levels.group(3):
        assert int(levels.group(3)) == len(counted)
    assert "NOT exhausted" in done.stdout
    assert len(max(done.stdout.splitlines(), key=len)) < 1000, "the missing rows are named a few at a time"


def test_an_explored_disagreement_is_headed_as_one() -> None:
    mutant = ("python", REPO / "tests" / "vectors" / "mutants" / "run.py", "seq-from-one")
    done = run_loopspec("explore", "--ids", "1", "--depth", "1", "--", *mutant)
    assert done.returncode == 1
    assert "DISAGREEMENT: command 1 of 1 (append): observation: $.events[0].seq: expected 0, got 1" in done.stdout
    assert "VIOLATION: the implementation answers every command" not in done.stdout


def test_docs_help_names_every_document_it_writes() -> None:
    words = " ".join(run_loopspec("docs", "--help", columns=400).stdout.split())
    for doc in documents(REPO):
        shown = ("docs/scenarios/" if doc.path.startswith("docs/scenarios/")
                 else "spec/NN-*.md" if re.fullmatch(r"spec/\d\d-.*\.md", doc.path) else doc.path)
        assert shown in words, doc.path


def test_explore_check_doc_refuses_a_folder_or_a_missing_document(tmp_path: Path) -> None:
    folder = run_loopspec("explore", "--scope", "dev", "--check-doc", "--doc", tmp_path)
    assert (folder.returncode, folder.stderr.strip()) == (
        2, f"loopspec explore: --doc {tmp_path} is a folder; give the document's file")
    missing = run_loopspec("explore", "--scope", "dev", "--check-doc", "--doc", tmp_path / "no.md")
    assert missing.returncode == 2
    assert "does not exist: nothing to check (--write-doc writes it)" in missing.stderr
    nowhere = run_loopspec("explore", "--scope", "dev", "--write-doc", "--doc", tmp_path / "no" / "doc.md")
    assert nowhere.returncode == 2
    assert "its folder" in nowhere.stderr
    assert "does not exist" in nowhere.stderr


CRAFTED_ID = "\x1b[2J\rVALID\x9b\x7f"


def _crafted_log(tmp_path: Path) -> Path:
    message = {"id": CRAFTED_ID, "role": "user", "content": [], "source": {"kind": "user"}}
    rows = [{"type": "agent/inbox/spliced", "seq": 0, "time": 1,
             "data": {"target": "next-turn", "start": 0, "inserted": [message]}},
            {"type": "turn/end", "seq": 1, "time": 2, "data": {"turn": 1, "reason": {"kind": "completed"}}}]
    log = tmp_path / "crafted\x1b]0;title\x07.events.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return log


@pytest.mark.parametrize("argv", [("check",), ("check", "--all"), ("replay",), ("render",), ("check", "--exhaustive")])
def test_no_control_character_from_a_log_reaches_the_terminal(tmp_path: Path, argv: tuple[str, ...]) -> None:
    done = run_loopspec(*argv, _crafted_log(tmp_path))
    words = done.stdout + done.stderr
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", words), repr(words[:400])
    assert "Traceback" not in words


def test_a_json_report_keeps_the_crafted_values(tmp_path: Path) -> None:
    log = _crafted_log(tmp_path)
    done = run_loopspec("check", "--format", "json", log)
    report = json.loads(done.stdout)
    assert report["logs"][0]["file"] == str(log)
    assert report["logs"][0]["violations"][0]["state"]["next_turn"] == [CRAFTED_ID]


def test_render_and_reproduce_read_standard_input_like_check() -> None:
    text = LOG.read_text(encoding="utf-8")
    page = run_loopspec_stdin(text, "render", "-")
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>")
    done = run_loopspec_stdin(text, "reproduce", "-", "--live", LIVE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 reproduced" in done.stdout
    alone = run_loopspec_stdin(text, "reproduce", "-")
    assert alone.returncode == 2
    assert "needs --live RECORDING" in alone.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (("check", "--exhaustive", "--format", "json", LOG), "it takes no --format"),
    (("check", "--exhaustive", "--all", "--jobs", "2", LOG), "it takes no --all, --jobs"),
    (("explore", "--scope", "dev", "--ids", "2"), "--scope dev names the whole scope; it takes no --ids"),
    (("explore", "--ids", "1", "--depth", "1", "--witnesses", LOG), "is a file; give a folder"),
    (("explore", "--ids", "1", "--depth", "1", "--counterexample", "/nowhere/case.json"), "its folder /nowhere does"),
    (("check", "--manifest", REPO / "examples" / "logs" / "manifest.json", "--all", "--jobs", "2"),
     "it takes no --all, --jobs"),
    (("check", LOG, "--live", LIVE, "--jobs", "2"), "--live checks one log in this process; it takes no --jobs"),
    (("render", LOG, "--out", "/nowhere/page.html"), "its folder /nowhere does not exist"),
])
def test_an_option_the_mode_ignores_or_an_output_it_cannot_write_is_refused_first(
        argv: tuple[object, ...], said: str) -> None:
    done = run_loopspec(*argv)
    assert done.returncode == 2, done
    assert said in done.stderr
    assert done.stdout == ""  # refused before any work


def test_a_json_or_junit_report_keeps_the_paths_it_could_not_read(tmp_path: Path) -> None:
    missing = tmp_path / "gone.events.jsonl"
    done = run_loopspec("check", "--format", "json", missing, LOG)
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert next((r["file"], r["status"], r["problem"]) for r in report["logs"]) == (
        str(missing), "unusable", "no such file or directory")
    assert report["summary"]["unusable"] == 1
    alone = run_loopspec("check", "--format", "junit", missing)
    assert alone.returncode == 2
    assert "gone.events.jsonl" in alone.stdout
    assert "no such file or directory" in alone.stdout


def test_reproduce_names_the_json_path_where_the_values_part(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    rows[2]["data"]["inserted"][0]["content"] = [{"type": "text", "text": "x" * 500}]
    changed = tmp_path / "changed.events.jsonl"
    changed.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    done = run_loopspec("reproduce", changed, "--live", LIVE)
    assert done.returncode == 1, done
    lines = done.stdout.splitlines()
    assert lines[1].startswith('    first difference: $.data.inserted[0].content[0].text: the model "t3", the '
                               'recording "xxx')
    assert all(len(line) < 400 for line in lines), "a long value is cut in text; --format json holds it whole"
    assert "--format json holds it whole" in done.stdout
    whole = json.loads(run_loopspec("reproduce", changed, "--live", LIVE, "--format", "json").stdout)
    assert whole["recordings"][0]["difference"]["recording"]["data"]["inserted"][0]["content"][0]["text"] == "x" * 500


MUTANT = (sys.executable, REPO / "tests" / "vectors" / "mutants" / "run.py")


def test_a_failed_case_names_its_rules_in_every_report(tmp_path: Path) -> None:
    """vectors run names the rules the case file lists; drive's own case lists the rules it shows broken."""
    driven = run_loopspec("drive", "--examples", "50", "--", *MUTANT, "removed-count-zero", cwd=tmp_path)
    assert driven.returncode == 1, driven.stderr
    case = json.loads(driven.stdout)
    assert case["rules"], "drive's regression case names the rules of the rows its last command fires"
    assert all(re.fullmatch(r"[A-Z]+-\d+", rule) for rule in case["rules"])
    (tmp_path / "case.json").write_text(driven.stdout, encoding="utf-8")
    ran = run_loopspec("vectors", "run", tmp_path / "case.json", "--", *MUTANT, "removed-count-zero")
    assert ran.returncode == 1
    assert f"(rules: {', '.join(case['rules'])})" in ran.stdout
    report = json.loads(run_loopspec("vectors", "run", tmp_path / "case.json", "--format", "json", "--", *MUTANT,
                                     "removed-count-zero").stdout)
    assert report["cases"][0]["rules"] == case["rules"]


def test_check_expect_fails_on_a_new_finding_and_on_a_stale_entry(tmp_path: Path) -> None:
    invalid = REPO / "examples" / "logs" / "invalid"
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    for name in ("CLAIM-1-claim-takes-two-next-turn", "CLAIM-3-claim-outside-turn"):
        (fleet / f"{name}.events.jsonl").write_bytes((invalid / f"{name}.events.jsonl").read_bytes())
    (fleet / "ok.events.jsonl").write_bytes(LOG.read_bytes())
    known = tmp_path / "known.json"
    missing = run_loopspec("check", fleet, "--expect", known)
    assert missing.returncode == 2
    assert "no such file (--update-expect writes it)" in missing.stderr
    assert run_loopspec("check", fleet, "--expect", known, "--update-expect").returncode == 0
    assert json.loads(known.read_text(encoding="utf-8"))["findings"] == [
        {"log": "fleet/CLAIM-1-claim-takes-two-next-turn.events.jsonl", "rule": "CLAIM-1"},
        {"log": "fleet/CLAIM-3-claim-outside-turn.events.jsonl", "rule": "CLAIM-3"}]
    same = run_loopspec("check", fleet, "-q", "--expect", known)
    assert same.returncode == 0, same.stderr
    assert "2 known finding(s) found again, 0 new, 0 stale" in same.stderr
    part = run_loopspec("check", fleet / "ok.events.jsonl", "--expect", known)
    assert part.returncode == 0, "entries of logs this run did not check are left alone"
    (fleet / "CLAIM-3-claim-outside-turn.events.jsonl").write_bytes(LOG.read_bytes())  # fixed
    (fleet / "new.events.jsonl").write_bytes((invalid / "FOLD-1-unknown-field.events.jsonl").read_bytes())
    drift = run_loopspec("check", fleet, "-q", "--expect", known)
    assert drift.returncode == 1
    assert f"NEW finding, not in {known}: fleet/new.events.jsonl [FOLD-1]" in drift.stderr
    assert f"STALE entry of {known}: fleet/CLAIM-3-claim-outside-turn.events.jsonl [CLAIM-3]" in drift.stderr



def test_a_meter_rewrites_its_line_while_values_stay_escaped() -> None:
    from loopspec.cli.terminal import TerminalSafe
    from loopspec.data.terminal_text import write_meter

    inner = io.StringIO()
    safe = TerminalSafe(inner)
    write_meter(safe, "\rchecking logs: 3/9")  # type: ignore[arg-type]  # the tool's own carriage return
    safe.write("\rVALID\x1b[2J")  # a value's: escaped
    assert inner.getvalue() == "\rchecking logs: 3/9\\u000dVALID\\u001b[2J"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Counting:
    def __init__(self) -> None:
        self.sent = 0


def test_exploring_an_adapter_shows_its_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from loopspec.cli import explore as explore_cli

    terminal = _Tty()
    monkeypatch.setattr(sys, "stderr", terminal)
    checks = _Counting()
    with explore_cli._progress(checks):  # type: ignore[arg-type]
        checks.sent = 1234
        time.sleep(1.3)
    assert "\rexplore: 1,234 commands sent," in terminal.getvalue()
    assert terminal.getvalue().endswith("\r")  # the line is cleared for the summary
