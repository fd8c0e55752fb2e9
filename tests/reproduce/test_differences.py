"""A recording the model does not reproduce exits 1 with the first difference: file, line, seq, rule.

Each case is a real recording with one thing changed, and the report must point at exactly that
change.  Then, over every recording that reproduces: removing any record that is not a mere
observation (a pre-step ``invoked``, a note without ``crash``) makes it differ, so no output, call
or boundary goes unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loopspec.reproduce import records as r
from loopspec.reproduce.files import EVENTS, FINAL, LIVE, RecordingFiles, in_folder, read_recording
from loopspec.reproduce.run import reproduce
from reproduce.recording_copies import RECORDINGS, SYNTHETIC, Json, copy_recording, edit, lines_of


def _with(row: Json, **changes: object) -> Json:
    return {**row, **changes}


def _final(files: RecordingFiles, old: str, new: str) -> None:
    assert files.final is not None
    text = files.final.read_text(encoding="utf-8")
    assert old in text
    files.final.write_text(text.replace(old, new, 1), encoding="utf-8")


Change = Callable[[RecordingFiles], None]
# (recording, change, file of the difference, its line, its seq, the rule named)
CASES: list[tuple[str, str, Change, str, int | None, int | None, str]] = [
    ("single_followup", "status notification", lambda f: edit(f.live, 4, lambda x: _with(x, status="idle")),
     LIVE, 4, None, "STATUS-1"),
    ("inbox_replace", "replace result", lambda f: edit(f.live, 21, lambda x: _with(x, result=False)),
     LIVE, 21, None, "SPLICE-7"),
    ("inbox_replace", "nextSeqAfter", lambda f: edit(f.live, 21, lambda x: _with(x, nextSeqAfter=4)),
     LIVE, 21, None, "NOTIFY-4"),
    ("splice_negative_start", "splice result", lambda f: edit(f.live, 17, lambda x: _with(x, result=[{"id": "t2"}])),
     LIVE, 17, None, "SPLICE-1"),
    ("steer_during_tool_call", "observed inbox", lambda f: edit(f.live, 27, lambda x: _with(x, nextStep=[])),
     LIVE, 27, None, "FOLD-5"),
    ("three_quick_followups", "claimed turn", lambda f: edit(f.live, 34, lambda x: _with(x, turn=3)),
     LIVE, 34, None, "CLAIM-4"),
    ("prestep_reject_first_step", "proposed step", lambda f: edit(f.live, 9, lambda x: _with(x, step=2)),
     LIVE, 9, None, "DECIDE-1"),
    ("cancel_with_pending_inbox", "order of discarded",
     lambda f: edit(f.live, 33, lambda x: _with(x, message={**x["message"], "id": "u3"})),  # type: ignore[dict-item]
     LIVE, 33, None, "NOTIFY-2"),
    ("resume_crash_mid_turn", "repair's turn/end", lambda f: edit(
        f.events, 13, lambda x: _with(x, data={"turn": 1, "reason": {"kind": "aborted"}})), EVENTS, 13, 12, "END-1"),
    # A changed body alone is a listener's rewrite that keeps the id (decisions E2: the decided
    # record names ids only, the bodies come from the step's user/message); another id is not.
    ("single_followup", "a user/message id", lambda f: edit(
        f.events, 5, lambda x: _with(x, data={**x["data"], "id": "u9"})),  # type: ignore[dict-item]
     EVENTS, 5, 4, "DECIDE-8"),
    ("single_followup", "final inbox", lambda f: _final(f, '"nextTurn": []', '"nextTurn": ["u1"]'),
     FINAL, None, None, "FOLD-5"),
    ("resume_crash_mid_turn", "state after the restart",
     lambda f: _final(f, '"status": "idle",\n    "eventCount": 14', '"status": "running",\n    "eventCount": 14'),
     FINAL, None, None, "REPAIR-4"),
    ("single_followup", "the last notification missing", lambda f: edit(f.live, 24, lambda x: None),
     LIVE, None, None, "STATUS-1"),
]


@pytest.mark.parametrize(("name", "what", "change", "suffix", "line", "seq", "rule"), CASES,
                         ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_a_changed_recording_reports_the_change_as_its_first_difference(
        tmp_path: Path, name: str, what: str, change: Change, suffix: str, line: int | None, seq: int | None,
        rule: str) -> None:
    files = copy_recording(RECORDINGS, name, tmp_path)
    change(files)
    outcome = reproduce(files)
    assert outcome.status == "different", outcome.problem
    diff = outcome.difference
    assert diff is not None
    assert diff.file.name.endswith(suffix)
    assert (diff.line, diff.seq, diff.rule) == (line, seq, rule), diff


@pytest.mark.rule("LOG-5")
def test_a_log_that_goes_on_past_the_recording_differs(tmp_path: Path) -> None:
    files = copy_recording(RECORDINGS, "prestep_reject_first_step", tmp_path)
    extra = '{"type":"request/header","seq":4,"time":1700000000009,"data":{}}\n'
    files.events.write_text(files.events.read_text(encoding="utf-8") + extra, encoding="utf-8")
    diff = reproduce(files).difference
    assert diff is not None
    assert (diff.file, diff.line, diff.seq, diff.rule) == (files.events, 5, 4, "LOG-5")


def _observation(record: r.LiveRecord) -> bool:
    return isinstance(record, r.PreStepInvoked) or (isinstance(record, r.Note) and record.crash is None)


def _unheard_tail(records: tuple[r.LiveRecord, ...], index: int) -> bool:
    """The last record a gracefully shut-down process put out before the next one loaded the log:
    the teardown may detach the recorder's observer right before it, so it may go unheard
    (decisions.md G2, G15)."""
    after = records[index + 1] if index + 1 < len(records) else None
    if not isinstance(after, r.Note) or after.crash is not None:
        return False
    before = [rec for rec in records[:index] if isinstance(rec, r.Note)]
    return bool(before) and before[-1].crash is False


REPRODUCING = [(RECORDINGS, f.name) for f in in_folder(RECORDINGS)[0]] + [
    (SYNTHETIC / "reproduces", f.name) for f in in_folder(SYNTHETIC / "reproduces")[0]]


@pytest.mark.parametrize(("folder", "name"), REPRODUCING, ids=[n for _, n in REPRODUCING])
def test_removing_any_record_but_an_observation_is_noticed(tmp_path: Path, folder: Path, name: str) -> None:
    source = copy_recording(folder, name, tmp_path / "source")
    records = read_recording(source).records
    assert reproduce(source).status == "reproduced"
    for index, record in enumerate(records):
        if _observation(record) or _unheard_tail(records, index):
            continue
        files = copy_recording(folder, name, tmp_path / str(index))
        rows = lines_of(files.live)
        assert len(rows) == len(records)
        edit(files.live, index + 1, lambda _: None)
        assert reproduce(files).status != "reproduced", f"{name}: removing line {index + 1} went unnoticed"


def test_the_final_file_is_optional(tmp_path: Path) -> None:
    files = copy_recording(RECORDINGS, "single_followup", tmp_path)
    assert files.final is not None
    files.final.unlink()
    found = in_folder(tmp_path)[0]
    assert [(f.name, f.final) for f in found] == [("single_followup", None)]
    assert reproduce(found[0]).status == "reproduced"
    assert not (tmp_path / f"single_followup{FINAL}").exists()
