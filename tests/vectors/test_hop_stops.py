"""The command language's hop stops (spec/command-language.md, "Stopping at a hop"; decisions G22).

A command with ``stop`` leaves the loop at the first hop of that name its run passes, and
``advance`` lets the loop go on from there; both are plain JSON on the wire, refused where the
language says, and what a stopped command and its ``advance`` write together is what the command
alone writes.
"""

from __future__ import annotations

import pytest

from loopspec.data.messages import UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import advance, run_command, step
from loopspec.loop.phase_names import DECIDED, DECISION_RETURNED, HOPS, STARTING, WAKING
from loopspec.loop.state import Agent
from loopspec.vectors.codec import CodecError, decode_command, encode_command
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profiles import PROFILES, ops_of
from loopspec.vectors.rule_cases.common import REJECT, STOP, m

FOLLOWUP = cmd.followup(m("a"))


def _message(mid: str) -> dict[str, object]:
    return UserMessage.create(mid).to_json()


@pytest.mark.rule("INPUT-4")
def test_stop_and_advance_round_trip_and_refuse_what_the_language_refuses() -> None:
    for command in (cmd.Stopping(FOLLOWUP, WAKING), cmd.Advance(), cmd.Advance(DECIDED),
                    cmd.Stopping(cmd.Decide(), DECISION_RETURNED), cmd.Stopping(cmd.Restart(), "ending")):
        assert decode_command(encode_command(command)) == command
    bad = [
        {"op": "advance", "stop": "nowhere"},  # not a hop
        {"op": "followup", "message": _message("a"), "stop": "idle"},  # a phase, not a hop
        {"op": "claim", "target": "next-turn", "turn": 1, "stop": WAKING},  # the inbox profile has no loop
        {"op": "advance", "stop": DECIDED, "extra": 1},  # closed objects
        {"op": "turn-stopping", "actions": [{"op": "followup", "message": _message("b"), "stop": WAKING}]},
    ]
    for raw in bad:
        with pytest.raises(CodecError):
            decode_command(raw)
    assert ops_of({"op": "followup", "message": _message("a"), "stop": WAKING}) == {"followup", "stop"}
    assert not PROFILES["inbox"].runs({"stop"})
    assert not PROFILES["inbox"].runs({"advance"})
    assert PROFILES["loop"].runs({"stop", "advance"})
    assert PROFILES["full"].runs({"stop", "advance"})


@pytest.mark.rule("INPUT-2", "DECIDE-1")
def test_a_stop_passes_other_hops_and_a_stop_never_reached_runs_on() -> None:
    agent = step(Agent(), FOLLOWUP).agent
    # decide passes decided on its way to decision-returned
    at = run_command(agent, cmd.Stopping(cmd.Decide(), DECISION_RETURNED))
    assert at.agent.phase == DECISION_RETURNED
    assert not at.events
    # a hop the run never passes: the command runs on to its await point, as without the stop
    plain, stopped = step(agent, cmd.Decide()), run_command(agent, cmd.Stopping(cmd.Decide(), WAKING))
    assert stopped.agent == plain.agent
    assert stopped.trace == plain.trace


@pytest.mark.rule("INPUT-2", "STATUS-1")
def test_a_stopped_command_and_its_advance_write_what_the_command_writes() -> None:
    agents = [Agent(), step(Agent(), FOLLOWUP).agent]
    for agent, command in ((agents[0], FOLLOWUP), (agents[1], cmd.Decide()), (agents[1], REJECT)):
        whole = step(agent, command)
        for hop in dict.fromkeys(a.phase for _, a in whole.hops):
            first = run_command(agent, cmd.Stopping(command, hop))
            assert first.agent.phase == hop
            rest = advance(first.agent)
            assert first.trace + rest.trace == whole.trace, (command, hop)
            assert rest.agent == whole.agent


@pytest.mark.rule("INPUT-4", "STATUS-1")
def test_at_a_hop_the_state_names_it_and_answers_are_refused() -> None:
    agent, observation = observe(Agent(), cmd.Stopping(FOLLOWUP, WAKING))
    assert observation["ok"] is True
    assert state_of(agent)["phase"] == WAKING
    assert state_of(agent)["status"] == "idle"
    agent, observation = observe(agent, cmd.Advance(STARTING))
    assert state_of(agent)["phase"] == STARTING
    assert state_of(agent)["status"] == "running"
    for answer in (cmd.Decide(), STOP, cmd.TurnStopping()):
        after, refused = observe(agent, answer)
        assert refused["ok"] is False
        assert refused["code"] == "INPUT-4"
        assert after == agent
    _, refused = observe(Agent(), cmd.Advance())
    assert refused["ok"] is False
    assert refused["code"] == "INPUT-4"
    assert set(HOPS) == {"waking", "starting", "decided", "decision-returned", "failing", "chaining", "ending",
                         "prompting", "replaying", "clearing", "canceling"}


@pytest.mark.rule("INPUT-2")
def test_a_waking_send_at_waking_passes_a_waking_point_of_its_own() -> None:
    """A second waking send while the first one's inserted listeners run: its own splice and inserted
    listeners come first, the agent still idle (it stops there if asked), then it starts the driver."""
    at = run_command(Agent(), cmd.Stopping(FOLLOWUP, WAKING)).agent
    second = cmd.followup(m("b"))
    held = run_command(at, cmd.Stopping(second, WAKING))
    assert held.agent.phase == WAKING
    assert [t.type for t in held.trace] == ["agent/inbox/spliced", "agent/inbox/inserted"]
    whole = run_command(at, second)
    assert whole.agent.phase == "deciding"
    assert whole.trace == held.trace + advance(held.agent).trace
