"""Capability profiles: partial implementations get a clean verdict for what they implement.

* ``claim(target, turn)`` is a command of the inbox profile, answered by an inbox-only model
  (CLAIM-1: next-step, then one next-turn message only for a first boundary; CLAIM-2: pure
  deletions, next-step first; CLAIM-4: claimed after both records, with the turn given).
* An edit-only case observes the same on the inbox-only model as on the agent, so it runs on
  both profiles.
* ``vectors run`` sends an adapter only its profile's cases; the rest are not run and do not fail
  the run; the verdict names the profile.  The reference adapter conforms to every profile.
* A claim bug is caught by the claim cases on the inbox profile.
* ``drive`` generates only the profile's commands; ``--profile`` may narrow but never widen.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from loopspec.cli import main
from loopspec.data.messages import InboxTarget, MessageId, UserMessage
from loopspec.inbox.session import InboxSession
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.state import Agent
from loopspec.vectors.adapter.client import Adapter, InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.codec import CodecError, decode_command, encode_command
from loopspec.vectors.drive import ProfileMismatch, choose_profile, drive
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profile_gen import without_edits
from loopspec.vectors.profiles import PROFILES, case_ops, ops_of
from loopspec.vectors.reference_model import Claim, Unsupported, VectorCommand
from loopspec.vectors.runner import run_suite
from loopspec.vectors.suite import generate
from vectors.mutants.catalogue import BY_NAME
from vectors.mutants.handler import installed

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP


def m(mid: str) -> UserMessage:
    return UserMessage.from_json({"id": mid, "role": "user", "content": [], "source": {"kind": "user"}})


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite-profiles")
    generate(out, seed=2, count=6)
    return out


def test_claim_round_trips_and_decodes_strictly() -> None:
    claim = Claim(NT, 3)
    assert encode_command(claim) == {"op": "claim", "target": "next-turn", "turn": 3}
    assert decode_command(encode_command(claim)) == claim
    for turn in (0, -1, True, 1.5, "1"):
        with pytest.raises(CodecError, match="turn"):
            decode_command({"op": "claim", "target": "next-step", "turn": turn})
    with pytest.raises(CodecError):
        decode_command({"op": "decide", "listeners": [{"kind": "wrap", "before": [{"op": "claim"}]}]})


@pytest.mark.rule("CLAIM-1", "CLAIM-2", "CLAIM-4")
def test_the_inbox_models_claim() -> None:
    session = InboxSession()
    for edit in (cmd.Append(NT, m("a")), cmd.Append(NT, m("b")), cmd.Append(NS, m("c"))):
        session, _ = observe(session, edit)
    session, observed = observe(session, Claim(NT, 4))
    first: Any = observed
    assert [x["id"] for x in first["value"]] == ["c", "a"]
    assert [(e["data"]["target"], e["data"]["start"], e["data"]["removedCount"], "outcome" in e["data"])
            for e in first["events"]] == [("next-step", 0, 1, False), ("next-turn", 0, 1, False)]
    assert [(n["type"], n["message"]["id"], n["turn"], n["nextSeq"]) for n in first["notifications"]] == [
        ("agent/inbox/claimed", "c", 4, 5), ("agent/inbox/claimed", "a", 4, 5)]
    session, later = observe(session, Claim(NS, 4))
    assert later == {"ok": True, "events": [], "notifications": [], "value": []}
    assert state_of(session) == {"inbox": {"next-turn": [m("b").to_json()], "next-step": []}}
    with pytest.raises(Unsupported):
        observe(Agent(), Claim(NT, 1))
    with pytest.raises(Unsupported):
        observe(InboxSession(), cmd.followup(m("a")))


def test_edit_only_cases_observe_the_same_on_the_inbox_model(suite: Path) -> None:
    manifest = json.loads((suite / "manifest.json").read_text())
    checked = 0
    for entry in manifest["cases"]:
        case = json.loads((suite / entry["path"]).read_text())
        if case["profiles"] != ["inbox", "full"]:
            continue
        session = InboxSession()
        for step in case["steps"]:
            session, observation = observe(session, decode_command(step["command"]))
            assert observation == step["expect"], (entry["id"], step["command"])
        assert state_of(session)["inbox"] == case["final"]["inbox"]
        checked += 1
    assert checked >= 10


def test_ops_of_sees_nested_actions() -> None:
    decide = cmd.Decide((ls.Wrap(ls.Keep(), (cmd.Append(NT, m("a")),), (cmd.Cancel(),)),))
    assert ops_of(encode_command(decide)) == {"decide", "append", "cancel"}
    conditional = cmd.Decide((ls.Wrap(ls.Keep(), (), (), (cmd.Remove(MessageId("a")),), (cmd.Clear(),)),))
    assert ops_of(encode_command(conditional)) == {"decide", "remove", "clear"}
    assert ops_of(encode_command(without_edits(conditional))) == {"decide"}  # type: ignore[arg-type]
    assert ops_of(encode_command(cmd.TurnStopping((cmd.steer(m("a")),)))) == {"turn-stopping", "steer"}
    assert without_edits(decide) == cmd.Decide((ls.Wrap(ls.Keep(), (), (cmd.Cancel(),)),))
    assert without_edits(cmd.Clear()) is None
    assert not PROFILES["loop"].runs(ops_of(encode_command(decide)))


@pytest.mark.parametrize("profile", ["inbox", "loop", "full"])
def test_the_reference_adapter_conforms_to_every_profile(suite: Path, profile: str) -> None:
    out = io.StringIO()
    report = run_suite(suite, lambda: InProcessAdapter(ModelHandler(profile).handle), out)
    assert report.ok, out.getvalue()
    manifest = json.loads((suite / "manifest.json").read_text())
    assert report.count("pass") == manifest["counts"]["profiles"][profile] > 0
    assert report.count("not-run") == report.count_reason("outside-profile") == len(manifest["cases"]) - report.count(
        "pass")
    assert f"conforms to profile {profile}" in out.getvalue()
    for result in report.results:
        case = json.loads((suite / f"{result.id}.json").read_text())
        assert (result.status == "pass") == PROFILES[profile].runs(case_ops(case["steps"]))


def test_the_cli_verdict_for_a_partial_adapter(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "run", str(suite), "--", "loopspec", "adapter", "--profile", "inbox"]) == 0
    out = capsys.readouterr().out
    assert "conforms to profile inbox" in out
    assert "SKIPPED" in out
    assert "NOT RUN" not in out
    assert "which profile inbox does not have" in out
    assert "case(s) of other profiles only skipped)" in out


class InboxMutant(ModelHandler):
    """The inbox-only model with one of the catalogue's claim bugs installed."""

    def __init__(self, name: str) -> None:
        super().__init__("inbox")
        self.mutant = BY_NAME[name]

    def apply(self, command: VectorCommand) -> Json:
        with installed(self.mutant.patches):
            return super().apply(command)


@pytest.mark.rule("CLAIM-1", "CLAIM-4", "SPLICE-6")
@pytest.mark.parametrize("name", ["claim-every-next-turn", "claim-discards", "claim-marked-canceled"])
def test_claim_bugs_fail_the_inbox_profile(suite: Path, name: str) -> None:
    report = run_suite(suite, lambda: InProcessAdapter(InboxMutant(name).handle), io.StringIO())
    failed = {r.id for r in report.results if r.status == "fail"}
    assert failed & {r.id for r in report.results if r.id.startswith("claim/")}, name


class Recording(Adapter):
    """Wraps an adapter and keeps every op it was sent."""

    def __init__(self, inner: Adapter) -> None:
        super().__init__()
        self.inner = inner
        self.ops: set[str] = set()
        self.implementation, self.profile = inner.implementation, inner.profile

    def exchange(self, request: Json) -> Json:
        if "command" in request:
            self.ops |= ops_of(request["command"])
        return self.inner.exchange(request)

    def close(self) -> None:
        self.inner.close()


@pytest.mark.parametrize(("serves", "wanted"), [("inbox", None), ("full", "loop"), ("loop", None)])
def test_drive_sends_only_the_profiles_commands(serves: str, wanted: str | None) -> None:
    adapter = Recording(InProcessAdapter(ModelHandler(serves).handle))
    report = drive(adapter, examples=30, steps=20, seed=1, time_budget=60, profile=wanted)
    assert report.ok, report.disagreement
    profile = PROFILES[wanted or serves]
    assert report.profile == profile.name
    assert adapter.ops <= profile.ops
    assert len(adapter.ops) >= len(profile.ops) - 2  # and most of them


def test_drive_profile_can_narrow_but_not_widen() -> None:
    full = InProcessAdapter(ModelHandler("full").handle)
    assert choose_profile(full, "loop") == "loop"
    with pytest.raises(ProfileMismatch, match="lacks claim"):
        choose_profile(full, "inbox")
    with pytest.raises(ProfileMismatch):
        choose_profile(InProcessAdapter(ModelHandler("loop").handle), "full")


def test_an_adapter_refuses_commands_outside_its_profile() -> None:
    handler = ModelHandler("loop")
    handler.handle({"id": 0, "hello": {"protocol": "loopspec-adapter/2"}})
    answer = handler.handle({"id": 1, "command": encode_command(cmd.Append(NT, m("a")))})
    assert answer["error"]["kind"] == "unsupported"  # type: ignore[index]
    nested = cmd.TurnStopping((cmd.Clear(),))
    assert handler.handle({"id": 2, "command": encode_command(nested)})["error"]["kind"] == "unsupported"  # type: ignore[index]
