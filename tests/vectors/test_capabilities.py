"""Lacked capabilities (hello ``lacks``): which commands need them, and how drive keeps within them."""

from __future__ import annotations

import pytest

from loopspec.loop import commands as cmd
from loopspec.vectors.adapter.handshake import PROTOCOL, AdapterError, hello_answer
from loopspec.vectors.capabilities import expressible, expressible_answer, needs_lacked
from loopspec.vectors.command_gen import message
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe
from loopspec.vectors.reference_model import Model, initial

LACKS = ("one-answer-per-step", "restart-before-first-event")
ENTER = cmd.Decide()


def run(*commands: cmd.Command) -> Model:
    model = initial("full")
    for command in commands:
        model = observe(model, command)[0]
    return model


def test_a_restart_before_the_first_event_needs_the_capability() -> None:
    assert needs_lacked(LACKS, run(), cmd.Restart())
    assert not needs_lacked(LACKS, run(cmd.inject(message("a"))), cmd.Restart())
    assert expressible_answer(LACKS, run(), cmd.Restart()) == cmd.Cancel(keep_inbox=True)


def test_one_answer_per_step_allows_only_the_tools_finish_while_its_call_runs() -> None:
    stepping = run(cmd.followup(message("a")), ENTER)
    assert not needs_lacked(LACKS, stepping, cmd.ToolCall())
    assert needs_lacked(LACKS, stepping, cmd.ToolCall(started=False))
    calling = run(cmd.followup(message("a")), ENTER, cmd.ToolCall())
    for kind in ("stop", "max-tokens", "fail", "request-error", "tool-result", "tool-call"):
        assert needs_lacked(LACKS, calling, cmd.STEP_RESULTS[kind]()), kind
    for kind in ("tool-calls", "tool-start"):
        assert not needs_lacked(LACKS, calling, cmd.STEP_RESULTS[kind]()), kind
    assert expressible_answer(LACKS, calling, cmd.Stop()) == cmd.ToolCalls()
    aborted = run(cmd.followup(message("a")), ENTER, cmd.ToolCall(), cmd.Cancel())
    assert not needs_lacked(LACKS, aborted, cmd.ToolResult())  # the drain takes any answer
    assert needs_lacked(LACKS, aborted, cmd.ToolCall())


def test_expressible_follows_the_model_through_a_sequence() -> None:
    def step(model: Model, command: cmd.Command) -> Model:
        return observe(model, command)[0]

    fine: tuple[cmd.Command, ...] = (cmd.followup(message("a")), ENTER, cmd.ToolCall(),
                                     cmd.ToolCalls())
    assert expressible(LACKS, initial("full"), fine, step)
    assert not expressible(LACKS, initial("full"), (*fine[:3], cmd.Stop()), step)
    assert expressible((), initial("full"), (*fine[:3], cmd.Stop()), step)


def test_the_hello_answer_may_name_known_lacked_capabilities_only() -> None:
    request: Json = {"protocol": PROTOCOL}
    base = {"protocol": PROTOCOL, "implementation": "x", "profile": "full"}
    assert hello_answer(base, request) == ("x", "full", ())
    assert hello_answer({**base, "lacks": list(LACKS)}, request) == ("x", "full", LACKS)
    with pytest.raises(AdapterError, match="lacks must list capabilities"):
        hello_answer({**base, "lacks": ["telepathy"]}, request)
    with pytest.raises(AdapterError, match="lacks must list capabilities"):
        hello_answer({**base, "lacks": "one-answer-per-step"}, request)
