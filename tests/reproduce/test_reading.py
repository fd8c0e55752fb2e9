"""Unusable input is refused before any comparison (exit 2), naming the file, the line and what is wrong.

Each case is a real recording with one line changed; nothing is skipped silently: an unknown
record kind, live type, pre-step phase, call, argument or field, a call without its end, JSON the
real writer cannot write, a marker that names another event, a final file of another scenario.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.reproduce.calls import js_number
from loopspec.reproduce.files import RecordingFiles
from loopspec.reproduce.run import Outcome, reproduce, reproduce_folder
from reproduce.recording_copies import RECORDINGS, Json, copy_recording, edit

LiveEdit = tuple[str, int, Callable[[Json], Json | None], str]


def _with(row: Json, **changes: object) -> Json:
    return {**row, **changes}


def _without(row: Json, key: str) -> Json:
    return {k: v for k, v in row.items() if k != key}


# (recording, live line, change, text the problem must name)
LIVE_EDITS: list[LiveEdit] = [
    ("single_followup", 9, lambda row: _with(row, kind="checkpoint"), "unknown record kind 'checkpoint'"),
    ("single_followup", 3, lambda row: _with(row, type="agent/thinking"), "unknown live record type 'agent/thinking'"),
    ("single_followup", 9, lambda row: _with(row, phase="skipped"), "unknown agent/pre-step phase 'skipped'"),
    ("single_followup", 2, lambda row: _with(row, extra=1), "unknown field(s) ['extra']"),
    ("single_followup", 3, lambda row: _without(row, "nextSeq"), "'nextSeq' is missing"),
    ("single_followup", 2, lambda row: _with(row, seq="0"), "'seq' must be a non-negative integer"),
    ("single_followup", 4, lambda row: _with(row, status="paused"), "'status' must be 'idle' or 'running'"),
    ("single_followup", 10, lambda row: _with(row, decision={"kind": "enter"}), "'decision' must be"),
    ("single_followup", 3, lambda row: _with(row, message={"id": "u1", "role": "assistant", "content": [],
                                                           "source": {}}), "role must be 'user'"),
    ("single_followup", 8, lambda row: _with(row, threw="Error: x"), "exactly one of 'result' and 'threw'"),
    ("single_followup", 8, lambda row: _without(row, "result"), "exactly one of 'result' and 'threw'"),
    ("single_followup", 8, lambda row: _with(row, op="steer"), "does not close the call begun last"),
    ("single_followup", 8, lambda row: None, "has no op-end"),
    ("single_followup", 1, lambda row: _with(row, op="dispose"), "unknown call 'dispose'"),
    ("single_followup", 1, lambda row: _with(row, args={"id": "u1", "wake": True}), "unknown ['wake']"),
    ("single_followup", 1, lambda row: _with(row, args={}), "missing ['id']"),
    ("single_followup", 1, lambda row: _with(row, op="send", args={"id": "u1", "target": "next-turn", "wake": "yes"}),
     "'wake' must be a boolean"),
    ("inbox_replace", 1, lambda row: _with(row, args={"target": "later", "id": "t1"}), "unknown inbox target"),
    ("splice_negative_start", 13, lambda row: _with(row, args={**row["args"], "start": "1,5"}),  # type: ignore[dict-item]
     "not the JavaScript text of a number"),
    ("splice_negative_start", 13, lambda row: _with(row, args={**row["args"], "start": True}),  # type: ignore[dict-item]
     "must be a number or its JavaScript text"),
    ("cancel_with_pending_inbox", 29, lambda row: _with(row, args={"cause": {"kind": 1}}), "a cancel cause"),
    ("cancel_with_pending_inbox", 29, lambda row: _with(row, args={"cause": {"kind": "user"}, "keepInbox": 1}),
     "'keepInbox' must be a boolean"),
    ("resume_crash_mid_turn", 25, lambda row: _with(row, crash="yes"), "'crash' must be a boolean"),
    ("single_followup", 2, lambda row: _with(row, type="turn/start"), 'where the log holds "agent/inbox/spliced"'),
    ("single_followup", 2, lambda row: _with(row, seq=99), "where the log has no event of that seq"),
]


def _problem(outcome: Outcome) -> tuple[str, int | None, str]:
    assert outcome.status == "unusable", outcome.difference
    assert outcome.problem is not None
    return outcome.problem.path.name, outcome.problem.line, outcome.problem.message


@pytest.mark.parametrize(("name", "line", "change", "named"), LIVE_EDITS, ids=[e[3] for e in LIVE_EDITS])
def test_a_bad_live_record_is_unusable_input(tmp_path: Path, name: str, line: int,
                                             change: Callable[[Json], Json | None], named: str) -> None:
    files = copy_recording(RECORDINGS, name, tmp_path)
    edit(files.live, line, change)
    file, where, message = _problem(reproduce(files))
    assert file == files.live.name
    assert named in message
    assert where is not None


@pytest.mark.parametrize(("text", "named"), [
    ('{"kind":"note","text":"x","nextSeq":NaN}', "not valid JSON"),
    ('{"kind":"note","text":"x","text":"y"}', "appears twice"),
    ("", "not valid JSON"),
    ("[1]", "must be a JSON object"),
])
def test_json_the_real_writer_cannot_write_is_unusable(tmp_path: Path, text: str, named: str) -> None:
    files = copy_recording(RECORDINGS, "single_followup", tmp_path)
    lines = files.live.read_text(encoding="utf-8").splitlines()
    files.live.write_text("\n".join([*lines[:5], text, *lines[5:]]) + "\n", encoding="utf-8")
    file, line, message = _problem(reproduce(files))
    assert (file, line) == (files.live.name, 6)
    assert named in message


def test_a_call_inside_another_call_is_unusable(tmp_path: Path) -> None:
    """A call made from inside another call (not from a listener window) is not in the format (decisions.md E5)."""
    files = copy_recording(RECORDINGS, "inbox_replace", tmp_path)
    lines = files.live.read_text(encoding="utf-8").splitlines()
    probe = ['{"kind":"op-begin","op":"snapshot","args":{},"nextSeq":1}',
             '{"kind":"op-end","op":"snapshot","args":{},"nextSeqBefore":1,"nextSeqAfter":1,'
             '"result":{"nextTurn":["t1"],"nextStep":[]}}']
    files.live.write_text("\n".join([*lines[:3], *probe, *lines[3:]]) + "\n", encoding="utf-8")
    file, line, message = _problem(reproduce(files))
    assert (file, line) == (files.live.name, 4)
    assert "begins inside the call 'inbox.append' begun on line 1" in message


def test_a_log_that_is_not_a_session_log_is_unusable(tmp_path: Path) -> None:
    files = copy_recording(RECORDINGS, "single_followup", tmp_path)
    files.events.write_bytes(b"\x00\xff garbage\n")
    file, _, message = _problem(reproduce(files))
    assert (file, message.startswith("not a session log")) == (files.events.name, True)


def test_a_log_whose_seq_is_not_the_index_is_unusable(tmp_path: Path) -> None:
    files = copy_recording(RECORDINGS, "single_followup", tmp_path)
    edit(files.events, 3, lambda row: _with(row, seq=7))
    assert _problem(reproduce(files))[1] == 3


@pytest.mark.parametrize(("change", "named"), [
    (lambda text: text.replace('"scenario": "resume_crash_mid_turn"', '"scenario": "other"'), "'scenario' is 'other'"),
    (lambda text: text.replace('"persistedFiles"', '"persisted"'), "keys must be"),
    (lambda text: text.replace('"crash": true', '"crash": false'), "crash=False"),
    (lambda text: text.replace('"status": "idle",\n  "nextTurn": []', '"status": "asleep",\n  "nextTurn": []'),
     "'final.status'"),
])
def test_a_final_file_that_does_not_fit_is_unusable(tmp_path: Path, change: Callable[[str], str], named: str) -> None:
    files = copy_recording(RECORDINGS, "resume_crash_mid_turn", tmp_path)
    assert files.final is not None
    text = files.final.read_text(encoding="utf-8")
    assert change(text) != text
    files.final.write_text(change(text), encoding="utf-8")
    file, _, message = _problem(reproduce(files))
    assert file == files.final.name
    assert named in message


def test_a_restart_in_the_final_file_needs_a_boundary_in_the_live_file(tmp_path: Path) -> None:
    files = copy_recording(RECORDINGS, "single_followup", tmp_path)
    assert files.final is not None
    view = {"nextTurn": [], "nextStep": [], "status": "idle", "eventCount": 16}
    final = {**json.loads(files.final.read_text(encoding="utf-8")), "beforeRestart": {**view, "crash": True},
             "reconstructedAfterResume": view}
    files.final.write_text(json.dumps(final), encoding="utf-8")
    assert "boundary is missing" in _problem(reproduce(files))[2]


def test_a_folder_without_pairs_or_with_an_unpaired_file_is_unusable(tmp_path: Path) -> None:
    (empty := tmp_path / "empty").mkdir()
    assert [o.status for o in reproduce_folder(empty)] == ["unusable"]
    copy_recording(RECORDINGS, "single_followup", tmp_path / "half").live.unlink()
    outcome = next(iter(reproduce_folder(tmp_path / "half")))
    assert (outcome.name, outcome.status) == ("single_followup", "unusable")


def test_a_missing_file_is_unusable(tmp_path: Path) -> None:
    files = RecordingFiles("gone", tmp_path / "gone.events.jsonl", tmp_path / "gone.live.jsonl")
    assert "cannot read" in _problem(reproduce(files))[2]


@pytest.mark.rule("NORM-1", "NORM-5")
@pytest.mark.parametrize(("raw", "value"), [
    (3, 3), (2.0, 2), ("-1", -1), ("1", 1), ("-1.5", -1.5), ("1e+21", 10**21), ("Infinity", math.inf),
    ("-Infinity", -math.inf), ("-0", -0.0), (0, 0), (-0.0, -0.0),
])
def test_splice_coordinates_are_read_as_javascript_numbers(raw: object, value: float) -> None:
    got = js_number(raw)  # type: ignore[arg-type]
    assert got == value
    assert math.copysign(1.0, got) == math.copysign(1.0, value)
    assert isinstance(got, int) == isinstance(value, int)


def test_nan_is_read_as_nan_and_other_text_is_refused() -> None:
    assert math.isnan(js_number("NaN"))
    for bad in ("nan", "inf", "+1", "1_000", " 1", "0x10", "-NaN", None, [1]):
        with pytest.raises(ValueError):  # noqa: PT011 (the message varies with the value)
            js_number(bad)  # type: ignore[arg-type]
