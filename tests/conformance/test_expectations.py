"""The expectations judge of the real-implementation run (conformance/dsh_conformance.py), on made-up runs.

The run must equal the expectations exactly: a new failure, a changed failure, a stale entry and a
drive seed ending otherwise are each a difference; ``--write`` files failures by their finding's
pattern and refuses to write an untriaged one.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_conformance import compare, rewritten, run_drive

SENT = {"classes": 10, "skipped": 1, "cases": 2, "commands": 30}
FINDINGS = [{"id": "F1", "match": ["sourceEventSeqs"],
             "cases": {"a/x": {"status": "fail", "detail": "key sourceEventSeqs"}}},
            {"id": "F2", "match": ["unsupported"], "cases": {}}]
EXPECTED: dict[str, Any] = {"findings": FINDINGS, "drive": {"examples": 1, "seeds": {"1": "pass", "2": "F2"}},
                            "explore": {"ids": 1, "depth": 1, "outcome": "pass"},
                            "tour": {"scope": "dev", "outcome": "pass", "sent": SENT},
                            "lifecycles": {"first": 1, "count": 3, "not-followed": {}}}


def report(*cases: dict[str, str]) -> dict[str, Any]:
    return {"cases": list(cases)}


def case(cid: str, status: str, detail: str = "", reason: str = "") -> dict[str, str]:
    out = {"id": cid, "status": status, "detail": detail}
    return {**out, "reason": reason} if reason else out


DRIVES = {"1": "pass", "2": "command 3: unsupported"}


def test_a_run_that_equals_the_expectations_has_no_difference() -> None:
    run = report(case("a/x", "fail", "key sourceEventSeqs"), case("a/y", "pass"),
                 case("c/z", "not-run", "needs claim", "outside-profile"))
    assert compare(EXPECTED, run, DRIVES) == []


def test_new_changed_and_stale_failures_are_differences() -> None:
    new = compare(EXPECTED, report(case("a/x", "fail", "key sourceEventSeqs"), case("a/y", "fail", "boom")), DRIVES)
    assert new == ["new vectors outcome: a/y: {'status': 'fail', 'detail': 'boom'}"]
    changed = compare(EXPECTED, report(case("a/x", "fail", "other")), DRIVES)
    assert changed[0].startswith("changed vectors outcome: a/x (F1)")
    stale = compare(EXPECTED, report(case("a/x", "pass")), DRIVES)
    assert stale == ["stale: vectors a/x (F1) is expected to fail but is pass"]


def test_a_drive_seed_that_ends_otherwise_is_a_difference() -> None:
    run = report(case("a/x", "fail", "key sourceEventSeqs"))
    assert compare(EXPECTED, run, {"1": "pass", "2": "pass"})[0].startswith("drive --seed 2: expected F2, got pass")
    assert "untriaged" in compare(EXPECTED, run, {"1": "something else", "2": DRIVES["2"]})[0]


def test_write_files_failures_by_pattern_and_refuses_untriaged_ones() -> None:
    run = report(case("b/1", "not-run", "the adapter answered unsupported"), case("a/x", "pass"))
    written, untriaged = rewritten(EXPECTED, run, DRIVES)
    assert untriaged == []
    assert written["findings"][0]["cases"] == {}
    filed = {"b/1": {"status": "not-run", "detail": "the adapter answered unsupported"}}
    assert written["findings"][1]["cases"] == filed
    _, untriaged = rewritten(EXPECTED, report(case("b/2", "fail", "nobody knows")), DRIVES)
    assert untriaged == ["b/2: fail: nobody knows"]


def test_recordings_must_fail_as_listed_and_be_enough() -> None:
    listed = {"reproduce": "reproduce: x.live.jsonl:3: boom [END-1]", "check": ""}
    expected = {**EXPECTED, "recorded": {"least": 2},
                "findings": [{**FINDINGS[0], "recordings": {"r1": listed}}, FINDINGS[1]]}
    run = report(case("a/x", "fail", "key sourceEventSeqs"))
    same: dict[str, Any] = {"recorded": 2, "failed": {"r1": listed}, "names": ["r1", "r2"]}
    assert compare(expected, run, DRIVES, same) == []
    passing = {**same, "failed": {}}
    assert compare(expected, run, DRIVES, passing) == ["stale: recording r1 (F1) is expected to fail but is "
                                                       "reproduced and valid"]
    few = {**same, "recorded": 1}
    assert compare(expected, run, DRIVES, few) == ["only 1 recording(s), the expectations ask for 2"]
    other = {**same, "failed": {**same["failed"], "r2": {"reproduce": "", "check": "check --live: [LOG-5]"}}}
    assert compare(expected, run, DRIVES, other)[0].startswith("new recording outcome: r2")


def test_explore_must_end_as_expected() -> None:
    run = report(case("a/x", "fail", "key sourceEventSeqs"))
    base: dict[str, Any] = {"recorded": 0, "failed": {}, "names": [], "explore": "pass"}
    expected = {**EXPECTED, "recorded": {"least": 0}}
    assert compare(expected, run, DRIVES, base) == []
    found = {**base, "explore": "command 2 of 2: the adapter answered unsupported"}
    assert compare(expected, run, DRIVES, found)[0].startswith("explore: expected pass, got F2")


def test_a_tour_must_end_as_expected_and_send_what_it_sent_before() -> None:
    run = report(case("a/x", "fail", "key sourceEventSeqs"))
    base: dict[str, Any] = {"recorded": 0, "failed": {}, "names": [], "tour": {"outcome": "pass", "sent": SENT}}
    expected = {**EXPECTED, "recorded": {"least": 0}}
    assert compare(expected, run, DRIVES, base) == []
    disagreed = {**base, "tour": {"outcome": "command 9 of 9: the adapter answered unsupported", "sent": SENT}}
    assert compare(expected, run, DRIVES, disagreed)[0].startswith("explore --tour: expected pass, got F2")
    untriaged = {**base, "tour": {"outcome": "command 9 of 9: something else", "sent": SENT}}
    assert "an untriaged disagreement" in compare(expected, run, DRIVES, untriaged)[0]
    more = {**base, "tour": {"outcome": "pass", "sent": {**SENT, "classes": 11}}}
    assert "run bash scripts/dsh-conformance.sh --write" in compare(expected, run, DRIVES, more)[0]
    written, left = rewritten(expected, run, DRIVES, more)
    assert left == []
    assert written["tour"] == {"scope": "dev", "outcome": "pass", "sent": {**SENT, "classes": 11}}
    assert rewritten(expected, run, DRIVES, untriaged)[1] == ["explore --tour: command 9 of 9: something else"]


def test_a_drive_the_time_budget_cut_short_is_not_a_pass() -> None:
    """The expectations ask for a number of examples at each seed; fewer is a failed run, said in one line."""
    model = ("loopspec", "adapter")  # the model itself: no disagreement, so only the count can fail
    assert run_drive(1, 3, adapter=model) == "pass"
    with pytest.raises(SystemExit, match=r"drive --seed 1 did not run its 5000 examples: stopped by the time budget"):
        run_drive(1, 5000, time_budget=0.5, adapter=model)


def test_random_lifecycles_must_be_followed_as_listed_and_never_refused() -> None:
    """A seed reproduce cannot follow is a finding's, per seed; a seed check refuses is a false verdict."""
    run = report(case("a/x", "fail", "key sourceEventSeqs"))
    expected = {**EXPECTED, "recorded": {"least": 0},
                "lifecycles": {"first": 1, "count": 3, "not-followed": {"seed-2": "F2"}}}
    base: dict[str, Any] = {"recorded": 0, "failed": {}, "names": [], "tour": None}

    def lives(unfollowed: dict[str, str], refused: dict[str, str] | None = None) -> dict[str, Any]:
        return {**base, "lifecycles": {"recorded": 3, "unfollowed": unfollowed, "refused": refused or {}}}

    assert compare(expected, run, DRIVES, lives({"seed-2": "reproduce: unsupported here"})) == []
    assert compare(expected, run, DRIVES, lives({})) == [
        "random lifecycle seed-2: expected F2, got reproduced: reproduced and valid"]
    newly = compare(expected, run, DRIVES, lives({"seed-2": "unsupported", "seed-3": "nobody knows"}))
    assert newly == ["random lifecycle seed-3: expected reproduced, got an untriaged difference: nobody knows"]
    refused = compare(expected, run, DRIVES, lives({"seed-2": "unsupported"}, {"seed-1": "check --live: x [LOG-5]"}))
    assert refused == ["check --live refused the real run seed-1 (a false verdict): check --live: x [LOG-5]"]
    written, left = rewritten(expected, run, DRIVES, lives({"seed-10": "unsupported", "seed-3": "unsupported"}))
    assert left == []
    assert list(written["lifecycles"]["not-followed"].items()) == [("seed-3", "F2"), ("seed-10", "F2")]
    _, left = rewritten(expected, run, DRIVES, lives({"seed-3": "nobody knows"}, {"seed-1": "boom"}))
    assert left == ["check --live refused the real run seed-1 (a false verdict): boom",
                    "random lifecycle seed-3: nobody knows"]
