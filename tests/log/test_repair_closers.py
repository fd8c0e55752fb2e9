"""Which events are crash repair's closers (REPAIR-1, REPAIR-2), as the live checker reads them after a boundary."""

from __future__ import annotations

import pytest

from loopspec.log.repair_closers import is_repair_closer


def result(mid: str) -> dict[str, object]:
    return {"type": "tool/result", "data": {"message": {"id": mid}}}


@pytest.mark.rule("REPAIR-1", "REPAIR-2")
@pytest.mark.parametrize(("event", "closer"), [
    ({"type": "step/end", "data": {"turn": 1, "step": 1}}, True),
    ({"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "interrupted"}}}, True),
    ({"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "aborted", "reason": {"kind": "disposed"}}}}, False),
    (result("interrupted-tool-result-call-1.1.1-9"), True),
    (result("tool-result-call-1.1.1"), False),
    ({"type": "agent/inbox/spliced", "data": {}}, False),
    ("not an event", False),
])
def test_only_what_repair_writes_is_a_closer(event: object, closer: bool) -> None:
    assert is_repair_closer(event) is closer
