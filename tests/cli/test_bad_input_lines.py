"""Bad input as a new user meets it: one clear line naming what is wrong, and exit 2 (issue 25).

Every test runs ``loopspec`` in a process of its own, as a user would, and reads its exit code
and its words.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO, run_loopspec

LOG = REAL_TRACES / "inbox_replace.events.jsonl"
LIVE = REAL_TRACES / "inbox_replace.live.jsonl"


# The tests of the packed fixture run on one worker: packing is most of their time, done once.
SHARES_THE_PACKED = pytest.mark.xdist_group("packed-suite")


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packed")
    done = run_loopspec("vectors", "pack", "--out", out, "--count", "0")
    assert done.returncode == 0, done.stderr
    (archive,) = out.glob("loopspec-vectors-*.tar.gz")
    return archive


@SHARES_THE_PACKED
def test_a_missing_adapter_is_said_once_and_nothing_is_listed(packed: Path) -> None:
    done = run_loopspec("vectors", "run", packed, "--", "./no-such-adapter")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "loopspec vectors run: cannot start './no-such-adapter': No such file or directory; nothing was tested"]


def test_drive_and_explore_say_the_same_of_a_missing_adapter() -> None:
    for argv in (("drive",), ("explore", "--depth", "1")):
        done = run_loopspec(*argv, "--", "./no-such-adapter")
        assert done.returncode == 2, done
        assert done.stderr.strip().splitlines() == [
            f"loopspec {argv[0]}: cannot start './no-such-adapter': No such file or directory"]


@SHARES_THE_PACKED
def test_the_packed_suite_runs_as_it_is(packed: Path) -> None:
    done = run_loopspec("vectors", "run", packed, "--select", "splice", "--", "loopspec", "adapter")
    assert done.returncode == 0, done.stderr
    assert "selected case(s) of profile full passed" in done.stdout  # a selection claims no conformance
    assert "codec" not in done.stdout + done.stderr


def test_a_file_that_is_no_suite_archive_says_so(tmp_path: Path) -> None:
    fake = tmp_path / "loopspec-vectors-0.0.0.tar.gz"
    fake.write_bytes(b"\x1f\x8b" + bytes(range(200)))
    done = run_loopspec("vectors", "run", fake, "--", "loopspec", "adapter")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_live_file_is_named(tmp_path: Path) -> None:
    done = run_loopspec("check", LOG, "--live", tmp_path / "missing.live.jsonl")
    assert done.returncode == 2
    assert "cannot read the live stream" in done.stdout
    assert "missing.live.jsonl: No such file or directory" in done.stdout


def test_a_live_recording_given_as_a_log_points_to_live() -> None:
    done = run_loopspec("check", LIVE)
    assert done.returncode == 2
    assert "a live recording, not a session log" in done.stdout
    assert "--live" in done.stdout
    assert "LOG-1" not in done.stdout


@pytest.mark.parametrize(("line", "said"), [
    ('{"seq":0,"type":"agent/turn/start","time":1,"data":{"x":"abc', "column 61: a string is not closed before the "
     "end of the line"),
    ('{"seq":0,', "column 10: the line ends where a key in double quotes is due"),
    ('{"seq":0,"type":}', "column 17: a value is expected here, not '}'"),
])
def test_a_broken_json_line_gets_its_column_within_the_line_and_the_cause(tmp_path: Path, line: str,
                                                                          said: str) -> None:
    log = tmp_path / "broken.jsonl"
    log.write_text(LOG.read_text(encoding="utf-8").splitlines()[0] + "\n" + line + "\n", encoding="utf-8")
    done = run_loopspec("check", log)
    assert done.returncode == 1, done
    assert f"[LOG-1] {log} line 2: not valid JSON: {said}" in done.stdout
    assert "char " not in done.stdout
    assert "line 1 column" not in done.stdout


def test_empty_and_blank_files_follow_the_one_documented_policy(tmp_path: Path) -> None:
    empty, blank = tmp_path / "empty.jsonl", tmp_path / "blank.jsonl"
    empty.write_text("", encoding="utf-8")
    blank.write_text("\n\n\n", encoding="utf-8")
    assert run_loopspec("check", empty).returncode == 0
    done = run_loopspec("check", blank)
    assert done.returncode == 1
    assert f"[LOG-1] {blank} line 1: a blank line" in done.stdout
    helped = " ".join(run_loopspec("check", "--help").stdout.split())
    assert "an empty file is a valid empty log, and a file of blank lines breaks LOG-1 at line 1" in helped


def test_reproduce_finds_the_live_recording_beside_the_log(tmp_path: Path) -> None:
    for suffix in (".events.jsonl", ".live.jsonl"):
        shutil.copy(REAL_TRACES / f"inbox_replace{suffix}", tmp_path / f"run{suffix}")
    done = run_loopspec("reproduce", tmp_path / "run.events.jsonl")
    assert done.returncode == 0, done.stderr
    assert "run: reproduced (37 live records, 7 events)" in done.stdout
    (tmp_path / "run.live.jsonl").unlink()
    alone = run_loopspec("reproduce", tmp_path / "run.events.jsonl")
    assert alone.returncode == 2
    assert "--live NAME.live.jsonl" in alone.stderr


@pytest.mark.parametrize(("argv", "said"), [
    (("explore", "--ids", "9"), "argument --ids: must be 1 to 6, got 9"),
    (("explore", "--depth", "-1"), "argument --depth: must be 0 or more, got -1"),
    (("explore", "--jobs", "x"), "argument --jobs: expected a whole number (0 or more), got 'x'"),
    (("explore", "--seconds", "0"), "argument --seconds: must be a number of seconds greater than 0, got 0"),
    (("render", LOG, "--turns", "0"), "argument --turns: must be 1 or more, got 0"),
    (("render", LOG, "--from", "abc"), "argument --from: expected a whole number (0 or more), got 'abc'"),
    (("vectors", "generate", "--count", "-1", "s"), "argument --count: must be 0 or more, got -1"),
    (("check", "--jobs", "0", LOG), "argument --jobs/-j: must be 1 or more, got 0"),
])
def test_every_numeric_option_states_its_range_in_the_usage_error(argv: tuple[object, ...], said: str) -> None:
    done = run_loopspec(*argv)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Attribute(" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [("check",), ("vectors", "generate"), ("reproduce",), ("render",)])
def test_an_unknown_option_prints_the_subcommands_usage(command: tuple[str, ...]) -> None:
    done = run_loopspec(*command, "--bogus", "x")
    assert done.returncode == 2
    assert done.stderr.startswith(f"usage: loopspec {' '.join(command)} ")
    assert f"loopspec {' '.join(command)}: error: unrecognized arguments: --bogus" in done.stderr


def test_explore_counts_commands_from_one_and_writes_nothing_unasked(tmp_path: Path) -> None:
    mutant = [sys.executable, REPO / "tests" / "vectors" / "mutants" / "run.py", "seq-from-one"]
    done = run_loopspec("explore", "--ids", "1", "--depth", "1", "--", *mutant, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "command 1 of 1 (append): observation:" in done.stdout  # not "command 1 of 1: command 0 (append)"
    assert "  1. {\"op\": \"append\"" in done.stdout
    assert "write it as a vector case with --counterexample FILE" in done.stdout
    assert list(tmp_path.iterdir()) == []


NOISE = bytes(range(256)) * 4


@pytest.mark.parametrize(("argv", "said"), [
    (("replay", LIVE), "a live recording, not a session log"),
    (("check", "--exhaustive", "{noise}"), "UNUSABLE (not a session log"),
    (("check", "--exhaustive", LIVE), "UNUSABLE (a live recording, not a session log"),
    (("vectors", "run", "{tmp}/nowhere", "--", "loopspec", "adapter"), "no such suite folder, archive or case file"),
    (("vectors", "run", "{tmp}", "--", "loopspec", "adapter"), "not a suite: it has no manifest.json"),
    (("vectors", "run", "{noise}", "--", "loopspec", "adapter"), "not a suite folder, a packed suite or a vector case"),
    (("vectors", "run", "{tmp}"), "loopspec vectors run: give the adapter's command line after --"),
    (("drive",), "loopspec drive: give the adapter's command line after --"),
    (("check", "--manifest", "{tmp}"), "is a folder; --manifest takes the manifest file"),
    (("explore", "--commands", ""), "unknown command family ['']"),
    (("explore", "--counterexample", "{tmp}"), "is a folder; give the file to write"),
    (("check", LOG, "--live", LOG), "a session log, not a live recording"),
    (("check", LOG, "--live", "{noise}"), "not a live recording: no line of it is a JSON object"),
    (("render", LOG, "--live", LOG), "a session log, not a live recording"),
    (("vectors", "generate", "--out", "{noise}"), "cannot write the suite into"),
    (("reproduce", LOG, "--live", "{tmp}"), "cannot read (Is a directory)"),
    (("reproduce", LOG, "--live", LIVE, "--final", "{noise}"), "not UTF-8 text (byte 128 of the file)"),
    (("explore", "--scope", "dev", "--check-doc", "--doc", "{noise}"), "cannot read the exploration document"),
])
def test_the_second_pass_finds_one_clear_line_and_exit_2(tmp_path: Path, argv: tuple[object, ...], said: str) -> None:
    noise = tmp_path / "noise.jsonl"
    noise.write_bytes(NOISE)
    words = [str(a).format(tmp=tmp_path, noise=noise) for a in argv]
    done = run_loopspec(*words)
    assert done.returncode == 2, done
    assert said in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "Errno" not in done.stdout + done.stderr
    assert "internal error" not in done.stderr
