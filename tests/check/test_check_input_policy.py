"""Two input policies, decided once and applied by every reader of logs (decisions.md G3).

The real writer is ``JSON.stringify``: it never writes a key twice in one object, and it writes
every safe integer as plain digits.  So

* a line with a repeated key (anywhere in it) is no session event: LOG-1, on the orjson fast
  path and on the standard-library path alike, in ``check``, ``check --live`` and the log reader
  (replay);
* an integral number written as ``1.0`` (or ``1e0``) where an integer is expected is refused with
  the rule of the field: ``seq`` LOG-1, a splice coordinate FOLD-2, a turn or step number LOG-8,
  the scope of a streamed chunk LOG-3, a claimed notification's turn CLAIM-4; the fold and the
  lifecycle projection of replay refuse it too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from check.log_mutations import Log, check_log, dumps, stdlib_only
from loopspec.check import CheckOptions, check_file, reader
from loopspec.data.errors import InvalidEvent
from loopspec.inbox import fold
from loopspec.log.reader import read_events
from loopspec.loop.projection import project

ALL = CheckOptions(all=True)
MESSAGE = {"id": "A", "role": "user", "content": [{"type": "text", "text": "A"}], "source": {"kind": "user"}}
LOG: Log = [
    {"type": "agent/inbox/spliced", "seq": 0, "time": 1, "data": {"target": "next-turn", "start": 0,
                                                                  "inserted": [MESSAGE]}},
    {"type": "turn/start", "seq": 1, "time": 2, "data": {"turn": 1}},
    {"type": "agent/inbox/spliced", "seq": 2, "time": 3,
     "data": {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []}},
    {"type": "step/start", "seq": 3, "time": 4, "data": {"turn": 1, "step": 1}},
    {"type": "user/message", "seq": 4, "time": 5, "data": MESSAGE, "surfaceOp": "append"},
    {"type": "assistant/chunk", "seq": 5, "time": 6,
     "data": {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "ok"}}},
    {"type": "step/end", "seq": 6, "time": 7, "data": {"turn": 1, "step": 1}},
    {"type": "turn/end", "seq": 7, "time": 8, "data": {"turn": 1, "reason": {"kind": "completed"}}},
]
LINES = [json.dumps(e, separators=(",", ":")) for e in LOG]


def _with_line(tmp: Path, index: int, text: str) -> Path:
    path = tmp / "x.events.jsonl"
    path.write_text("".join((text if i == index else line) + "\n" for i, line in enumerate(LINES)), encoding="utf-8")
    return path


REPEATED = [
    (1, LINES[1].replace('"turn":1}', '"turn":1,"turn":2}')),  # in data
    (1, LINES[1][:-1] + ',"type":"x/foreign"}'),  # two different types: the envelope
    (4, LINES[4].replace('"role":"user"', '"role":"user","role":"user"')),  # the same value twice, in a message
    (5, LINES[5].replace('"index":0', '"index":0,"index":0')),  # in a streamed chunk (the hot path)
    (6, LINES[6].replace('{"turn":1,"step":1}', '{"turn":1, "step":1, "step":1}')),  # not compact text
]


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "stdlib"])
@pytest.mark.parametrize(("index", "text"), REPEATED)
def test_a_repeated_key_is_log_1_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool, index: int, text: str
) -> None:
    if not fast:
        stdlib_only(monkeypatch)
    result = check_file(_with_line(tmp_path, index, text), ALL)
    assert [(v.rule, v.line) for v in result.violations][:1] == [("LOG-1", index + 1)]
    assert "appears twice" in result.violations[0].message


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize(("index", "text"), REPEATED)
def test_the_log_reader_refuses_a_repeated_key(tmp_path: Path, index: int, text: str) -> None:
    with pytest.raises(InvalidEvent) as err:
        list(read_events(_with_line(tmp_path, index, text)))
    assert err.value.rule == "LOG-1"
    assert "appears twice" in err.value.message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from((1.0, 0.5, "x", "a:b", 'q"{', "é", "\\")),
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(st.tuples(st.sampled_from(("a", "b", "type", "a:", "\\")), inner), max_size=4),
    max_leaves=12,
)


def _text(value: object, spaced: bool, ascii_only: bool) -> str:
    """JSON text of ``value``; a list of pairs is an object written with its keys as given (repeats kept)."""
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        sep = ", " if spaced else ","
        return "{" + sep.join(json.dumps(k, ensure_ascii=ascii_only) + (": " if spaced else ":")
                              + _text(v, spaced, ascii_only) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + (", " if spaced else ",").join(_text(v, spaced, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


@pytest.mark.rule("LOG-1")
@given(value=st.lists(st.tuples(st.sampled_from(("type", "seq", "data", "k")), json_values), min_size=1, max_size=5),
       spaced=st.booleans(), ascii_only=st.booleans(), newline=st.booleans())
def test_fast_and_standard_parses_agree(
    value: list[tuple[str, object]], spaced: bool, ascii_only: bool, newline: bool
) -> None:
    """Any object text, compact or spaced, with or without repeated keys, ending the line or ending a log that
    has no final newline: the same value or the same refusal."""
    line = (_text(value, spaced, ascii_only) + ("\n" if newline else "")).encode()

    def outcome(loads: object) -> object:
        try:
            return ("value", loads(line))  # type: ignore[operator]
        except ValueError as err:
            return ("refused", type(err).__name__ == "DuplicateKey")

    assert outcome(reader.fast_loads) == outcome(reader.strict_loads)


INTEGRAL_FLOATS = [
    (0, LINES[0].replace('"seq":0', '"seq":0.0'), "LOG-1"),
    (1, LINES[1].replace('"turn":1', '"turn":1.0'), "LOG-8"),
    (2, LINES[2].replace('"removedCount":1', '"removedCount":1.0'), "FOLD-2"),
    (2, LINES[2].replace('"start":0', '"start":0.0'), "FOLD-2"),
    (3, LINES[3].replace('"step":1', '"step":1e0'), "LOG-8"),
    (5, LINES[5].replace('"turn":1', '"turn":1.0'), "LOG-3"),  # the hot path's comparison
]


@pytest.mark.rule("LOG-1", "LOG-8", "FOLD-2", "LOG-3")
@pytest.mark.parametrize("fast", [True, False], ids=["orjson", "stdlib"])
@pytest.mark.parametrize(("index", "text", "rule"), INTEGRAL_FLOATS)
def test_an_integral_float_is_no_integer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast: bool, index: int, text: str, rule: str
) -> None:
    if not fast:
        stdlib_only(monkeypatch)
    result = check_file(_with_line(tmp_path, index, text), ALL)
    assert [(v.rule, v.line) for v in result.violations][:1] == [(rule, index + 1)]


@pytest.mark.rule("FOLD-2", "LOG-1")
@pytest.mark.parametrize(("index", "text", "rule"), [f for f in INTEGRAL_FLOATS if f[2] in ("FOLD-2", "LOG-8")])
def test_replay_refuses_an_integral_float(tmp_path: Path, index: int, text: str, rule: str) -> None:
    """The fold (FOLD-2) and the lifecycle projection (LOG-1, its rule for unreadable numbers) of replay."""
    path = _with_line(tmp_path, index, text)
    reading = fold.replay if rule == "FOLD-2" else project
    with pytest.raises(InvalidEvent) as err:
        reading(read_events(path))
    assert err.value.rule == ("FOLD-2" if rule == "FOLD-2" else "LOG-1")
    assert err.value.seq == index


@pytest.mark.rule("CLAIM-4")
def test_a_claimed_turn_written_as_a_float_is_no_turn(tmp_path: Path) -> None:
    log = tmp_path / "x.events.jsonl"
    log.write_bytes(dumps(LOG[:3]))
    live = [{"kind": "durable", "seq": 0, "type": "agent/inbox/spliced"},
            {"kind": "live", "type": "agent/inbox/inserted", "nextSeq": 1, "message": MESSAGE},
            {"kind": "durable", "seq": 1, "type": "turn/start"},
            {"kind": "durable", "seq": 2, "type": "agent/inbox/spliced"},
            {"kind": "live", "type": "agent/inbox/claimed", "nextSeq": 3, "message": MESSAGE, "turn": 1}]
    stream = tmp_path / "x.live.jsonl"
    stream.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    assert check_file(log, ALL, live=stream).status == "valid"
    live[-1]["turn"] = 1.0
    stream.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    assert check_file(log, ALL, live=stream).rules == ("CLAIM-4",)


def test_the_example_log_is_valid(tmp_path: Path) -> None:
    """The base log of the cases above is valid, so each case's violation is its edit's."""
    assert check_log(LOG, tmp_path, ALL).status == "valid"
