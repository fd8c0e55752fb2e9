"""Mutations of valid logs: the illegal ones are never accepted, and the report names the rule.

Each test takes a random valid log (:mod:`log_mutations`), picks a spot where the mutation is
illegal for a reason stated in the test, applies it and requires the named rule(s).  seq is
re-numbered after structural mutations so LOG-2 does not decide everything.  Legal edits are
tested too: every prefix of a valid log is valid (a log may end anywhere: a crash), and any
mutation at all yields a verdict, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, any_mutation, check_log, drop, duplicate, set_path, swap, valid_logs
from loopspec.check.verdict import CheckOptions
from loopspec.rules.catalogue import load_spec

FIRST = CheckOptions()
RULES = set(load_spec().ids())
# Reduced (a fifth of the profile's examples, at least 30): each example generates, writes and
# checks a whole log, and the ~30 parametrized variants below share that generator, so the
# variety comes from the variants; the profile still scales the count (dev < ci < thorough).
SLOW = settings(
    max_examples=max(30, settings().max_examples // 5),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
Where = Callable[[Log, int], bool]


def _type(log: Log, i: int) -> object:
    return log[i]["type"] if 0 <= i < len(log) else None


def _data(log: Log, i: int) -> dict[str, object]:
    data = log[i]["data"]
    assert isinstance(data, dict)
    return data


def _is_claim(log: Log, i: int) -> bool:
    if _type(log, i) != "agent/inbox/spliced":
        return False
    data = _data(log, i)
    return "removedCount" in data and "outcome" not in data and not data["inserted"]


def _is_send(log: Log, i: int) -> bool:
    return _type(log, i) == "agent/inbox/spliced" and "removedCount" not in _data(log, i)


def _later(log: Log, i: int, *types: str) -> bool:
    return any(e["type"] in types for e in log[i + 1 :])


def _spot(data: st.DataObject, log: Log, where: Where) -> int:
    spots = [i for i in range(len(log)) if where(log, i)]
    assume(spots)
    return int(data.draw(st.sampled_from(spots)))


def _rejected(log: Log, tmp: Path, allowed: set[str] | None = None) -> str:
    result = check_log(log, tmp, FIRST)
    assert result.status == "invalid", "an illegal mutation was accepted"
    rule = result.violations[0].rule
    assert rule in RULES
    if allowed is not None:
        assert rule in allowed, (rule, result.violations[0].message)
    return rule


DUPLICATIONS: dict[str, tuple[Where, set[str] | None]] = {
    # Turns are sequential: a second turn/start finds the first one open.
    "turn/start": (lambda log, i: _type(log, i) == "turn/start", {"TURN-2"}),
    # Steps do not nest.
    "step/start": (lambda log, i: _type(log, i) == "step/start", {"STEP-1"}),
    # The copy finds no open step to close.
    "step/end": (lambda log, i: _type(log, i) == "step/end", {"STEP-2"}),
    # The copy finds no open turn (after interrupted, REPAIR-2 wants the end-seed first).
    "turn/end": (lambda log, i: _type(log, i) == "turn/end", {"TURN-3", "REPAIR-2"}),
    # The constructor never writes two markers in a row.
    "end-seed": (lambda log, i: _type(log, i) == "session/end-seed", {"REPAIR-2"}),
    # The copy inserts an id that is pending right now.
    "send": (_is_send, {"FOLD-3"}),
    # The copy removes what is no longer there, or is a second claim at one boundary.
    "claim": (_is_claim, {"FOLD-2", "CLAIM-1", "CLAIM-2", "CLAIM-3"}),
}


@pytest.mark.rule("TURN-2", "STEP-1", "STEP-2", "TURN-3", "REPAIR-2", "FOLD-3", "FOLD-2", "CLAIM-3")
@pytest.mark.parametrize("what", sorted(DUPLICATIONS))
@SLOW
@given(data=st.data())
def test_duplicating_a_record_is_rejected(tmp_path: Path, what: str, data: st.DataObject) -> None:
    where, rules = DUPLICATIONS[what]
    log = data.draw(valid_logs())
    _rejected(duplicate(log, _spot(data, log, where)), tmp_path, rules)


DROPS: dict[str, Where] = {
    # The turn's own turn/end (or its claim, step, chunks) then has no open turn.
    "turn/start": lambda log, i: _type(log, i) == "turn/start" and _later(log, i, "turn/end"),
    # The step's step/end (or its user/message, chunks) then has no open step.
    "step/start": lambda log, i: _type(log, i) == "step/start" and _later(log, i, "step/end"),
    # The step stays open into its turn's end, the next step/start, or the next claim.
    "step/end": lambda log, i: _type(log, i) == "step/end"
    and _later(log, i, "turn/end", "step/start", "turn/start", "session/end-seed"),
    # The turn stays open into the next turn/start or restart marker.
    "turn/end": lambda log, i: _type(log, i) == "turn/end" and _later(log, i, "turn/start", "session/end-seed"),
    # A claim that is due (right after turn/start or step/end) and is followed by step/start.
    "due claim": lambda log, i: _is_claim(log, i) and _type(log, i + 1) == "step/start"
    and (_type(log, i - 1) in ("turn/start", "step/end") or _is_claim(log, i - 1)),
}


@pytest.mark.rule("TURN-3", "STEP-1", "STEP-2", "TURN-2", "CLAIM-6", "CLAIM-3", "LOG-3")
@pytest.mark.parametrize("what", sorted(DROPS))
@SLOW
@given(data=st.data())
def test_dropping_a_needed_record_is_rejected(tmp_path: Path, what: str, data: st.DataObject) -> None:
    log = data.draw(valid_logs())
    _rejected(drop(log, _spot(data, log, DROPS[what])), tmp_path)


SWAPS: dict[str, tuple[Where, set[str]]] = {
    # The claim lands before its turn/start: no open turn (TURN-4).
    "turn/start+claim": (lambda log, i: _type(log, i) == "turn/start" and _is_claim(log, i + 1), {"CLAIM-3"}),
    # The entered message lands before its step/start.
    "step/start+user/message": (
        lambda log, i: _type(log, i) == "step/start" and _type(log, i + 1) == "user/message", {"STEP-3"}),
    # A step-scoped event lands after its step/end.
    "scoped+step/end": (
        lambda log, i: _type(log, i) in ("assistant/chunk", "assistant/message", "tool/call", "tool/result",
                                         "user/message") and _type(log, i + 1) == "step/end",
        {"LOG-3", "LOG-4", "STEP-3"}),
    # turn/end lands inside the step.
    "step/end+turn/end": (
        lambda log, i: _type(log, i) == "step/end" and _type(log, i + 1) == "turn/end", {"TURN-3"}),
}


@pytest.mark.rule("CLAIM-3", "TURN-4", "STEP-3", "LOG-3", "LOG-4", "TURN-3")
@pytest.mark.parametrize("what", sorted(SWAPS))
@SLOW
@given(data=st.data())
def test_swapping_ordered_records_is_rejected(tmp_path: Path, what: str, data: st.DataObject) -> None:
    where, rules = SWAPS[what]
    log = data.draw(valid_logs())
    _rejected(swap(log, _spot(data, log, where)), tmp_path, rules)


def _bump(key: str) -> Callable[[Log, int], Log]:
    def edit(log: Log, i: int) -> Log:
        value = _data(log, i)[key]
        assert isinstance(value, int)
        return set_path(log, i, ("data", key), value + 1)

    return edit


ALTERATIONS: dict[str, tuple[Where, Callable[[Log, int], Log], set[str]]] = {
    "turn number": (lambda log, i: _type(log, i) == "turn/start", _bump("turn"), {"TURN-1"}),
    "step number": (lambda log, i: _type(log, i) == "step/start", _bump("step"), {"STEP-1"}),
    "step/end step": (lambda log, i: _type(log, i) == "step/end", _bump("step"), {"STEP-2"}),
    "chunk step": (lambda log, i: _type(log, i) == "assistant/chunk", _bump("step"), {"LOG-3"}),
    "seq": (lambda log, i: True, lambda log, i: set_path(log, i, ("seq",), i + 1), {"LOG-2"}),
    "claim count": (_is_claim, _bump("removedCount"), {"FOLD-2", "CLAIM-1"}),
    "claim start": (_is_claim, _bump("start"), {"FOLD-2", "CLAIM-2"}),
    "end reason": (lambda log, i: _type(log, i) == "turn/end",
                   lambda log, i: set_path(log, i, ("data", "reason", "kind"), "finished"), {"END-1"}),
    "surfaceOp": (lambda log, i: _type(log, i) == "user/message",
                  lambda log, i: set_path(log, i, ("surfaceOp",), {"kind": "replace"}), {"LOG-7"}),
    "envelope key": (lambda log, i: True, lambda log, i: set_path(log, i, ("id",), "e1"), {"LOG-1"}),
}


@pytest.mark.rule("TURN-1", "STEP-1", "STEP-2", "LOG-3", "LOG-2", "FOLD-2", "CLAIM-1", "CLAIM-2", "END-1",
                  "LOG-7", "LOG-1")
@pytest.mark.parametrize("what", sorted(ALTERATIONS))
@SLOW
@given(data=st.data())
def test_altering_a_field_is_rejected(tmp_path: Path, what: str, data: st.DataObject) -> None:
    where, edit, rules = ALTERATIONS[what]
    log = data.draw(valid_logs())
    _rejected(edit(log, _spot(data, log, where)), tmp_path, rules)


@pytest.mark.rule("LOG-5", "REPAIR-1")
@SLOW
@given(data=st.data())
def test_every_prefix_of_a_valid_log_is_valid(tmp_path: Path, data: st.DataObject) -> None:
    """A log may end anywhere (a crash); an open turn at the end is repaired on load, not here."""
    log = data.draw(valid_logs())
    cut = data.draw(st.integers(0, len(log)))
    result = check_log(log[:cut], tmp_path, FIRST)
    assert result.status == "valid", result.violations


@pytest.mark.rule("LOG-1", "LOG-2")
@SLOW
@given(data=st.data())
def test_any_mutation_gets_a_verdict(tmp_path: Path, data: st.DataObject) -> None:
    log = data.draw(any_mutation(data.draw(valid_logs())))
    result = check_log(log, tmp_path)
    assert result.status in ("valid", "invalid")
    assert all(v.rule in RULES for v in result.violations)  # the catalogue explains each


@pytest.mark.rule("STEP-3", "LOG-3", "STEP-2")
@SLOW
@given(data=st.data())
def test_all_resynchronises_after_a_missing_step_start(tmp_path: Path, data: st.DataObject) -> None:
    """Under --all one missing step/start is one violation, not a cascade over the whole step."""
    log = data.draw(valid_logs())
    result = check_log(drop(log, _spot(data, log, lambda log, i: _type(log, i) == "step/start")), tmp_path)
    assert len(result.violations) == 1, [(v.rule, v.message) for v in result.violations]
    assert result.violations[0].rule in ("STEP-3", "LOG-3", "STEP-2")
