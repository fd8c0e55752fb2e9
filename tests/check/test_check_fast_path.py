"""The typed fast path (:mod:`loopspec.check.fastpath`) judges every log as the general path does.

* On random valid logs and mutations, with chunk payloads of every shape the real writer streams
  and odd ones (floats, booleans, huge numbers, extra keys, repeated keys, escapes), the fast scan
  ends in the same checker state with the same violations as feeding every parsed line to
  :meth:`LogChecker.feed_event` (LOG-1, LOG-2, LOG-3).
* ``check_file`` gives the same results with the fast path and with ``LOOPSPEC_CHECK_DECODER=general``
  (the fallback when msgspec is missing).
* The hook for a policy that refuses repeated keys: :func:`repeats_no_key` is exact against the
  standard library's view of the line, the scan (which spells it out) takes exactly the lines it
  proves, and with the hook on, the fast scan agrees with a general path whose parse refuses
  repeated keys.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from check.log_mutations import ODD_VALUES, Log, any_mutation, valid_logs
from loopspec.check import fastpath, runner
from loopspec.check.decode import DecodeError, decode_chunk, repeats_no_key
from loopspec.check.machine import LogChecker
from loopspec.check.reader import LineProblem, parse_line
from loopspec.check.runner import check_file
from loopspec.check.state import CheckState, StopCheck
from loopspec.check.verdict import CheckOptions

ALL = CheckOptions(all=True, max_violations=1000)
SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TEXT = st.text(st.sampled_from(["a", ":", '"', "\\", "\n", "é", "\u2028", "\x01", "{", "}", ","]), max_size=6)
PAYLOADS = st.one_of(
    st.builds(lambda i, t: {"type": "text-delta", "index": i, "text": t}, st.integers(0, 2), TEXT),
    st.builds(lambda t: {"type": "block-start", "index": 0, "blockType": t}, st.sampled_from(("text", "tool-call"))),
    st.builds(lambda t: {"type": "block-end", "index": 0, "block": {"type": "text", "text": t}}, TEXT),
    st.builds(lambda a: {"type": "block-end", "index": 0, "block": {"type": "tool-call", "id": "c1", "name": "n",
                                                                     "arguments": a}}, TEXT),
    st.builds(lambda a, named: {"type": "tool-call-delta", "index": 0, "id": "c1", **({"name": "n"} if named else {}),
                                "argumentsDelta": a}, TEXT, st.booleans()),
    st.builds(lambda k: {"type": "finish", "reason": {"kind": k}}, st.sampled_from(("stop", "tool-calls", "a:b"))),
    st.builds(lambda n: {"type": "usage", "usage": {"inputTokens": n, "outputTokens": 2}}, st.integers(0, 2**60)),
    st.builds(lambda v: {"type": "text-delta", "index": v, "text": "x"}, st.sampled_from(ODD_VALUES)),
    st.builds(lambda v: {"type": "finish", "reason": v}, st.sampled_from(ODD_VALUES)),
    st.just({"type": "text-delta", "index": 0, "text": "x", "extra": 1}),
    st.just({"type": "unknown-chunk"}),
)


def _line(event: dict[str, object], ascii_only: bool) -> bytes:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=ascii_only).encode() + b"\n"


def _repeat_a_key(line: bytes, rnd: random.Random) -> bytes:
    """The line with one member written twice (first with another value), where the text allows it."""
    for key in rnd.sample([b'"turn":', b'"step":', b'"seq":', b'"text":', b'"index":', b'"kind":', b'"type":'], 7):
        at = line.find(key)
        if at >= 0:
            other = rnd.choice([b"1", b'"x:y"', b"true", b"{}", b'"text-delta"'])
            return line[:at] + key + other + b"," + line[at:]
    return line


@st.composite
def chunk_logs(draw: st.DrawFn) -> list[bytes]:
    """A valid or mutated log as lines, its chunks given payloads of many shapes, some lines spoiled."""
    log: Log = draw(valid_logs())
    if draw(st.booleans()):
        log = draw(any_mutation(log))
    rnd: random.Random = draw(st.randoms(use_true_random=False))
    lines = []
    for event in log:
        data = event.get("data")
        if event.get("type") == "assistant/chunk" and isinstance(data, dict):
            data["chunk"] = draw(PAYLOADS)
            if rnd.random() < 0.1:  # a chunk naming another step, or with an odd envelope
                key = rnd.choice(["turn", "step", "seq", "time"])
                where = data if key in ("turn", "step") else event
                value = where.get(key)
                where[key] = rnd.choice([*ODD_VALUES, value + 1 if type(value) is int else 0, -(2**53)])
        line = _line(event, ascii_only=rnd.random() < 0.5)
        if rnd.random() < 0.05:
            line = _repeat_a_key(line, rnd)
        if rnd.random() < 0.02:
            line = line.replace(b",", b", ", 1)
        lines.append(line)
    return lines


def _state(checker: LogChecker) -> dict[str, object]:
    """Everything the checker knows, except which event it was looking at last."""
    skip = {"event", "line", "seq", "options", "inbox", "violations", "repeats", "keys"}
    state = {name: getattr(checker, name) for name in CheckState.__slots__ + LogChecker.__slots__
             if name not in skip}
    state["inbox"] = (checker.inbox.ids("next-turn"), checker.inbox.ids("next-step"))
    state["violations"] = [(v.rule, v.seq, v.line, v.message, v.state, v.event, v.context) for v in checker.found()]
    state["context"] = list(checker.context)
    return state


def _general(lines: list[bytes], parse: Callable[[bytes], object] = parse_line) -> LogChecker:
    checker = LogChecker("x", ALL)
    try:
        for line_no, line in enumerate(lines, start=1):
            try:
                checker.feed_event(parse(line), line_no)
            except LineProblem as problem:
                checker.bad_line(problem, line_no)
    except StopCheck:
        pass
    return checker


def _fast(lines: list[bytes]) -> LogChecker:
    checker = LogChecker("x", ALL)
    with contextlib.suppress(StopCheck):
        fastpath.scan(iter(lines), checker)  # type: ignore[arg-type]  # any iterable of lines
    return checker


@pytest.mark.rule("LOG-1", "LOG-2", "LOG-3")
@SLOW
@given(chunk_logs())
def test_fast_scan_reaches_the_general_paths_state(lines: list[bytes]) -> None:
    assert _state(_fast(lines)) == _state(_general(lines))


@pytest.mark.rule("LOG-1", "LOG-2", "LOG-3")
@settings(max_examples=max(20, settings().max_examples // 4), parent=SLOW)
@given(chunk_logs())
def test_check_file_is_the_same_with_the_fallback(tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "x.events.jsonl"
    path.write_bytes(b"".join(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(runner.DECODER_VARIABLE, "typed")
        assert runner._typed_scan(0) is fastpath.scan
        fast = check_file(path, ALL)
        patch.setenv(runner.DECODER_VARIABLE, "general")
        assert runner._typed_scan(2 * runner.TYPED_MIN_BYTES) is None
        general = check_file(path, ALL)
    assert fast == general


def test_the_typed_path_is_chosen_by_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """By default a small log is not worth msgspec's import; a large one is."""
    monkeypatch.delenv(runner.DECODER_VARIABLE, raising=False)
    assert runner._typed_scan(runner.TYPED_MIN_BYTES - 1) is None
    assert runner._typed_scan(runner.TYPED_MIN_BYTES) is fastpath.scan


def _repeats(line: bytes) -> bool:
    """Whether the standard library sees a key twice in one object of ``line``."""
    repeated = False

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal repeated
        repeated = repeated or len({k for k, _ in items}) < len(items)
        return dict(items)

    json.loads(line, object_pairs_hook=pairs)
    return repeated


def _chunk_line(payload: dict[str, object], rnd: random.Random) -> bytes:
    event = {"type": "assistant/chunk", "seq": 3, "time": 5, "data": {"turn": 1, "step": 2, "chunk": payload}}
    line = _line(event, ascii_only=rnd.random() < 0.5)
    return _repeat_a_key(line, rnd) if rnd.random() < 0.5 else line


@pytest.mark.rule("LOG-1")
@given(PAYLOADS, st.randoms(use_true_random=False))
def test_repeats_no_key_is_exact(payload: dict[str, object], rnd: random.Random) -> None:
    line = _chunk_line(payload, rnd)
    try:
        chunk = decode_chunk(line)
    except DecodeError:
        return  # the general path decides
    takes = repeats_no_key(line, chunk)
    if takes:
        assert not _repeats(line)
    elif b"\\u" not in line:
        assert _repeats(line)  # only a \\u escape may make it decline a line that repeats nothing
    assert _scan_takes(line) == takes  # the scan spells the proof out: the two must be one test


def _scan_takes(line: bytes) -> bool:
    """Whether the fast scan decides ``line`` (a chunk of seq 3 in turn 1, step 2) without the general path."""
    checker = LogChecker("x.jsonl", ALL)
    checker.turn, checker.step, checker.next_seq = 1, 2, 3
    checker.this_step.streaming = True
    general: list[object] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LogChecker, "feed_event", lambda self, obj, line_no: general.append(obj))
        patch.setattr(LogChecker, "bad_line", lambda self, problem, line_no: general.append(problem))
        fastpath.scan(io.BytesIO(line), checker)
    return not general


def _refusing(line: bytes) -> object:
    """A general-path parse under a policy that refuses a repeated key (LOG-1)."""
    value = parse_line(line)
    if _repeats(line):
        raise LineProblem("LOG-1", "a key appears twice in one object")
    return value


def test_with_the_refusing_policy_the_fast_scan_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook switched on: lines with repeated keys are refused on both paths, the rest agree."""

    def refusing_loads(line: bytes) -> object:
        try:
            return _refusing(line)
        except LineProblem:
            raise ValueError("refused") from None  # the scan then asks parse_slowly why

    monkeypatch.setattr(fastpath, "REFUSE_REPEATED_KEYS", True)
    monkeypatch.setattr(fastpath, "lenient_loads", refusing_loads)
    monkeypatch.setattr(fastpath, "confirmed", lambda line, value: value)  # refusing_loads decided already
    monkeypatch.setattr(fastpath, "parse_slowly", _refusing)

    @SLOW
    @given(chunk_logs())
    def agree(lines: list[bytes]) -> None:
        assert _state(_fast(lines)) == _state(_general(lines, _refusing))

    agree()
