"""``loopspec reproduce`` names the two sides of a difference by what they are (issue 25)."""

from __future__ import annotations

import json

from conftest import REPO, run_loopspec

DIFFERS = REPO / "examples" / "recordings-synthetic" / "differs" / "wrong_cancel_cause.events.jsonl"


def test_a_difference_shows_the_recording_and_the_model_under_their_names() -> None:
    done = run_loopspec("reproduce", DIFFERS)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == '    first difference: $.data.reason.reason.kind: the model "disposed", the recording "user"'
    assert lines[2].startswith("    recording: ")
    assert '"reason": {"kind": "user"}' in lines[2]  # what the recorded implementation wrote
    assert lines[3].startswith("    model:     ")
    assert '"reason": {"kind": "disposed"}' in lines[3]  # what the model writes there
    assert "expected" not in done.stdout
    assert "got:" not in done.stdout


def test_the_json_report_names_the_sides_the_same_way() -> None:
    done = run_loopspec("reproduce", DIFFERS, "--format", "json")
    assert done.returncode == 1
    difference = json.loads(done.stdout)["recordings"][0]["difference"]
    assert difference["recording"]["data"]["reason"]["reason"] == {"kind": "user"}
    assert difference["model"]["data"]["reason"]["reason"] == {"kind": "disposed"}
    assert "expected" not in difference
