"""What makes ``drive`` fast must not change what it finds.

* Pipelined requests are answered in order, and a protocol error in the middle of a batch stands
  for that request only; a batch written over time is answered as one pipeline.
* The commands of an example Hypothesis cuts short are compared too.
* Driving in one pipelined batch per example and driving one request at a time both find the
  minimal disagreement (SPLICE-7 through the broken ``remove``).
* The fast draws (straight from Hypothesis' choice sequence) are used with the installed
  Hypothesis, and the strategy draws they replace still work.
* The fast JSON equality agrees with the path-reporting comparison on every pair of values.
* A protocol line written by orjson says what the standard encoder says, and a value JSON cannot
  write (NaN, an infinity) is still refused.
* Hypothesis mines no constants from loopspec's own source during a drive, so a seed draws the
  same from a checkout as from an installed wheel.

Throughput itself is measured by ``benchmarks/drive_bench.py``, never by a test.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop import commands as cmd
from loopspec.vectors import drive_draws, drive_session
from loopspec.vectors.adapter.client import AdapterError, InProcessAdapter, dump_line
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive import drive
from loopspec.vectors.observation import first_difference, same_json
from vectors.fixtures import FAKE_ADAPTER, REFERENCE, WrongRemove, fake_argv


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fake") / "fake_adapter.py"
    path.write_text(FAKE_ADAPTER)
    return path


def test_pipelined_requests_are_answered_in_order() -> None:
    m = UserMessage.from_json({"id": "a", "role": "user", "content": [], "source": {"kind": "user"}})
    append = encode_command(cmd.Append(InboxTarget.NEXT_TURN, m))
    with SubprocessAdapter(REFERENCE) as adapter:
        answers = adapter.pipeline([("reset", {}), ("command", append), ("command", {"op": "jump"}),
                                    ("command", append), ("state", {})])
    assert answers[0] == {}
    assert answers[1]["ok"] is True  # type: ignore[index]
    assert isinstance(answers[2], AdapterError)
    assert answers[2].kind == "bad-request"
    assert answers[3]["code"] == "SPLICE-3"  # type: ignore[index]  # the first append was kept
    assert [x["id"] for x in answers[4]["inbox"]["next-turn"]] == ["a"]  # type: ignore[index]


def test_a_batch_written_over_time_is_answered_as_one_pipeline() -> None:
    m = UserMessage.from_json({"id": "a", "role": "user", "content": [], "source": {"kind": "user"}})
    append = encode_command(cmd.Append(InboxTarget.NEXT_TURN, m))
    requests: list[tuple[str, object]] = [("reset", {}), ("command", append), ("command", {"op": "jump"}),
                                          ("command", append), ("state", {})]
    with SubprocessAdapter(REFERENCE) as adapter:
        expected = adapter.pipeline(requests)
        batch = adapter.batch()
        for request in requests:
            batch.add([request])
        answers = batch.answers()
        assert adapter.pipeline([("state", {})]) == [expected[-1]]  # the batch left nothing unread
    assert [str(a) if isinstance(a, AdapterError) else a for a in answers] == [
        str(a) if isinstance(a, AdapterError) else a for a in expected]


def test_examples_hypothesis_cuts_short_are_compared_too() -> None:
    """Hypothesis drops a mutated example that asks for more choices than it replays; its commands
    so far are sent and compared all the same, so more commands are compared than whole examples hold."""
    report = drive(InProcessAdapter(ModelHandler().handle), examples=60, steps=30, seed=0)
    assert report.ok
    assert report.sent > report.examples * 30


@pytest.mark.rule("SPLICE-7")
def test_pipelined_and_lockstep_drives_find_the_minimal_case(fake: Path) -> None:
    for lockstep in (False, True):
        with SubprocessAdapter(fake_argv(fake, "wrong-remove")) as adapter:
            report = drive(adapter, examples=200, steps=25, seed=3, time_budget=90, shrink_budget=30,
                           lockstep=lockstep)
        assert report.disagreement is not None
        assert "$.value: expected false, got null" in report.disagreement
        assert [type(c) for c in report.commands] == [cmd.Remove]  # the same minimal case, either way


@pytest.mark.rule("SPLICE-7")
def test_an_adapter_that_dies_after_a_disagreement_is_restarted(fake: Path) -> None:
    """A batch may run past the first wrong answer and crash the adapter; the disagreement still wins."""
    argv = fake_argv(fake, "wrong-then-die")
    with SubprocessAdapter(argv) as adapter:
        report = drive(adapter, examples=200, steps=25, seed=3, time_budget=90, shrink_budget=30,
                       restart=lambda: SubprocessAdapter(argv))
    assert report.adapter_failure is None
    assert report.disagreement is not None
    assert "$.value: expected false, got null" in report.disagreement
    with SubprocessAdapter(argv) as adapter:  # without a way to restart it: the disagreement, not shrunk
        lost = drive(adapter, examples=200, steps=25, seed=3, time_budget=90)
    assert lost.disagreement is not None
    assert "$.value: expected false, got null" in lost.disagreement
    assert "not fully shrunk: the adapter failed" in lost.disagreement
    assert any(isinstance(c, cmd.Remove) for c in lost.commands)


def test_fast_draws_are_used_and_the_strategy_draws_still_work(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    real = drive_draws.fast_draws

    def spy(data: object) -> object:
        seen.append(real(data))  # type: ignore[arg-type]
        return seen[-1]

    monkeypatch.setattr(drive_draws, "fast_draws", spy)
    assert drive(InProcessAdapter(ModelHandler().handle), examples=5, steps=5, seed=0).ok
    assert seen
    assert all(x is not None for x in seen), "the installed Hypothesis lost the fast path"
    monkeypatch.setattr(drive_draws, "fast_draws", lambda data: None)
    report = drive(InProcessAdapter(WrongRemove().handle), examples=300, steps=25, seed=0, time_budget=90)
    assert report.disagreement is not None
    assert [type(c) for c in report.commands] == [cmd.Remove]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.0, -0.0, 1.0, 2.5, math.nan])
    | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=8,
)


@given(json_values, json_values)
def test_fast_equality_agrees_with_the_reported_difference(a: object, b: object) -> None:
    assert same_json(a, b) == (first_difference(a, b, path="$.x") is None)
    assert same_json(a, a)
    assert not same_json(True, 1)
    assert not same_json(0, False)
    assert same_json(1, 1.0)


def _lookalike(value: object, data: st.DataObject) -> object:
    """``value`` rewritten so that Python's ``==`` still holds but JSON may not: ``true`` for ``1``,
    ``1.0`` for ``1``, ``0`` for ``false``, keys in another order."""
    if isinstance(value, dict):
        return {k: _lookalike(v, data) for k, v in reversed(value.items())}
    if isinstance(value, list):
        return [_lookalike(v, data) for v in value]
    if isinstance(value, bool | int) and not (isinstance(value, float) and math.isnan(value)):
        twins = [value, int(value), float(value)] + ([bool(value)] if value in (0, 1) else [])
        return data.draw(st.sampled_from(twins))
    return value


@given(json_values, st.data())
def test_fast_equality_agrees_on_values_python_takes_for_equal(a: object, data: st.DataObject) -> None:
    """The fast test (``==`` and the same sorted JSON text) never says equal where the walk would not."""
    b = _lookalike(a, data)
    assume(a == b)  # a NaN is not equal to itself: not a value Python takes for equal
    assert same_json(a, b) == (first_difference(a, b, path="$.x") is None)
    assert same_json(b, a) == (first_difference(b, a, path="$.x") is None)


line_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=10,
)


def _non_finite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    return isinstance(value, list) and any(_non_finite(v) for v in value)


@given(line_values)
def test_a_protocol_line_says_what_the_standard_encoder_says(value: object) -> None:
    """orjson writes most lines; NaN and the infinities, which it would write as null, stay refused."""
    standard = json.JSONEncoder(allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    if _non_finite(value):
        with pytest.raises(ValueError, match="not JSON compliant"):
            dump_line(value)
        return
    line = dump_line(value)
    assert "\n" not in line  # one line of the protocol
    # Parsed back and written by the standard encoder, it is exactly what that encoder writes: the
    # same values down to the sign of zero and every bit of a float.
    assert standard.encode(json.loads(line)) == standard.encode(value)


def test_drive_mines_no_constants_from_its_own_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """From a checkout loopspec is "local" code to Hypothesis, which would parse every module of it
    for literals to draw (about a seventh of a run) and draw differently than from a wheel."""
    from hypothesis.internal import constants_ast
    from hypothesis.internal.conjecture import providers

    mined: list[str] = []
    real = constants_ast.constants_from_module

    def spy(module: ModuleType, **kwargs: bool) -> constants_ast.Constants:
        mined.append(module.__name__)
        return real(module, **kwargs)

    monkeypatch.setattr(providers, "constants_from_module", spy)
    monkeypatch.setattr(providers, "_seen_modules", set())  # as in a fresh process
    monkeypatch.setattr(providers, "_sys_modules_len", None)
    collector = providers._get_local_constants
    assert drive(InProcessAdapter(ModelHandler().handle), examples=10, steps=10, seed=0).ok
    assert not [name for name in mined if name.startswith("loopspec")]
    assert providers._get_local_constants is collector  # put back after the run
    with drive_session.no_harness_constants():
        assert len(providers._get_local_constants()) == 0
