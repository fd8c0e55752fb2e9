"""The checker's surface fold (:mod:`loopspec.check.surface`) refuses what the session's fold refuses (LOG-12).

Each refusal of the published dsh-session's surface fold, one case each; the example logs
``examples/logs/invalid/LOG-12-*`` show them inside whole logs.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.check.surface import SurfaceFold

pytestmark = pytest.mark.rule("LOG-12")


def result(text: str, **envelope: object) -> dict[str, object]:
    block = {"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": text}], "isError": False}
    message = {"id": "r1", "role": "user", "source": {"kind": "tool", "callId": "c1"}, "content": [block]}
    return {"type": "tool/result", "data": {"turn": 1, "step": 1, "message": message}, **envelope}


def replace(start: int, end: int) -> dict[str, object]:
    return {"op": "replace", "start": start, "end": end}


def folded(*events: tuple[str, dict[str, object], int]) -> SurfaceFold:
    fold = SurfaceFold()
    for etype, raw, seq in events:
        assert fold.feed(etype, raw, seq) is None
    return fold


def test_appends_join_the_surface_and_a_replacement_stands_in_for_its_range() -> None:
    fold = folded(("user/message", {"surfaceOp": "append"}, 4), ("assistant/message", {"surfaceOp": "append"}, 5),
                  ("assistant/message", {"surfaceOp": replace(4, 5), "sourceEventSeqs": [4, 5]}, 9))
    assert fold.nodes == [9]
    # A replacement is current in turn: it may be replaced again.
    assert fold.feed("assistant/message", {"surfaceOp": replace(9, 9), "sourceEventSeqs": [9]}, 10) is None
    assert fold.nodes == [10]


def test_a_tool_result_may_be_rewritten_in_its_content_only() -> None:
    fold = folded(("tool/result", result("long", surfaceOp="append", sourceEventSeqs=[6]), 7))
    assert fold.feed("tool/result", result("short", surfaceOp=replace(7, 7), sourceEventSeqs=[7]), 8) is None
    changed = result("short", surfaceOp=replace(8, 8), sourceEventSeqs=[8])
    changed["data"]["message"]["id"] = "r2"  # type: ignore[index]
    assert fold.feed("tool/result", changed, 9) == "a replacing tool/result changes more of seq 8 than its content"


@pytest.mark.parametrize(("etype", "raw", "problem"), [
    ("assistant/message", {}, "assistant/message carries no surfaceOp"),
    ("tool/result", {"surfaceOp": {"replace": 4}}, "a replacement is exactly"),
    ("tool/result", {"surfaceOp": {**replace(4, 4), "x": 1}}, "a replacement is exactly"),
    ("assistant/message", {"surfaceOp": replace(3, 4), "sourceEventSeqs": [3, 4]}, "seq 3, which is not a current"),
    ("assistant/message", {"surfaceOp": replace(5, 4), "sourceEventSeqs": [4, 5]}, "5 comes after 4"),
    ("assistant/message", {"surfaceOp": replace(4, 5), "sourceEventSeqs": [4]}, "hides surface event(s) [5]"),
    ("tool/result", {"surfaceOp": replace(4, 4), "sourceEventSeqs": [4]}, "hides seq 4, which is not a tool/result"),
    ("tool/result", {"surfaceOp": replace(4, 5), "sourceEventSeqs": [4, 5]}, "it rewrites exactly one"),
    ("tool/result", {"surfaceOp": "append", "sourceEventSeqs": []}, "cites an empty sourceEventSeqs"),
    ("assistant/message", {"surfaceOp": "append", "sourceEventSeqs": [4, 4]}, "cites a seq twice"),
    ("assistant/message", {"surfaceOp": "append", "sourceEventSeqs": [4, 6]}, "cites seq 6"),
])
def test_what_the_session_refuses(etype: str, raw: dict[str, object], problem: str) -> None:
    fold = folded(("user/message", {"surfaceOp": "append"}, 4), ("assistant/message", {"surfaceOp": "append"}, 5))
    found = fold.feed(etype, raw, 6)
    assert found is not None
    assert problem in found, found
    assert fold.nodes == [4, 5], "a refused event changes nothing"


def test_what_other_rules_name_is_left_to_them() -> None:
    fold = SurfaceFold()
    assert fold.feed("user/message", {}, 0) is None  # LOG-7
    assert fold.feed("user/message", {"surfaceOp": replace(0, 0)}, 1) is None  # LOG-7
    assert fold.feed("assistant/message", {"surfaceOp": 3}, 2) is None  # LOG-9
    assert fold.feed("system/message", {}, 3) is None  # v0.1.5's (VARIANT-1)
    assert fold.nodes == []


# Values a sourceEventSeqs list may hold in a log: seqs around the citing event's (10), and the
# values that are LOG-1's to name (numbers that are not integers, booleans, strings, null, arrays).
CITED = st.one_of(st.integers(-2, 13), st.sampled_from([3.0, 4.5, 11.5, True, False, "4", None, [4], {"a": 4}]))


@given(st.lists(CITED, max_size=6), st.sampled_from(["assistant/message", "tool/result"]))
def test_the_writers_case_shortcut_decides_as_the_full_test(sources: list[object], etype: str) -> None:
    """An append's ``sourceEventSeqs`` is refused exactly when it is empty (but for an assistant
    message) or cites an integer twice or one that is not earlier; anything else is LOG-1's.  The
    fold takes a shortcut for ascending lists: it must decide as this, the rule written plainly."""
    seq = 10
    seqs = [s for s in sources if type(s) is int]
    refused = ((not sources and etype != "assistant/message") or len(set(seqs)) != len(seqs)
               or any(s >= seq for s in seqs))
    found = SurfaceFold().feed(etype, {"surfaceOp": "append", "sourceEventSeqs": sources}, seq)
    assert (found is not None) == refused, (sources, found)
