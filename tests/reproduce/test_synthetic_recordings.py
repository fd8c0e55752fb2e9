"""The hand-made recordings of ``examples/recordings-synthetic`` get exactly the outcome their manifest lists.

``reproduces/`` must reproduce; each ``differs/`` recording is a copy of one of them with one
deliberate change, which must be reported as the first difference (file, line, seq, rule); each
``unusable/`` one must exit 2 naming what the engine cannot use.  The one known model gap (the
``-0`` refusal text, issue 12 item 4) is listed with its current difference and, strictly, as
expected to reproduce once the model words the refusal like the real system.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopspec.cli import main
from loopspec.reproduce.files import EVENTS, FINAL, LIVE, in_folder
from loopspec.reproduce.run import Outcome, reproduce, reproduce_folder
from reproduce.recording_copies import SYNTHETIC, copy_recording, edit, first_line

MANIFEST: list[dict[str, Any]] = json.loads((SYNTHETIC / "manifest.json").read_text(encoding="utf-8"))["recordings"]
SUFFIX = {"events": EVENTS, "live": LIVE, "final": FINAL}


def _outcome(entry: dict[str, Any]) -> Outcome:
    folder, name = (SYNTHETIC / entry["path"]).parent, Path(entry["path"]).name
    outcomes = {o.name: o for o in reproduce_folder(folder)}
    return outcomes[name]


def test_the_manifest_lists_every_recording_of_the_folder() -> None:
    listed = {entry["path"] for entry in MANIFEST}
    on_disk = {f"{folder.name}/{p.name.removesuffix(EVENTS)}" for folder in SYNTHETIC.iterdir() if folder.is_dir()
               for p in folder.glob(f"*{EVENTS}")}
    assert listed == on_disk


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["path"] for e in MANIFEST])
def test_each_recording_gets_its_expected_outcome(entry: dict[str, Any]) -> None:
    outcome = _outcome(entry)
    assert outcome.status == entry["expect"], outcome.difference or outcome.problem
    if entry["expect"] == "different":
        diff = outcome.difference
        assert diff is not None
        assert diff.file.name.endswith(SUFFIX[entry["file"]])
        assert (diff.line, diff.seq, diff.rule) == (entry["line"], entry["seq"], entry["rule"]), diff
    elif entry["expect"] == "unusable":
        problem = outcome.problem
        assert problem is not None
        assert problem.path.name.endswith(SUFFIX[entry["file"]])
        assert problem.line == entry["line"]
        assert entry["names"] in problem.message


@pytest.mark.rule("SPLICE-2", "SPLICE-4", "SPLICE-6", "SPLICE-8", "NORM-1", "NORM-2", "NORM-3", "DECIDE-3",
                  "DECIDE-6", "DECIDE-7", "RESULT-1", "RESULT-2", "RESULT-3", "RESULT-4", "CANCEL-4", "REPAIR-1",
                  "REPAIR-3", "REPAIR-4", "END-2", "LOG-6")
def test_every_reproducing_recording_reproduces_through_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", str(SYNTHETIC / "reproduces")]) == 0
    assert "11 reproduced, 0 different, 0 unusable" in capsys.readouterr().out


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e["expect"] == "different" and "from" in e],
                         ids=lambda e: e["path"])
def test_each_deliberate_difference_is_the_only_change_from_its_source(entry: dict[str, Any]) -> None:
    """A ``differs/`` recording is its source with one change: the source's files differ from it in one line."""
    name, source = Path(entry["path"]).name, SYNTHETIC / entry["from"]
    changed = 0
    for suffix in (EVENTS, LIVE, FINAL):
        mine = (SYNTHETIC / f"{entry['path']}{suffix}").read_text(encoding="utf-8")
        theirs = Path(f"{source}{suffix}").read_text(encoding="utf-8")
        if suffix == FINAL:
            theirs = theirs.replace(f'"scenario": "{source.name}"', f'"scenario": "{name}"')
        changed += sum(a != b for a, b in zip(mine.splitlines(), theirs.splitlines(), strict=False))
        changed += abs(len(mine.splitlines()) - len(theirs.splitlines()))
    assert changed in (1, 2), f"{entry['path']} differs from {entry['from']} in {changed} lines"


@pytest.mark.rule("NORM-5")
def test_the_negative_zero_refusal_reproduces_with_the_real_text() -> None:
    found, _ = in_folder(SYNTHETIC / "reproduces")
    files = next(f for f in found if f.name == "negative_zero_refused")
    assert reproduce(files).status == "reproduced"


@pytest.mark.rule("NORM-5", "SPLICE-2")
def test_the_negative_zero_refusal_text_is_compared(tmp_path: Path) -> None:
    """With loopspec's former wording in place of the real one, the recording no longer reproduces."""
    files = copy_recording(SYNTHETIC / "reproduces", "negative_zero_refused", tmp_path)
    former_text = "Error: start normalizes to -0, which the session cannot store; nothing written"
    line = first_line(files.live, lambda row: "non-JSON-serializable" in str(row.get("threw")))
    edit(files.live, line, lambda row: {**row, "threw": former_text})
    assert reproduce(files).status == "different"
