"""A live notification that names the right message but carries other fields says which (NOTIFY-2, CLAIM-4).

Without the list of differing fields such a report read ``inserted A, expected inserted A``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REAL_TRACES
from loopspec.check import CheckOptions, check_file

Record = dict[str, object]


def _records(name: str) -> list[Record]:
    lines = (REAL_TRACES / f"{name}.live.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _first(records: list[Record], ntype: str) -> Record:
    return next(r for r in records if r.get("type") == ntype)


def _message(tmp: Path, name: str, records: list[Record]) -> tuple[str, str]:
    live = tmp / "x.live.jsonl"
    live.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = check_file(REAL_TRACES / f"{name}.events.jsonl", CheckOptions(), live=live)
    assert result.violations, "the edited stream was accepted"
    return result.violations[0].rule, result.violations[0].message


@pytest.mark.rule("NOTIFY-2")
def test_an_inserted_message_with_other_content_names_the_field(tmp_path: Path) -> None:
    records = _records("single_followup")
    inserted = _first(records, "agent/inbox/inserted")
    message = inserted["message"]
    assert isinstance(message, dict)
    message["content"] = [{"type": "text", "text": "not what the log holds"}]
    rule, text = _message(tmp_path, "single_followup", records)
    assert rule == "NOTIFY-2"
    assert text.endswith("(differs in message.content)"), text


@pytest.mark.rule("CLAIM-4")
def test_a_claim_in_another_turn_names_the_turn(tmp_path: Path) -> None:
    records = _records("single_followup")
    claimed = _first(records, "agent/inbox/claimed")
    claimed["turn"] = 7
    message = claimed["message"]
    assert isinstance(message, dict)
    message["role"] = "system"
    rule, text = _message(tmp_path, "single_followup", records)
    assert rule == "CLAIM-4"
    assert "(differs in turn 7 not 1, message.role)" in text, text
