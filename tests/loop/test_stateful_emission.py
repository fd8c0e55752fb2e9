"""The model's own state machine can emit what it runs in the command language (issue 6).

With ``LOOPSPEC_EMIT_VECTORS=DIR`` each example of :class:`AgentMachine` is written as a vector
case (kind ``walk``); the cases validate against ``spec/schemas/vector.schema.json`` and replay
to the same observations against the reference adapter (INPUT-4 refusals included).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from loop.agent_machine import AgentMachine
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.runner import run_case
from vectors.fixtures import VECTOR


@pytest.mark.rule("INPUT-4")
def test_stateful_examples_emit_replayable_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPSPEC_EMIT_VECTORS", str(tmp_path))
    run_state_machine_as_test(AgentMachine, settings=settings(max_examples=8, stateful_step_count=20))
    cases = sorted(tmp_path.glob("*.json"))
    assert cases, "the state machine emitted no case"
    adapter = InProcessAdapter(ModelHandler().handle)
    for path in cases:
        case = json.loads(path.read_text())
        VECTOR.validate(case)
        assert case["kind"] == "walk"
        assert case["steps"], path
        result = run_case(adapter, case["id"], case)
        assert result.status == "pass", (path, result)
