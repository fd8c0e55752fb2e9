"""What a step's own events say about how its turn goes on: families of histories the loop cannot write.

Each test takes a random valid log (the synthetic generator writes the model side of every step,
aborts and crashes while turn-stopping runs, aborts before an announced call runs or while it
runs, disposals and v0.1.5 empty first steps) and turns one spot into a member of a family issue
12 and 16 name:

* a step or a ``blocked`` end right after a step that answered with text (RESULT-6, DECIDE-5);
* a step closed with a tool call unanswered that is not followed at once by an error or
  interrupted end (RESULT-7: an abort answers every call), or that crash repair closes (it wrote
  synthetic results) without answering every open call (REPAIR-1);
* an aborted step that skips its call's pair, and a skipped call's code on a result of a step
  that was not aborted (CANCEL-5);
* a first step emptied of its entry and model call whose turn goes on (STEP-4);
* a wake "latched" by an abort whose cause is a disposal (TURN-5, CANCEL-4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from check.log_mutations import Log, check_log, renumber, set_path, valid_logs
from loopspec.check.verdict import CheckOptions
from loopspec.log.tool_errors import SKIPPED_CODE, tool_error

FIRST = CheckOptions()
SLOW = settings(
    max_examples=max(30, settings().max_examples // 3),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
MODEL_SIDE = ("request/header", "request/context", "assistant/chunk", "assistant/message", "tool/call", "tool/result")
Mutation = Callable[[Log, st.DataObject], Log]


def _type(log: Log, i: int) -> object:
    return log[i]["type"] if 0 <= i < len(log) else None


def _data(log: Log, i: int) -> dict[str, object]:
    data = log[i]["data"]
    assert isinstance(data, dict)
    return data


def _kind(log: Log, i: int) -> object:
    reason = _data(log, i).get("reason") if _type(log, i) == "turn/end" else None
    return reason.get("kind") if isinstance(reason, dict) else None


def _goes_on(log: Log, i: int, allowed: tuple[str, ...]) -> bool:
    """The next lifecycle record after ``i`` (public edits skipped) exists and is no turn/end in ``allowed``."""
    for j in range(i + 1, len(log)):
        data = _data(log, j)
        public_edit = _type(log, j) == "agent/inbox/spliced" and ("outcome" in data or data.get("inserted"))
        if _type(log, j) in ("turn/end", "step/start") or (_type(log, j) == "agent/inbox/spliced" and not public_edit):
            return _kind(log, j) not in allowed
    return False


def _step_start(log: Log, end: int) -> int:
    return max(i for i in range(end) if _type(log, i) == "step/start")


def _answered_with_text(log: Log, end: int) -> bool:
    """The step closed at ``end`` answered without tool calls and started none."""
    body = range(_step_start(log, end) + 1, end)
    messages = [i for i in body if _type(log, i) == "assistant/message"]
    if not messages or any(_type(log, i) == "tool/call" for i in body):
        return False
    message = _data(log, messages[-1])["message"]
    assert isinstance(message, dict)
    return not any(isinstance(b, dict) and b.get("type") == "tool-call" for b in message["content"])


def _spots(data: st.DataObject, log: Log, where: Callable[[Log, int], bool]) -> int:
    spots = [i for i in range(len(log)) if where(log, i)]
    assume(spots)
    return int(data.draw(st.sampled_from(spots)))


def _text_then_normal_end(log: Log, i: int) -> bool:
    return _type(log, i) == "step/end" and _kind(log, i + 1) in ("completed", "max-tokens") and _answered_with_text(
        log, i)


def _step_after_text(log: Log, data: st.DataObject) -> Log:
    i = _spots(data, log, _text_then_normal_end)
    scope = dict(_data(log, i))
    scope["step"] = int(scope["step"]) + 1  # type: ignore[call-overload]
    extra = [{"type": t, "seq": 0, "time": log[i]["time"], "data": dict(scope)} for t in ("step/start", "step/end")]
    return renumber([*log[: i + 1], *extra, *log[i + 1 :]])


def _blocked_after_text(log: Log, data: st.DataObject) -> Log:
    i = _spots(data, log, _text_then_normal_end)
    return set_path(log, i + 1, ("data", "reason"), {"kind": "blocked"})


def _drop_live_result(log: Log, data: st.DataObject) -> Log:
    """Drop a tool/result the tool phase wrote, in a step whose turn is not aborted or failed right after."""

    def where(log: Log, i: int) -> bool:
        if _type(log, i) != "tool/result" or "interrupted-tool-result-" in str(_data(log, i).get("message")):
            return False
        end = next(j for j in range(i, len(log)) if _type(log, j) in ("step/end", "turn/end"))
        return _type(log, end) == "step/end" and _goes_on(log, end, ("aborted", "error", "interrupted"))

    i = _spots(data, log, where)
    return renumber(log[:i] + log[i + 1 :])


def _repair_misses_a_call(log: Log, data: st.DataObject) -> Log:
    """A step crash repair closes (it wrote a synthetic result) announced one more call it did not answer."""
    i = _spots(data, log, lambda log, i: _type(log, i) == "tool/result"
               and "interrupted-tool-result-" in str(_data(log, i).get("message")))
    message = max(j for j in range(i) if _type(log, j) == "assistant/message")
    content = _data(log, message)["message"]["content"]  # type: ignore[index]
    return set_path(log, message, ("data", "message", "content"),
                    [*content, {"type": "tool-call", "id": "never-answered", "name": "read", "arguments": "{}"}])


def _empty_first_step(log: Log, data: st.DataObject) -> Log:
    """Strip step 1 to step/start, step/end when only entries and model side sat in it and the turn goes on."""

    def where(log: Log, i: int) -> bool:
        if _type(log, i) != "step/start" or _data(log, i).get("step") != 1:
            return False
        end = next(j for j in range(i + 1, len(log)) if _type(log, j) not in ("user/message", *MODEL_SIDE))
        return _type(log, end) == "step/end" and _goes_on(log, end, ("aborted", "error", "interrupted"))

    i = _spots(data, log, where)
    end = next(j for j in range(i + 1, len(log)) if _type(log, j) == "step/end")
    return renumber(log[: i + 1] + log[end:])


def _skipped(log: Log, i: int) -> bool:
    error = _data(log, i).get("error")
    return _type(log, i) == "tool/result" and isinstance(error, dict) and error.get("code") == SKIPPED_CODE


def _abort_skips_nothing(log: Log, data: st.DataObject) -> Log:
    """Drop an aborted step's skipped pair: the step closes with its announced call unanswered."""
    i = _spots(data, log, _skipped)
    return renumber(log[: i - 1] + log[i + 1 :])


def _skipped_code_without_abort(log: Log, data: st.DataObject) -> Log:
    """Give a tool/result of a step that goes on (not aborted) the code of a call an abort skipped."""

    def where(log: Log, i: int) -> bool:
        if _type(log, i) != "tool/result" or "interrupted-tool-result-" in str(_data(log, i).get("message")):
            return False
        end = next(j for j in range(i, len(log)) if _type(log, j) in ("step/end", "turn/end"))
        return _type(log, end) == "step/end" and _goes_on(log, end, ("aborted", "interrupted"))

    i = _spots(data, log, where)
    return set_path(log, i, ("data", "error"), tool_error(SKIPPED_CODE))


def _disposal_latch(log: Log, data: st.DataObject) -> Log:
    i = _spots(data, log, lambda log, i: _kind(log, i) == "aborted" and _type(log, i + 1) == "turn/start")
    return set_path(log, i, ("data", "reason", "reason"), {"kind": "disposed"})


FAMILIES: dict[str, tuple[Mutation, set[str]]] = {
    "step after a text answer": (_step_after_text, {"RESULT-6"}),
    "blocked after a text answer": (_blocked_after_text, {"DECIDE-5"}),
    # RESULT-7, or REPAIR-1 when crash repair closed that step.
    "tool call left unanswered": (_drop_live_result, {"RESULT-7", "REPAIR-1"}),
    "repair leaves a call unanswered": (_repair_misses_a_call, {"REPAIR-1"}),
    "an aborted step leaves its call unanswered": (_abort_skips_nothing, {"RESULT-7"}),
    "a skipped call's code where nothing was aborted": (_skipped_code_without_abort, {"CANCEL-5"}),
    "first step enters nothing": (_empty_first_step, {"STEP-4"}),
    "wake latched by a disposal": (_disposal_latch, {"TURN-5"}),
}


@pytest.mark.rule("RESULT-6", "DECIDE-5", "RESULT-7", "REPAIR-1", "STEP-4", "TURN-5", "CANCEL-4", "CANCEL-5")
@pytest.mark.parametrize("family", sorted(FAMILIES))
@SLOW
@given(data=st.data())
def test_a_history_the_loop_cannot_write_is_rejected(tmp_path: Path, family: str, data: st.DataObject) -> None:
    mutate, rules = FAMILIES[family]
    log = mutate(data.draw(valid_logs()), data)
    result = check_log(log, tmp_path, FIRST)
    assert result.status == "invalid", f"{family}: accepted"
    assert result.violations[0].rule in rules, (result.violations[0].rule, result.violations[0].message)
