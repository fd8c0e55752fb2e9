"""How two observations are compared (spec/command-language.md, "Comparing observations").

Rules: END-2 (an agent/error's error compares by its message), NORM-5 and SPLICE-3 (refusals
compare by code; the model's texts are the real ones where they are known).
"""

from __future__ import annotations

import pytest

from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent
from loopspec.vectors.observation import observation_difference, observe


def _failed(error: object, code: str = "UNKNOWN") -> dict[str, object]:
    return {
        "ok": True,
        "events": [{"type": "turn/end", "seq": 3, "time": 1,
                    "data": {"turn": 1, "reason": {"kind": "error", "error": {"message": "boom", "code": code}}}}],
        "notifications": [{"type": "agent/error", "turn": 1, "step": 0, "error": error}],
        "value": None,
    }


@pytest.mark.rule("END-2")
def test_agent_error_compares_by_message() -> None:
    expected = _failed({"message": "boom", "code": "UNKNOWN"})
    assert observation_difference(expected, _failed({"message": "boom", "code": "E_HOOK", "stack": "..."})) is None
    assert observation_difference(expected, _failed("boom")) is None
    assert observation_difference(expected, _failed({"message": "bang", "code": "UNKNOWN"})) is not None
    # The durable turn/end keeps comparing the whole failure, code included.
    assert observation_difference(expected, _failed({"message": "boom"}, code="E_HOOK")) is not None


@pytest.mark.rule("NORM-5", "SPLICE-3")
def test_refusal_texts_are_the_real_ones() -> None:
    """The texts a real refused call throws (the recordings' ``threw``), minus JavaScript's ``Error: ``."""
    message = UserMessage.from_frozen(freeze({"id": "m1", "role": "user", "content": [], "source": {}}))
    agent, _ = observe(Agent(), cmd.Append(InboxTarget.NEXT_TURN, message))
    _, negative_zero = observe(agent, cmd.Splice(InboxTarget.NEXT_TURN, -0.5, 1, ()))
    assert negative_zero == {"ok": False, "code": "NORM-5",
                             "message": 'session event "agent/inbox/spliced" carries non-JSON-serializable data'}
    _, duplicate = observe(agent, cmd.Append(InboxTarget.NEXT_STEP, message))
    assert duplicate == {"ok": False, "code": "SPLICE-3", "message": 'message "m1" is already pending'}
