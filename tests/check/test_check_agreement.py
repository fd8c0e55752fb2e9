"""The checker's lean paths agree with the normative model.

* :class:`LeanInbox` (plain dicts, O(1) front removals) against :func:`loopspec.inbox.fold.apply` on
  random splice records, valid and broken: same effect, same state, or the same refusal (rule
  and seq) — FOLD-1, FOLD-2, FOLD-3, DATA-2.
* The whole checker with the lean inbox against the checker with the model's fold, on random
  valid logs and random mutations: the same violations (rule and seq) — FOLD-5.
* The envelope check against :meth:`SessionEvent.from_json`: same verdict (LOG-1).
* The hot loop of ``scan`` against the general path alone: same violations (LOG-2, LOG-3).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.fixtures import ModelInbox
from check.log_mutations import ODD_VALUES, Log, any_mutation, check_log, feed_general, valid_logs
from loopspec.check.inbox_track import LeanInbox
from loopspec.check.machine import LogChecker, envelope_problem
from loopspec.check.verdict import CheckOptions
from loopspec.data.errors import InvalidEvent
from loopspec.log.events import SessionEvent

POOL = ("a", "b", "c", "d")
ALL = CheckOptions(all=True, max_violations=1000)
messages = st.one_of(
    st.builds(lambda i, t: {"id": i, "role": "user", "content": [{"type": "text", "text": t}], "source": {}},
              st.sampled_from(POOL), st.sampled_from(("x", "y"))),
    st.sampled_from(({"id": 1, "role": "user", "content": [], "source": {}}, {"id": "a", "content": []},
                     {"id": "b", "role": "user", "content": {}, "source": {}}, "not a message", None)),
)
numbers = st.one_of(st.integers(-1, 4), st.sampled_from((0.0, 1.0, 1.5, 2**53, -(2**53), True, None, "0")))


@st.composite
def splice_data(draw: st.DrawFn) -> object:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.sampled_from((None, [], "x", 3)))
    data: dict[str, object] = {"target": draw(st.sampled_from(("next-turn", "next-step", "next-turn", "later")))}
    if draw(st.integers(0, 15)):
        data["start"] = draw(numbers)
    if draw(st.booleans()):
        data["removedCount"] = draw(numbers)
    if draw(st.integers(0, 15)):
        data["inserted"] = draw(st.lists(messages, max_size=3))
    if draw(st.integers(0, 3)) == 0:
        data["outcome"] = draw(st.sampled_from(("canceled", "claimed")))
    if draw(st.integers(0, 20)) == 0:
        data["extra"] = 1
    return data


def _outcome(tracker: LeanInbox | ModelInbox, data: object, seq: int) -> object:
    try:
        effect = tracker.splice(data, seq)
    except InvalidEvent as err:
        return ("refused", err.rule, err.seq)
    tracker.commit(effect)
    return effect


@st.composite
def fitting_splice(draw: st.DrawFn, model: ModelInbox) -> object:
    """A record whose coordinates fit the current lists (ids may still clash: FOLD-3)."""
    target = draw(st.sampled_from(("next-turn", "next-step")))
    length = model.length(target)
    start = draw(st.integers(0, length))
    removed = draw(st.integers(0, length - start))
    data: dict[str, object] = {"target": target, "start": start}
    if removed:
        data["removedCount"] = removed
    data["inserted"] = draw(st.lists(messages.filter(lambda m: isinstance(m, dict) and "source" in m), max_size=2))
    if removed and draw(st.booleans()):
        data["outcome"] = "canceled"
    return data


@pytest.mark.rule("FOLD-1", "FOLD-2", "FOLD-3", "DATA-2", "DATA-5")
@given(st.data())
def test_lean_inbox_equals_the_model_fold(data: st.DataObject) -> None:
    lean, model = LeanInbox(), ModelInbox()
    for seq in range(data.draw(st.integers(0, 25))):
        record = data.draw(st.one_of(fitting_splice(model), fitting_splice(model), splice_data()))
        assert _outcome(lean, record, seq) == _outcome(model, record, seq)
        for target in ("next-turn", "next-step"):
            assert lean.ids(target) == model.ids(target)
            assert lean.length(target) == model.length(target)


def _both_inboxes(log: Log) -> None:
    lean = feed_general(log, lambda: LogChecker("x", ALL, LeanInbox()))
    model = feed_general(log, lambda: LogChecker("x", ALL, ModelInbox()))
    assert lean == model


@pytest.mark.rule("FOLD-5")
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(valid_logs())
def test_checker_verdicts_equal_with_the_model_fold_on_valid_logs(log: Log) -> None:
    _both_inboxes(log)


@pytest.mark.rule("FOLD-5")
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_checker_verdicts_equal_with_the_model_fold_on_mutations(data: st.DataObject) -> None:
    _both_inboxes(data.draw(any_mutation(data.draw(valid_logs()))))


@pytest.mark.rule("LOG-2", "LOG-3")
# Reduced to half the profile's examples: each one writes a file and checks it twice.
@settings(max_examples=max(30, settings().max_examples // 2),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_hot_loop_equals_the_general_path(tmp_path: Path, data: st.DataObject) -> None:
    log = data.draw(valid_logs())
    if data.draw(st.booleans()):
        log = data.draw(any_mutation(log))
    fast = [(v.rule, v.seq) for v in check_log(log, tmp_path).violations]
    slow = feed_general(log, lambda: LogChecker("x", ALL))
    assert fast == slow


envelopes = st.dictionaries(
    st.sampled_from(("type", "seq", "time", "data", "ignorable", "surfaceOp", "sourceEventSeqs", "id")),
    st.one_of(st.sampled_from(ODD_VALUES), st.lists(st.sampled_from(ODD_VALUES), max_size=3),
              st.sampled_from(("turn/start", -5, 7, 2**53 + 1))),
)


@pytest.mark.rule("LOG-1")
@given(st.one_of(envelopes, st.sampled_from(ODD_VALUES)))
def test_envelope_check_equals_the_model(raw: object) -> None:
    try:
        SessionEvent.from_json(raw)
        expected = None
    except InvalidEvent as err:
        expected = err.detail
    assert envelope_problem(raw) == expected
