"""The pre-step payload and decision-dependent listener actions (DECIDE-1, DECIDE-9).

* DECIDE-1: every listener sees the running turn and the number the proposed step gets; a
  listener conditioned on them (``when``) acts only there and passes through elsewhere;
* DECIDE-9, the decision record's workspace pattern as a scenario: an item staged in next-step
  while the decision runs is folded into the batch and its pending copy removed by an *entering*
  pre-step, and stays queued after a *reject*.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.json_value import thaw
from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.pre_step import (
    Add,
    Enter,
    PreStepPayload,
    Reject,
    Replace,
    Veto,
    When,
    Wrap,
    run_chain,
)
from loopspec.loop.state import Agent, AgentTransition
from loopspec.vectors.codec import decode_command, encode_command

NS = InboxTarget.NEXT_STEP
A, B, S, W = (UserMessage.create(i) for i in ("A", "B", "S", "W"))
STOP = cmd.Stop()
TOOLS = cmd.ToolCalls()


def entered(tr: AgentTransition) -> list[str]:
    return [str(e.data["id"]) for e in tr.events if e.type == "user/message"]  # type: ignore[index, call-overload]


def turn_end(tr: AgentTransition) -> str | None:
    ends = [str(thaw(e.data)["reason"]["kind"]) for e in tr.events if e.type == "turn/end"]  # type: ignore[index, call-overload]
    return ends[-1] if ends else None


# ---------------------------------------------------------------- DECIDE-1: the payload


@pytest.mark.rule("DECIDE-1")
def test_a_listener_conditioned_on_the_step_acts_only_at_that_boundary() -> None:
    """Reject only the second step of a turn: the first boundary enters, the second is blocked."""
    veto_second = cmd.Decide((Wrap(Replace(Reject()), when=When(step=2)),))
    agent, trs = lifecycle.run(Agent(), cmd.followup(A), veto_second, TOOLS)
    assert entered(trs[1]) == ["A"]
    assert trs[2].agent.phase == "deciding"  # a tool-calls step asks for the next boundary
    tr = lifecycle.step(agent, veto_second)
    assert turn_end(tr) == "blocked"
    assert not [e for e in tr.events if e.type == "step/start"]


@pytest.mark.rule("DECIDE-1")
def test_a_listener_conditioned_on_the_turn_acts_only_in_that_turn() -> None:
    reject_turn_2 = cmd.Decide((Veto(Reject(), when=When(turn=2)),))
    agent, trs = lifecycle.run(Agent(), cmd.followup(A), cmd.followup(B), reject_turn_2, STOP, cmd.TurnStopping())
    assert entered(trs[2]) == ["A"]
    assert agent.running is not None
    assert agent.running.turn == 2  # B chained into turn 2 (CHAIN-1)
    assert turn_end(lifecycle.step(agent, reject_turn_2)) == "blocked"


@pytest.mark.rule("DECIDE-1")
def test_the_payload_is_the_running_turn_and_the_next_step_number() -> None:
    """Across a chained turn the proposed step restarts at 1 and the turn number goes on."""
    seen: list[tuple[int, int]] = []
    agent, _ = lifecycle.run(Agent(), cmd.followup(A), cmd.followup(B))
    for answer in (TOOLS, STOP, STOP):
        run = agent.running
        assert run is not None
        assert agent.phase == "deciding"
        probes = [(t, s) for t in (1, 2, 3) for s in (1, 2, 3)]
        acting = [p for p in probes if run_chain(run.batch, (Veto(Reject(), when=When(*p)),),
                                                 PreStepPayload(run.turn, run.step + 1)).decision == Reject()]
        seen += acting
        agent, _ = lifecycle.run(agent, cmd.Decide(), answer)
        if agent.phase == "stopping":
            agent, _ = lifecycle.run(agent, cmd.TurnStopping())
        if agent.phase == "idle":
            break
    assert seen == [(1, 1), (1, 2), (2, 1)]


@pytest.mark.rule("DECIDE-1", "DECIDE-3")
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))
def test_a_listener_not_matching_the_payload_is_transparent(turn: int, step: int, at_turn: int, at_step: int) -> None:
    payload = PreStepPayload(turn, step)
    inner = (Wrap(Add((B,))),)
    listener = Veto(Reject(), before=(cmd.steer(S),), when=When(at_turn, at_step))
    chain = run_chain((A,), (listener, *inner), payload)
    if (at_turn, at_step) == (turn, step):
        assert (chain.decision, chain.actions) == (Reject(), (cmd.steer(S),))
    else:
        assert chain == run_chain((A,), inner, payload)


# ---------------------------------------------------------------- DECIDE-9: the workspace pattern


def workspace_listener() -> Wrap:
    """Fold the staged workspace item W into an entering batch and remove its pending copy."""
    return Wrap(Add((W,)), after_enter=(cmd.Remove(W.id),))


@pytest.mark.rule("DECIDE-9", "DECIDE-4")
def test_an_entering_pre_step_folds_the_staged_item_and_removes_its_pending_copy() -> None:
    agent, _ = lifecycle.run(Agent(), cmd.followup(A), cmd.inject(W))  # W staged while deciding
    tr = lifecycle.step(agent, cmd.Decide((workspace_listener(),)))
    assert entered(tr) == ["A", "W"]
    assert not tr.agent.inbox.has_pending


@pytest.mark.rule("DECIDE-9", "DECIDE-5", "CLAIM-5")
def test_a_rejection_keeps_the_staged_item_queued() -> None:
    agent, _ = lifecycle.run(Agent(), cmd.followup(A), cmd.inject(W))
    tr = lifecycle.step(agent, cmd.Decide((workspace_listener(), Veto(Reject()))))
    assert turn_end(tr) == "blocked"
    assert entered(tr) == []
    assert [m.id.value for m in tr.agent.inbox.next_step] == ["W"]  # still queued for a later boundary
    assert tr.agent.phase == "idle"  # a reject parks the rest (CHAIN-2); A stays claimed (CLAIM-5)
    # The next turn's first boundary claims the kept item with the follow-up (CLAIM-1).
    later, trs = lifecycle.run(tr.agent, cmd.followup(B), cmd.Decide())
    assert entered(trs[1]) == ["W", "B"]
    assert not later.inbox.has_pending


@pytest.mark.rule("DECIDE-9")
def test_unconditional_after_actions_still_run_on_reject() -> None:
    """The probe of the audit: an outer listener removing W in plain ``after`` does remove it."""
    agent, _ = lifecycle.run(Agent(), cmd.followup(A), cmd.inject(W))
    tr = lifecycle.step(agent, cmd.Decide((Wrap(after=(cmd.Remove(W.id),)), Veto(Reject()))))
    assert turn_end(tr) == "blocked"
    assert not tr.agent.inbox.has_pending


@pytest.mark.rule("DECIDE-9")
def test_after_reject_actions_run_only_on_reject() -> None:
    chain = (Wrap(after_enter=(cmd.steer(A),), after_reject=(cmd.steer(B),)),)
    assert run_chain((S,), chain).actions == (cmd.steer(A),)
    assert run_chain((S,), (*chain, Veto(Reject()))).actions == (cmd.steer(B),)
    assert run_chain((S,), (*chain, Veto(Enter()))).actions == (cmd.steer(A),)


def test_the_command_language_carries_when_and_conditional_actions() -> None:
    decide = cmd.Decide((
        Wrap(Add((W,)), after_enter=(cmd.Remove(W.id),), after_reject=(cmd.inject(B),), when=When(step=2)),
        Veto(Reject(), when=When(turn=3)),
    ))
    raw = json.loads(json.dumps(encode_command(decide)))
    assert raw["listeners"][0]["when"] == {"step": 2}
    assert decode_command(raw) == decide
    plain = json.loads(json.dumps(encode_command(cmd.Decide((Wrap(),)))))
    assert set(plain["listeners"][0]) == {"kind", "transform", "before", "after"}  # old vectors stay as they were
