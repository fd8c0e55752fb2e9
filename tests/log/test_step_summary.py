"""The fold of one step's records (loopspec.log.step_summary) and the readers it uses (loopspec.log.wire)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.log.kinds import STEP_END, STEP_START
from loopspec.log.step_summary import summarize, text_answers
from loopspec.log.wire import answered_calls

VALID = sorted((REPO / "examples" / "logs" / "valid").glob("*.events.jsonl"))


def _steps(path: Path) -> list[list[dict[str, object]]]:
    events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    steps: list[list[dict[str, object]]] = []
    open_step = False
    for event in events:
        if event.get("type") == STEP_START:
            steps.append([])
        elif open_step and event.get("type") != STEP_END:
            steps[-1].append(event)
        open_step = event.get("type") != STEP_END and (open_step or event.get("type") == STEP_START)
    return steps


def tool(kind: str, **data: object) -> dict[str, object]:
    return {"type": kind, "data": {"turn": 1, "step": 1, **data}}


def announce(*calls: str) -> dict[str, object]:
    blocks = [{"type": "tool-call", "id": c, "name": "t", "arguments": "{}"} for c in calls]
    return tool("assistant/message", message={"role": "assistant", "content": blocks or [{"type": "text"}]})


def result(call: str, source: str | None = None) -> dict[str, object]:
    message = {"role": "user", "source": {"kind": "tool", "callId": source or call},
               "content": [{"type": "tool-result", "toolCallId": call, "content": []}]}
    return tool("tool/result", message=message)


@pytest.mark.rule("LOG-4", "LOG-10")
@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_in_a_valid_log_a_step_answers_and_starts_only_calls_it_announced(path: Path) -> None:
    for step in _steps(path):
        summary = summarize(step)
        assert set(summary.started) <= set(summary.announced)
        assert set(summary.answered) <= set(summary.announced)
        assert summary.entered == sum(e.get("type") == "user/message" for e in step)


@pytest.mark.rule("RESULT-6")
def test_a_text_answer_is_a_last_answer_without_calls_and_no_call_left_open() -> None:
    assert summarize([announce()]).text_answer
    assert not summarize([announce("a")]).text_answer
    assert summarize([announce("a"), tool("tool/call", callId="a"), result("a"), announce()]).text_answer
    assert not summarize([announce("a"), tool("tool/call", callId="a"), announce()]).text_answer
    # A result before its call answers nothing: the call stays open.
    assert not summarize([announce("a"), result("a"), tool("tool/call", callId="a"), announce()]).text_answer
    assert not summarize([]).text_answer


@pytest.mark.rule("RESULT-7")
def test_pending_calls_are_started_or_last_announced_and_never_answered() -> None:
    assert summarize([announce("a", "b"), tool("tool/call", callId="a")]).pending == {"a", "b"}
    assert summarize([announce("a"), tool("tool/call", callId="a"), result("a")]).pending == set()
    # An earlier answer's calls are not pending once a later answer replaces it (RESULT-6 reads the last).
    assert summarize([announce("a"), announce()]).pending == set()
    # A result before its call still answers it here: no result is owed, though the call stays open.
    early = summarize([announce("a"), result("a"), tool("tool/call", callId="a")])
    assert early.pending == set()
    assert early.open_calls == {"a"}


@pytest.mark.rule("STEP-4", "DECIDE-6")
def test_a_silent_step_entered_nothing_and_made_no_model_call() -> None:
    assert summarize([]).silent
    assert not summarize([{"type": "user/message", "data": {}}]).silent
    assert not summarize([tool("request/header")]).silent
    assert not summarize([tool("assistant/chunk", chunk={"type": "text-delta"})]).silent
    assert summarize([tool("step/start"), {"type": "agent/status"}]).silent  # not records of a step's body


@pytest.mark.rule("LOG-10")
def test_a_record_naming_no_call_by_a_string_starts_or_announces_none() -> None:
    """The checker's reading of records it refuses: one meaning for every reader (module docstring)."""
    nameless = tool("assistant/message", message={"role": "assistant", "content": [{"type": "tool-call", "id": 5}]})
    assert summarize([nameless]).text_answer
    assert summarize([announce(), tool("tool/call", callId=None)]).started == set()
    assert not summarize([announce(), tool("tool/call", callId=None)]).calls_tools
    assert summarize([announce(), tool("tool/call", callId=None)]).model_side


def test_the_finish_is_the_last_finish_chunk_and_a_strange_reason_reads_as_a_question_mark() -> None:
    def finish(reason: object) -> dict[str, object]:
        return tool("assistant/chunk", chunk={"type": "finish", "reason": {"kind": reason}})

    assert summarize([finish("tool-calls"), finish("stop")]).finish == "stop"
    assert summarize([finish(3)]).finish == "?"
    assert summarize([tool("assistant/chunk", chunk={"type": "text-delta"})]).finish is None


def test_text_answers_marks_every_point_of_a_step_that_answered_with_text() -> None:
    start: dict[str, object] = {"type": STEP_START}
    end: dict[str, object] = {"type": STEP_END}
    events = [start, announce(), end, start, announce("a"), end]
    assert text_answers(events) == [True, True, True, False, False, False]


@pytest.mark.rule("LOG-4")
def test_a_result_answers_the_calls_its_blocks_name_before_its_source() -> None:
    assert answered_calls(result("c2", source="c1")["data"]) == ["c2"]
    no_blocks = {"message": {"source": {"kind": "tool", "callId": "c1"}, "content": []}}
    assert answered_calls(no_blocks) == ["c1"]
    assert answered_calls({"message": "not a message"}) == []
