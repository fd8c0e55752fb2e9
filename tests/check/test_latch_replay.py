"""A latched wake's replay (CANCEL-4, TURN-5) when calls land at the hops around it (decisions G22).

The replay reads the inbox once, between the aborted end and the next ``turn/start``; a removal
may land before it (at ``ending``) or after it (at ``starting``), so the checker accepts the
replay when input was pending at any point since the end, and refuses it when none ever was.
An abort that writes nothing (a keepInbox cancel after the pre-step returned a reject) leaves
the end ``blocked``, and a follow-up after it still latches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check.log_mutations import Log, check_log
from loopspec.check.verdict import CheckOptions
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import run_command
from loopspec.loop.phase_names import DECISION_RETURNED, ENDING, STARTING
from loopspec.loop.state import Agent
from loopspec.vectors.rule_cases.common import ENTER, REJECT, STOP, m

FIRST = CheckOptions()


def _log(*commands: cmd.LoopCommand) -> Log:
    agent = Agent()
    for command in commands:
        agent = run_command(agent, command).agent
    return [json.loads(json.dumps(e.to_json())) for e in agent.log.events]


def _rules(log: Log, tmp_path: Path) -> list[str]:
    return [v.rule for v in check_log(log, tmp_path, FIRST).violations]


LATCHED = (cmd.followup(m("a")), ENTER, cmd.Cancel(), cmd.followup(m("b")))


@pytest.mark.rule("TURN-5", "CANCEL-4")
def test_a_removal_after_the_replay_started_the_driver_leaves_a_turn_that_claims_nothing(tmp_path: Path) -> None:
    log = _log(*LATCHED, cmd.Stopping(STOP, STARTING), cmd.Remove(m("b").id), cmd.Advance(), ENTER)
    assert [e["type"] for e in log][-3:] == ["agent/inbox/spliced", "turn/start", "turn/end"]
    assert log[-1]["data"] == {"turn": 2, "reason": {"kind": "completed"}}
    assert _rules(log, tmp_path) == []


@pytest.mark.rule("TURN-5", "CANCEL-4")
def test_a_removal_before_the_replay_or_after_it_reads_the_same_in_the_log(tmp_path: Path) -> None:
    # The removal lands at ending, before the replay: the real loop starts nothing.  Had it landed
    # at starting, after the replay, the turn/start would follow it: the log cannot tell which.
    log = _log(*LATCHED, cmd.Stopping(STOP, ENDING), cmd.Remove(m("b").id), cmd.Advance())
    assert log[-1]["type"] == "agent/inbox/spliced"  # the removal; no turn follows
    assert _rules(log, tmp_path) == []
    assert _rules([*log, _turn_start(log, 2)], tmp_path) == []


@pytest.mark.rule("TURN-5", "CANCEL-4")
def test_a_replay_with_nothing_pending_at_any_point_since_the_end_is_refused(tmp_path: Path) -> None:
    # The latched message is removed inside the aborted turn: nothing is pending from its end on.
    log = _log(*LATCHED, cmd.Remove(m("b").id), STOP)
    assert log[-1]["type"] == "turn/end"
    assert _rules(log, tmp_path) == []
    report = check_log([*log, _turn_start(log, 2)], tmp_path, FIRST)
    assert [v.rule for v in report.violations] == ["TURN-5"]
    assert "no input was pending at any point since that turn's end" in report.violations[0].message


def _turn_start(log: Log, turn: int) -> dict[str, object]:
    last = log[-1]["time"]
    assert isinstance(last, int)
    return {"type": "turn/start", "seq": len(log), "time": last + 1, "data": {"turn": turn}}


@pytest.mark.rule("TURN-5", "CANCEL-4", "DECIDE-5")
def test_a_follow_up_after_a_cancel_that_wrote_nothing_latches_after_a_blocked_end(tmp_path: Path) -> None:
    log = _log(cmd.followup(m("a")), cmd.Stopping(REJECT, DECISION_RETURNED), cmd.Cancel(keep_inbox=True),
               cmd.followup(m("b")), cmd.Advance())
    ends = [e["data"] for e in log if e["type"] == "turn/end"]
    assert ends == [{"turn": 1, "reason": {"kind": "blocked"}}]
    assert [e["type"] for e in log].count("turn/start") == 2
    assert _rules(log, tmp_path) == []
