"""Shared helpers of the vector tests: JavaScript number identity, the spec schemas' validators,
the reference and a deliberately broken adapter (``FAKE_ADAPTER``, ``WrongRemove``), and the
mutants' in-process adapters with the first command on which one differs from the model."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from conftest import REPO
from loopspec.inbox.normalize import JsNumber, is_negative_zero
from loopspec.loop import commands as cmd
from loopspec.loop.phase_names import HOPS
from loopspec.loop.state import Agent
from loopspec.vectors.adapter.client import Adapter, InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.codec import decode_command
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import first_difference, observation_difference, observe, state_of
from loopspec.vectors.reference_model import Model, VectorCommand
from vectors.mutants.catalogue import handler
from vectors.mutants.handler import Mutant


def same_number(a: JsNumber, b: JsNumber) -> bool:
    """Identity of JavaScript numbers: NaN is itself, -0 is not 0."""
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and is_negative_zero(a) == is_negative_zero(b)


REFERENCE = [sys.executable, "-m", "loopspec", "adapter"]


# A fake adapter script: the model, broken in one way chosen by argv[1], after `after` commands.
FAKE_ADAPTER = r'''
import sys, time
from loopspec.loop import commands as cmd
from loopspec.vectors.adapter.reference import ModelHandler, protocol_error, serve

mode, after = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0
if mode in ("exit", "sleep", "garbage") and len(sys.argv) > 3:
    # Fail only in the first process: a flag file marks that it already happened.
    import os
    flag = sys.argv[3]
    if os.path.exists(flag):
        mode = "fine"
    else:
        open(flag, "w").close()

class Fake(ModelHandler):
    implementation = "fake-" + mode
    seen = 0

    def handle(self, request):
        if mode == "old-protocol" and "hello" in request:
            return protocol_error(request["id"], "protocol", "I speak loopspec-adapter/0")
        if mode == "unsupported" and "command" in request:
            return protocol_error(request["id"], "unsupported", "no restarts here")
        return super().handle(request)

    def reset(self):
        super().reset()
        self.wronged = False

    def apply(self, command):
        self.seen += 1
        if self.seen > after:
            if mode == "exit":
                print("fake: giving up", file=sys.stderr, flush=True)
                sys.exit(3)
            if mode == "sleep":
                time.sleep(60)
            if mode == "garbage":
                print("this is not json", flush=True)
        if mode == "wrong-then-die" and getattr(self, "wronged", False):
            sys.exit(4)  # dies on the command after its wrong answer
        observation = super().apply(command)
        if mode in ("wrong-remove", "wrong-then-die") and isinstance(command, cmd.Remove) \
                and observation.get("value") is False:
            observation = dict(observation, value=None)
            self.wronged = True
        return observation

serve(Fake(), sys.stdin, sys.stdout)
'''


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_adapter.py"
    path.write_text(FAKE_ADAPTER)
    return path


def fake_argv(fake: Path, mode: str, after: int = 0, once: Path | None = None) -> list[str]:
    """The fake adapter; with ``once`` (a flag file) it breaks only in the first process it runs as."""
    return [sys.executable, str(fake), mode, str(after), *([str(once)] if once else [])]


class WrongRemove(ModelHandler):
    """Answers ``null`` where ``remove`` of a missing id must return false (SPLICE-7)."""

    def apply(self, command: VectorCommand) -> Json:
        observation = super().apply(command)
        if isinstance(command, cmd.Remove) and observation.get("value") is False:
            observation = {**observation, "value": None}
        return observation


AUDIT = "what the adapter wrote breaks rules the observations do not compare"


def adapter_for(mutant: Mutant) -> InProcessAdapter:
    return InProcessAdapter(handler(mutant.name).handle, name=mutant.name)


def first_differing(mutant: Mutant, commands: Sequence[Json]) -> tuple[Json, Json, Json] | None:
    """Replay encoded commands on the model and the mutant: the first command whose observations differ,
    with both, or else the first command after which the states differ, with both (as ``{"state": ...}``),
    or None.

    A bug's hallmark is what it does to what the loop writes between two await points; commands that
    stop at hops (spec/loop-grain.md) split that over several observations (the stopping command,
    calls landing at the hop, the ``advance`` that goes on): :func:`span_differing` shows the same
    difference on the whole span."""
    agent: Model = Agent()
    bugged = adapter_for(mutant)
    for command in commands:
        agent, expected = observe(agent, decode_command(command))
        actual = bugged.command(command)
        assert isinstance(actual, dict)
        if observation_difference(expected, actual) is not None:
            return command, expected, actual
        expected_state, actual_state = state_of(agent), bugged.state()
        if first_difference(expected_state, actual_state) is not None:
            return command, {"state": expected_state}, {"state": actual_state}
    return None


def span_differing(mutant: Mutant, commands: Sequence[Json]) -> tuple[Json, Json, Json] | None:
    """The first difference (:func:`first_differing`) at a command that stops at a hop or goes on
    from one, shown on the span of commands from where the loop left its last await point to where
    it rests again: their accepted observations, events and notifications each joined in order."""
    agent: Model = Agent()
    bugged = adapter_for(mutant)
    seen: list[tuple[Json, Json, str]] = []  # each command's two observations and the model's phase after
    for index, command in enumerate(commands):
        agent, expected = observe(agent, decode_command(command))
        actual = bugged.command(command)
        assert isinstance(actual, dict)
        seen.append((expected, actual, str(state_of(agent).get("phase"))))
        if observation_difference(expected, actual) is not None:
            hop = isinstance(command, dict) and ("stop" in command or command.get("op") == "advance")
            return _span(commands, seen, index, bugged, agent) if hop else None
    return None


def _span(commands: Sequence[Json], seen: list[tuple[Json, Json, str]], index: int, bugged: Adapter,
          agent: Model) -> tuple[Json, Json, Json]:
    start = index
    while start > 0 and seen[start - 1][2] in HOPS:
        start -= 1
    # On to where the model's loop rests again: the case's next commands, then the loop going on by
    # itself (a sequence cut at its first difference ends at the hop).
    advance: Json = {"op": "advance"}
    rest: list[Json] = [*commands[index + 1:], *[advance] * len(HOPS)]
    for command in rest:
        if seen[-1][2] not in HOPS:
            break
        agent, expected = observe(agent, decode_command(command))
        actual = bugged.command(command)
        assert isinstance(actual, dict)
        seen.append((expected, actual, str(state_of(agent).get("phase"))))
    part = seen[start:]
    if len(part) == 1:
        return commands[index], part[0][0], part[0][1]
    return commands[start], _joined([e for e, _, _ in part]), _joined([a for _, a, _ in part])


def _joined(observations: list[Json]) -> Json:
    accepted = [o for o in observations if o.get("ok") is True]
    if not accepted:
        return observations[0]
    return {"ok": True, "events": [e for o in accepted for e in o["events"]],  # type: ignore[attr-defined]
            "notifications": [n for o in accepted for n in o["notifications"]],  # type: ignore[attr-defined]
            "value": accepted[0].get("value")}


SCHEMAS = {p.name: json.loads(p.read_text()) for p in (REPO / "spec" / "schemas").glob("*.json")}


REGISTRY = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in SCHEMAS.values())


def validator(file: str, definition: str | None = None) -> jsonschema.Draft202012Validator:
    """A validator for a spec schema file, or for one of its ``$defs``, resolving sibling files."""
    schema = SCHEMAS[file]
    if definition is not None:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(schema, registry=REGISTRY)


VECTOR = validator("vector.schema.json")
