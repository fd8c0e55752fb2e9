"""Every reader of a log draws the nesting bound at the same place (LOG-1, decisions.md D9).

``check`` (its dict path and its typed path), the replay reader and the picture's reader must give
one verdict for one line.  The bound is the model's: ``data`` or ``surfaceOp`` that freezes within
:data:`~loopspec.data.json_value.MAX_DEPTH` levels is read, anything deeper is a LOG-1 violation at
its line.  Around 255 levels is where orjson stops writing (the checker's no-repeated-key proof
writes each line back), around 1,024 where it stops reading: the depths below straddle all three.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from loopspec.check import CheckOptions, check_file
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import MAX_DEPTH, NestedTooDeeply, freeze, thaw
from loopspec.log.reader import parse_line
from loopspec.render.source import check_depth
from loopspec.render.source import parse as render_parse

START = '{"type":"session/start","seq":0,"time":1,"data":{}}\n'
# The nested value sits at data.inserted[0].content[0].deep: five levels below data itself.
DEPTHS = (250, 254, 255, 256, 300, MAX_DEPTH - 7, MAX_DEPTH - 6, MAX_DEPTH - 5, MAX_DEPTH, 1000, 1023, 1030, 3000)


def _splice_line(depth: int) -> str:
    deep: object = "x"
    for _ in range(depth):
        deep = [deep]
    message = {"id": "m1", "role": "user", "content": [{"type": "text", "text": "a", "deep": deep}],
               "source": {"kind": "user"}}
    event = {"type": "agent/inbox/spliced", "seq": 1, "time": 1,
             "data": {"target": "next-turn", "start": 0, "inserted": [message]}}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * depth + 1000))  # the standard library writes recursively
    try:
        return json.dumps(event, separators=(",", ":")) + "\n"
    finally:
        sys.setrecursionlimit(limit)


def _model_reads(line: str) -> bool:
    try:
        freeze(json.loads(line)["data"])
    except (RecursionError, NestedTooDeeply):
        return False
    return True


def _replay_refusal(line: str) -> str | None:
    """The rule the replay reader refuses the line by, or None when it reads it."""
    try:
        parse_line(line, 2)
    except InvalidEvent as err:
        return err.rule
    return None


def _render_refusal(line: str) -> str | None:
    """The rule the picture's reader refuses the line by, or None when it reads it."""
    raw = line.encode()
    try:
        value = render_parse(raw, 1)
        assert isinstance(value, dict)
        check_depth(value["data"], len(raw), 1)
    except InvalidEvent as err:
        return err.rule
    return None


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize("decoder", ["general", "typed"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_check_replay_and_render_agree_on_how_deep_a_line_may_nest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, depth: int, decoder: str) -> None:
    monkeypatch.setenv("LOOPSPEC_CHECK_DECODER", decoder)
    line = _splice_line(depth)
    if depth < 1000:  # the standard library's own reader recurses past Python's limit beyond this
        expected = _model_reads(line)
        assert expected == (depth + 5 <= MAX_DEPTH)  # MAX_DEPTH containers, data the first
    else:
        expected = False
    log = tmp_path / "deep.events.jsonl"
    log.write_text(START + line)
    result = check_file(log, CheckOptions(all=True))
    assert (result.status == "valid") == expected, result.violations
    if not expected:
        assert [(v.rule, v.line) for v in result.violations] == [("LOG-1", 2)]
    refusal = None if expected else "LOG-1"
    assert _replay_refusal(line) == refusal
    assert _render_refusal(line) == refusal


def test_what_the_model_freezes_it_can_also_thaw() -> None:
    """A value at the bound comes back out (vectors, replay and reports write messages back)."""
    deep: object = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert thaw(freeze(deep)) == deep
