"""The conformance run's ``check --live`` of many recordings per process says what the command says.

``conformance/recorded_runs.py`` checks some 750 recordings a run with the function ``loopspec
check`` calls, in two processes, instead of a process each (about 0.15 s of CPU apiece); its words
must be the command's, for a valid pair, a violation of the log or of the live stream, and an
unusable live stream.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import REPO
from loopspec.check.manifest import load_manifest
from recorded_runs import _checked, _checked_here, _checked_share

MANIFEST = REPO / "examples" / "logs" / "manifest.json"


def _as_recordings(tmp_path: Path) -> list[tuple[Path, str]]:
    """Every bundled example with a live stream, named as the recorder names a recording."""
    pairs = []
    for expectation in load_manifest(MANIFEST):
        if expectation.live is None or expectation.allow_torn_tail:
            continue
        name = expectation.live.name.removesuffix(".live.jsonl")
        events = tmp_path / f"{name}.events.jsonl"
        shutil.copyfile(expectation.path, events)
        shutil.copyfile(expectation.live, tmp_path / f"{name}.live.jsonl")
        pairs.append((events, expectation.verdict))
    return pairs


def test_each_recording_gets_the_commands_words(tmp_path: Path) -> None:
    pairs = _as_recordings(tmp_path)
    assert {verdict for _, verdict in pairs} == {"valid", "invalid"}, "both verdicts are tried"
    for events, verdict in pairs:
        here = _checked_here(events)
        assert here == _checked(events), events.name
        assert (here == "") == (verdict == "valid"), (events.name, here)
    # The run itself checks its share of the logs in a process of its own (the file as a script).
    assert _checked_share([events for events, _ in pairs]) == [_checked_here(events) for events, _ in pairs]


def test_an_unusable_live_stream_is_said_in_the_commands_words(tmp_path: Path) -> None:
    events, _ = _as_recordings(tmp_path)[0]
    events.with_name(events.name.replace(".events.jsonl", ".live.jsonl")).write_text("not json\n", encoding="utf-8")
    here = _checked_here(events)
    assert here == _checked(events)
    assert here.startswith("check --live: "), here
