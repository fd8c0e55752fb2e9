"""``check --exhaustive`` places a verdict at the first event no run can write, and names the fast
checker's rule (labelled as such) where the two agree (issue 25), as a user runs it."""

from __future__ import annotations

import re

import pytest

from conftest import REPO, run_loopspec

INVALID = REPO / "examples" / "logs" / "invalid"


@pytest.mark.rule("CLAIM-1", "CLAIM-3", "CLAIM-6")
@pytest.mark.parametrize(("name", "seq", "rule"), [
    ("CLAIM-1-claim-takes-two-next-turn", 3, "CLAIM-1"),
    ("CLAIM-3-claim-inside-step", 6, "CLAIM-3"),
    ("CLAIM-6-step-without-claim", 2, "CLAIM-6"),
])
def test_the_search_and_the_checker_agree_on_the_place_and_the_rule(name: str, seq: int, rule: str) -> None:
    log = INVALID / f"{name}.events.jsonl"
    checked = run_loopspec("check", log)
    assert f"line {seq + 1}, seq {seq}:" in checked.stdout
    judged = run_loopspec("check", "--exhaustive", log)
    assert judged.returncode == 1, judged.stderr
    assert re.search(rf"every run that writes the events before event seq {seq} \(", judged.stdout), judged.stdout
    assert f"rule (from the fast checker, which agrees on the place): [{rule}] " in judged.stdout
