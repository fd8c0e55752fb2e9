"""Protocol ``loopspec-adapter/2``: the interleaving is compared, times follow a policy, every rule is audited.

* Every notification carries ``nextSeq``; the model's values are the emission trace's (INPUT-2:
  ``agent/status running`` before ``turn/start``; CLAIM-4: ``claimed`` after the claim's last
  record; NOTIFY-4: ``clear()`` notifies between its two records).  An implementation that emits
  ``claimed`` after each claim record — invisible to v1 — now fails the suite.
* Times are compared by policy: an adapter with another clock base passes; one whose repair
  closers take a new tick fails with REPAIR-3 at the closer's seq, and one whose clock stands
  still fails the time policy — although every observation matched.
* The audit applies the live checker to the stream the observations describe (STATUS-1, NOTIFY-2).
* The handshake refuses a v1 adapter with the list of changes, a program that echoes its input,
  and hello answers without a name or a profile.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent
from loopspec.vectors.adapter.client import AdapterError, InProcessAdapter
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.audit import audit, live_stream
from loopspec.vectors.drive import drive
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import VectorCommand
from loopspec.vectors.runner import run_suite
from loopspec.vectors.suite import generate

FULL = PROFILES["full"]


def m(mid: str) -> UserMessage:
    return UserMessage.from_json({"id": mid, "role": "user", "content": [], "source": {"kind": "user"}})


def notes(observation: Any) -> list[tuple[str, int]]:
    return [(str(n["type"]).rsplit("/", 1)[1], n["nextSeq"]) for n in observation["notifications"]]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite-v2")
    generate(out, seed=5, count=6)
    return out


@pytest.mark.rule("INPUT-2", "CLAIM-4", "NOTIFY-4")
def test_next_seq_places_each_notification_between_the_records() -> None:
    agent, first = observe(Agent(), cmd.followup(m("a")))
    events: Any = first["events"]
    # splice seq 0; inserted; status running; turn/start seq 1; claim seq 2; claimed
    assert [e["type"] for e in events] == ["agent/inbox/spliced", "turn/start", "agent/inbox/spliced"]
    assert notes(first) == [("inserted", 1), ("status", 1), ("claimed", 3)]
    agent, _ = observe(agent, cmd.inject(m("b")))
    agent, _ = observe(agent, cmd.followup(m("c")))
    _, cleared = observe(agent, cmd.Clear())
    # clear(): next-step record (seq 5), its discarded, then next-turn record (seq 6), its discarded
    assert notes(cleared) == [("discarded", 6), ("discarded", 7)]


class ClaimedEarly(ModelHandler):
    """Bug: each claimed notification goes out right after its own record (v1 could not see it)."""

    def apply(self, command: VectorCommand) -> Json:
        observation = super().apply(command)
        seen: Any = observation
        claim_records = [e["seq"] for e in seen.get("events", []) if e["type"] == "agent/inbox/spliced"
                         and "outcome" not in e["data"] and not e["data"]["inserted"]]
        claimed = [n for n in seen.get("notifications", []) if n["type"] == "agent/inbox/claimed"]
        if len(claim_records) == 2 and len(claimed) == 2:
            claimed[0]["nextSeq"] = claim_records[0] + 1
        return observation


@pytest.mark.rule("CLAIM-4")
def test_claimed_after_each_record_fails_the_suite(suite: Path) -> None:
    out = io.StringIO()
    report = run_suite(suite, lambda: InProcessAdapter(ClaimedEarly().handle), out)
    assert not report.ok
    assert ".nextSeq: expected" in out.getvalue()


class Clock(ModelHandler):
    """The model with another clock: times shifted, repair closers re-stamped, or a clock standing still."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.later = 0

    def reset(self) -> None:
        super().reset()
        self.later = 0

    def apply(self, command: VectorCommand) -> Json:
        observation = super().apply(command)
        if self.mode == "closers-tick" and isinstance(command, cmd.Restart):
            self.later += 10_000  # the new process's clock reads later, and its closers use it (REPAIR-3 broken)
        for event in observation.get("events", []):  # type: ignore[attr-defined]
            if self.mode == "shifted":
                event["time"] += 5_000_000
            elif self.mode == "closers-tick":
                event["time"] += self.later
            elif self.mode == "frozen":
                event["time"] = 1_700_000_000_000
        return observation


def restart_case(tmp_path: Path) -> Path:
    """One case: a turn left open in a step, then a restart (closers, end-seed)."""
    from loopspec.vectors.case import CaseSpec, build_case, case_text

    spec = CaseSpec("repair/restart/closers", "rule", ("REPAIR-3",), "closers",
                    (cmd.followup(m("a")), cmd.Decide(), cmd.Restart()))
    path = tmp_path / "case.json"
    path.write_text(case_text(build_case(spec)))
    return path


@pytest.mark.rule("REPAIR-3")
def test_times_are_compared_by_policy_and_repair_closers_must_copy(tmp_path: Path) -> None:
    case = restart_case(tmp_path)
    assert run_suite(case, lambda: InProcessAdapter(Clock("shifted").handle), io.StringIO()).ok
    out = io.StringIO()
    report = run_suite(case, lambda: InProcessAdapter(Clock("closers-tick").handle), out)
    assert not report.ok
    assert "REPAIR-3 at seq 5" in out.getvalue()  # the step/end closer
    out = io.StringIO()
    assert not run_suite(case, lambda: InProcessAdapter(Clock("frozen").handle), out).ok
    assert "time-policy at seq 1: time 1700000000000 is not after the previous event's time" in out.getvalue()


@pytest.mark.rule("REPAIR-3")
def test_drive_finds_a_repair_time_bug_the_observations_do_not_show() -> None:
    report = drive(InProcessAdapter(Clock("closers-tick").handle), examples=300, steps=20, seed=0,
                   time_budget=60, shrink_budget=10)
    assert report.disagreement is not None
    assert "REPAIR-3" in report.disagreement
    assert "time-policy" not in report.disagreement  # the clock never goes back: only the closers are wrong
    assert any(isinstance(c, cmd.Restart) for c in report.commands)


def seen(*commands: cmd.Command) -> list[tuple[str, Json]]:
    agent, out = Agent(), []
    for command in commands:
        agent, observation = observe(agent, command)
        out.append((type(command).__name__.lower(), observation))
    return out


@pytest.mark.rule("STATUS-1", "NOTIFY-2")
def test_the_audit_runs_the_live_checker_over_the_observed_stream() -> None:
    steps = seen(cmd.followup(m("a")), cmd.Append(InboxTarget.NEXT_TURN, m("b")))
    assert audit(steps, FULL) == ()
    stream = live_stream(steps)
    assert [r["kind"] for r in stream[:5]] == ["durable", "live", "live", "durable", "durable"]
    again = {"type": "agent/status", "status": "running", "nextSeq": 3}
    repeated: Any = [(op, {**o, "notifications": [*o["notifications"], again]}) for op, o in steps[:1]]  # type: ignore[misc]
    assert [f.rule for f in audit(repeated, FULL)] == ["STATUS-1"]
    op, last = steps[1]
    inserted: Any = last["notifications"]
    early = {**last, "notifications": [{**inserted[0], "nextSeq": 3}]}
    assert "NOTIFY-2" in {f.rule for f in audit([steps[0], (op, early)], FULL)}


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line); sys.stdout.flush()\n"
V1 = r'''
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    answer = {"protocol": "loopspec-adapter/1", "implementation": "old"}
    print(json.dumps({"id": req["id"], "hello": answer}), flush=True)
'''


@pytest.mark.parametrize(("program", "complaint"), [
    (ECHO, "echoed the hello request back"),
    (V1, "speaks loopspec-adapter/1"),
])
def test_the_handshake_refuses_echoes_and_v1_adapters(tmp_path: Path, program: str, complaint: str) -> None:
    path = tmp_path / "adapter.py"
    path.write_text(program)
    with pytest.raises(AdapterError, match=complaint) as caught:
        SubprocessAdapter([sys.executable, str(path)], hello_timeout=10)
    if "loopspec-adapter/1" in complaint:
        assert "nextSeq" in str(caught.value)
        assert "profile" in str(caught.value)


@pytest.mark.parametrize(("answer", "complaint"), [
    ({"protocol": "loopspec-adapter/2", "profile": "full"}, "must name the implementation"),
    ({"protocol": "loopspec-adapter/2", "implementation": "x"}, "must name a profile"),
    ({"protocol": "loopspec-adapter/2", "implementation": "x", "profile": "everything"}, "must name a profile"),
    ({"protocol": "loopspec-adapter/2", "implementation": "x", "profile": "full", "extra": 1}, "unknown key"),
])
def test_the_handshake_wants_a_name_and_a_profile(answer: Json, complaint: str) -> None:
    with pytest.raises(AdapterError, match=complaint):
        InProcessAdapter(lambda request: {"id": request["id"], "hello": answer})


def test_the_reference_adapter_refuses_v1_with_the_changes() -> None:
    response = ModelHandler().handle({"id": 0, "hello": {"protocol": "loopspec-adapter/1"}})
    assert response["error"]["kind"] == "protocol"  # type: ignore[index]
    assert "nextSeq" in response["error"]["message"]  # type: ignore[index]


def test_a_refusal_must_carry_a_message() -> None:
    from loopspec.vectors.observation import observation_difference

    expected = {"ok": False, "code": "SPLICE-3", "message": "message \"a\" is already pending"}
    assert observation_difference(expected, {"ok": False, "code": "SPLICE-3", "message": "other words"}) is None
    assert observation_difference(expected, {"ok": False, "code": "SPLICE-3"}) is not None


def test_generation_refuses_a_case_whose_model_output_the_audit_rejects(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite self-audits: a model whose own log broke a rule would stop generation, not ship."""
    from loopspec.vectors import suite as suite_module
    from loopspec.vectors.audit import Finding
    from loopspec.vectors.suite import SuiteError

    monkeypatch.setattr(suite_module, "audit", lambda steps, profile: (Finding("REPAIR-3", 7, "planted"),))
    with pytest.raises(SuiteError, match="REPAIR-3 at seq 7: planted"):
        generate(tmp_path / "suite", count=1)
