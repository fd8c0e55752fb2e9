"""Replay of the real traces through the command line (FOLD-5)."""

from __future__ import annotations

import pytest

from conftest import REAL_TRACES
from loopspec.cli import main


def test_replay_real_traces_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(REAL_TRACES)]) == 0
    out = capsys.readouterr().out
    assert 'inbox_replace.events.jsonl: {"next-turn": ["t1", "t2b", "t3"], "next-step": ["s1b"]}' in out
