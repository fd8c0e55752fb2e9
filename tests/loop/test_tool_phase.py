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
from loopspec.log.tool_errors import SKIPPED_CODE
from loopspec.loop import commands as cmd
from loopspec.loop.agent import run
from loopspec.loop.state import Agent

ANNOUNCE, START = cmd.StepResult("tool-call", started=False), cmd.StepResult("tool-call")
RESULT, ABORT = cmd.StepResult("tool-result"), cmd.Cancel(keep_inbox=True)


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
    agent, written = _turn(ANNOUNCE, START, RESULT, cmd.StepResult("stop"))
    assert written[1] == ["assistant/message", "tool/call"]
    assert _tool_events(agent) == [("call", "call-1.1.1", None), ("result", "call-1.1.1", None),
                                   ("call", "call-1.1.2", None), ("result", "call-1.1.2", None)]


@pytest.mark.rule("CANCEL-5", "LOG-11", "CANCEL-4")
def test_an_abort_drains_started_calls_and_skips_the_rest() -> None:
    agent, written = _turn(START, START, ANNOUNCE, ABORT, RESULT, cmd.followup(UserMessage.create("b")), RESULT,
                           RESULT)
    assert written[3:7] == [[], ["tool/result"], ["agent/inbox/spliced"], ["tool/result"]]
    assert written[7][:5] == ["tool/call", "tool/result", "step/end", "turn/end", "turn/start"]  # the latch
    assert _tool_events(agent)[2:] == [("result", "call-1.1.1", None), ("result", "call-1.1.2", None),
                                       ("call", "call-1.1.3", None), ("result", "call-1.1.3", SKIPPED_CODE)]


@pytest.mark.rule("CANCEL-5", "CANCEL-3", "RESULT-7")
@given(kind=st.sampled_from(cmd.STEP_KINDS), started=st.lists(st.booleans(), max_size=3))
def test_every_answer_but_a_drain_closes_an_aborted_step_with_every_call_answered(
        kind: str, started: list[bool]) -> None:
    calls = tuple(cmd.StepResult("tool-call", started=s) for s in started)
    agent, written = _turn(*calls, ABORT, cmd.StepResult(kind))
    # Each started tool-call starts the oldest waiting call, so the first call started if any did.
    drained = kind == "tool-result" and any(started)
    assert written[-1][-2:] != ["step/end", "turn/end"] if drained else written[-1][-2:] == ["step/end", "turn/end"]
    if not drained:
        answered = [c for kind_, c, _ in _tool_events(agent) if kind_ == "result"]
        assert answered == [f"call-1.1.{n}" for n in range(1, len(started) + 1)]
        skipped = [code for kind_, _, code in _tool_events(agent) if kind_ == "result" and code == SKIPPED_CODE]
        assert len(skipped) == len(started) - sum(started)  # one skipped pair per call never started


@pytest.mark.rule("RESULT-7")
def test_only_a_failure_leaves_calls_unanswered() -> None:
    agent, written = _turn(START, ANNOUNCE, cmd.StepResult("fail"))
    assert written[-1] == ["step/end", "turn/end"]
    assert [k for k, _, _ in _tool_events(agent)] == ["call"]
