"""A step's tool phase in the model: call order (LOG-11) and what an abort does to the calls (CANCEL-5).

* LOG-11: a ``tool-call`` whose tool may start starts the oldest announced call not started yet,
  and every answer (a ``tool-result``, a finishing result, crash repair) goes oldest first;
* CANCEL-5: in an aborted step a ``tool-result`` drains the oldest started call and keeps the step
  open (sends may come between); any other answer drains the rest of the started calls, writes a
  ``tool/call`` and a skipped error ``tool/result`` per call never started, then ``step/end`` and
  the aborted ``turn/end``; with nothing announced the abort closes the step as before (CANCEL-3);
* RESULT-7: only a failure closes a step with its calls unanswered.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.json_value import thaw
from loopspec.data.messages import UserMessage
from loopspec.log.events import SessionEvent
from loopspec.log.tool_errors import ABORTED_CODE, SKIPPED_CODE
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run
from loopspec.loop.state import Agent

ANNOUNCE, START = cmd.ToolCall(started=False), cmd.ToolCall()
RESULT, ABORT = cmd.ToolResult(), cmd.Cancel(keep_inbox=True)


def _tool_events(agent: Agent) -> list[tuple[str, object, object]]:
    """(type, call id, code) of every tool/call and tool/result, in log order."""
    out: list[tuple[str, object, object]] = []
    for event in agent.log.events:
        data: Any = thaw(event.data)  # the model's own records: their shape is known
        if event.type == "tool/call":
            out.append(("call", data["callId"], None))
        elif event.type == "tool/result":
            error = data.get("error")
            out.append(("result", data["message"]["source"]["callId"], error["code"] if error else None))
    return out


def _types(events: tuple[SessionEvent, ...]) -> list[str]:
    return [e.type for e in events]


def _turn(*commands: cmd.Command) -> tuple[Agent, list[list[str]]]:
    agent, transitions = run(Agent(), cmd.followup(UserMessage.create("a")), cmd.Decide(), *commands)
    return agent, [_types(t.events) for t in transitions[2:]]


@pytest.mark.rule("LOG-11")
def test_a_started_tool_call_starts_the_oldest_waiting_call() -> None:
    agent, written = _turn(ANNOUNCE, START, RESULT, cmd.Stop())
    assert written[1] == ["assistant/message", "tool/call"]
    assert _tool_events(agent) == [("call", "call-1.1.1", None), ("result", "call-1.1.1", None),
                                   ("call", "call-1.1.2", None), ("result", "call-1.1.2", None)]


@pytest.mark.rule("CANCEL-5", "LOG-11", "CANCEL-4")
def test_an_abort_drains_started_calls_and_skips_the_rest() -> None:
    agent, written = _turn(START, START, ANNOUNCE, ABORT, RESULT, cmd.followup(UserMessage.create("b")), RESULT)
    assert written[3:6] == [[], ["tool/result"], ["agent/inbox/spliced"]]
    # The last started call's answer closes the step at once (finding F9): its result, the skipped
    # pair, step/end, the aborted end and the latched wake's turn.
    assert written[6][:6] == ["tool/result", "tool/call", "tool/result", "step/end", "turn/end", "turn/start"]
    # The drained calls' results are the runtime's aborted result (ABORTED), not what the tools returned.
    assert _tool_events(agent)[2:] == [("result", "call-1.1.1", ABORTED_CODE), ("result", "call-1.1.2", ABORTED_CODE),
                                       ("call", "call-1.1.3", None), ("result", "call-1.1.3", SKIPPED_CODE)]


@pytest.mark.rule("CANCEL-5", "CANCEL-3", "RESULT-7")
@given(kind=st.sampled_from(cmd.STEP_KINDS), started=st.lists(st.booleans(), max_size=3))
def test_every_answer_but_a_drain_closes_an_aborted_step_with_every_call_answered(
        kind: str, started: list[bool]) -> None:
    calls = tuple(cmd.ToolCall(started=s) for s in started)
    agent, written = _turn(*calls, ABORT, cmd.STEP_RESULTS[kind]())
    # Each started tool-call starts the oldest waiting call, so the started calls come first; the
    # answer drains (the step stays open) only while another started call still runs (finding F9).
    drained = kind == "tool-result" and sum(started) > 1
    assert written[-1][-2:] != ["step/end", "turn/end"] if drained else written[-1][-2:] == ["step/end", "turn/end"]
    if not drained:
        answered = [c for kind_, c, _ in _tool_events(agent) if kind_ == "result"]
        assert answered == [f"call-1.1.{n}" for n in range(1, len(started) + 1)]
        skipped = [code for kind_, _, code in _tool_events(agent) if kind_ == "result" and code == SKIPPED_CODE]
        assert len(skipped) == len(started) - sum(started)  # one skipped pair per call never started


@pytest.mark.rule("RESULT-7")
def test_only_a_failure_leaves_calls_unanswered() -> None:
    agent, written = _turn(START, ANNOUNCE, cmd.Fail())
    assert written[-1] == ["step/end", "turn/end"]
    assert [k for k, _, _ in _tool_events(agent)] == ["call"]


def _results(agent: Agent) -> list[SessionEvent]:
    return [e for e in agent.log.events if e.type == "tool/result"]


def _data(event: SessionEvent) -> Any:
    return thaw(event.data)  # the model's own records: their shape is known


def _text(event: SessionEvent) -> tuple[bool, str]:
    data: Any = thaw(event.data)
    block = data["message"]["content"][0]
    return block["isError"], block["content"][0]["text"]


@pytest.mark.rule("CANCEL-5", "LOG-9")
@given(kind=st.sampled_from(cmd.STEP_KINDS), started=st.lists(st.booleans(), min_size=1, max_size=3),
       abort=st.booleans())
def test_every_tool_result_the_loop_writes_cites_its_tool_call(kind: str, started: list[bool], abort: bool) -> None:
    """decisions H3: as the real appendToolResult, each result names its call's tool/call seq."""
    calls = tuple(cmd.ToolCall(started=s) for s in started)
    agent, _ = _turn(*calls, *((ABORT,) if abort else ()), cmd.STEP_RESULTS[kind]())
    starts = {_data(e)["callId"]: e.seq for e in agent.log.events if e.type == "tool/call"}
    for result in _results(agent):
        call: Any = thaw(result.data)
        assert result.surface_op == "append"
        assert result.source_event_seqs == (starts[call["message"]["source"]["callId"]],)


@pytest.mark.rule("CANCEL-5")
def test_a_skipped_call_is_answered_as_the_real_writer_answers_it() -> None:
    agent, _ = _turn(ANNOUNCE, ABORT, cmd.Stop())
    (skipped,) = _results(agent)
    assert _data(skipped)["error"] == {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
    assert _text(skipped) == (True, "Error: tool call aborted before dispatch")
    assert skipped.source_event_seqs == (skipped.seq - 1,)


@pytest.mark.rule("REPAIR-1", "REPAIR-3")
def test_crash_repair_writes_the_real_closers_text_and_cites_only_a_started_call() -> None:
    agent, _ = _turn(START, ANNOUNCE, cmd.Restart())
    started, announced = _results(agent)
    call_seq = next(e.seq for e in agent.log.events if e.type == "tool/call")
    assert started.source_event_seqs == (call_seq,)
    assert announced.source_event_seqs is None
    assert started.surface_op == announced.surface_op == "append"
    for result, code in ((started, "TOOL_OUTCOME_UNKNOWN"), (announced, "TOOL_NOT_STARTED")):
        data: Any = thaw(result.data)
        assert data["message"]["id"] == f"interrupted-tool-result-{data['message']['source']['callId']}-{result.seq}"
        assert data["error"]["code"] == code
    assert _text(started) == (True, "The tool call was interrupted after it was recorded, but no result was durably "
                              "recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: "
                              "retry only if the operation is read-only or idempotent; if it may have side effects, "
                              "first verify external state or ask the user. Do not retry blindly.")
    assert _text(announced) == (True, "The tool call was interrupted before the Harness recorded it as started. "
                                "Retry it if it is still needed.")
