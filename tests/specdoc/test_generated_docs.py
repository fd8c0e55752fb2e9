"""The generated documents (docs/traceability.md, docs/events.md) are up to date.

Meta test: regenerates every document in memory and compares it with the file on disk.
"""

from __future__ import annotations

import pytest

from conftest import REPO
from loopspec.cli import main
from loopspec.specdoc.generate import render_all, stale_documents
from loopspec.specdoc.project import load_project


def test_generated_docs_are_up_to_date() -> None:
    stale = stale_documents(load_project(REPO))
    assert not stale, f"out of date: {', '.join(stale)}; run `loopspec docs --write` and commit the result"


def test_event_catalog_lists_every_schema_type() -> None:
    """Each durable event and notification of spec/schemas has its own section with rule links."""
    text = render_all(load_project(REPO))["docs/events.md"]
    for name in (
        "agent/inbox/spliced",
        "turn/start",
        "turn/end",
        "step/start",
        "step/end",
        "user/message",
        "session/end-seed",
        "agent/inbox/inserted",
        "agent/inbox/discarded",
        "agent/inbox/claimed",
        "agent/status",
        "agent/error",
    ):
        assert f"### `{name}`" in text, name
    assert "(undefined)" not in text
    assert "| `removedCount` | positiveSafeInteger | no |" in text


def test_docs_check_command_reports_staleness(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["docs", "--check"])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert ("loopspec docs --write" in out) == (code == 1)
