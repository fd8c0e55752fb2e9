"""The one reader of a splice record's data, over parsed and frozen JSON (FOLD-1, FOLD-2, DATA-2).

The checker and the pictures read a splice from the parser's dicts and lists, the model from its
frozen events; both go through :func:`loopspec.log.splice_data.read_splice`, so the same record
must read the same way, or be refused with the same rule and the same words, in either form.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze, thaw
from loopspec.data.messages import message_problem
from loopspec.log.splice_data import read_splice

ODD = st.sampled_from([None, True, 0, 1, -1, 2**53, 1.0, "", "next-turn", "canceled", "user", [], [1], {}, {"a": 1}])


def _edited(base: dict[str, object], changed: dict[str, object], dropped: list[str]) -> dict[str, object]:
    out = {**base, **changed}
    for key in dropped:
        out.pop(key, None)
    return out


def _edits_of(base: st.SearchStrategy[dict[str, object]], keys: list[str]) -> st.SearchStrategy[dict[str, object]]:
    """A valid object, with up to two members set to odd values and at most one left out."""
    return st.builds(_edited, base, st.dictionaries(st.sampled_from(keys), ODD, max_size=2),
                     st.lists(st.sampled_from(keys), max_size=1))


MESSAGE = _edits_of(st.fixed_dictionaries({"id": st.sampled_from(["a", "b"]), "role": st.just("user"),
                                           "content": st.just([]), "source": st.just({})}),
                    ["id", "role", "content", "source", "extra"])
SPLICE = _edits_of(
    st.fixed_dictionaries({"target": st.sampled_from(["next-turn", "next-step"]), "start": st.integers(0, 2),
                           "inserted": st.lists(MESSAGE | ODD, max_size=3)},
                          optional={"removedCount": st.integers(0, 2), "outcome": st.just("canceled")}),
    ["target", "start", "inserted", "removedCount", "outcome", "unknown"],
)


def _read(data: object) -> object:
    try:
        target, start, removed, outcome, inserted = read_splice(data, 7)
    except InvalidEvent as err:
        return err.rule, err.detail, err.seq
    return target, start, removed, outcome, [thaw(m) if not isinstance(m, dict) else m for m in inserted]


@pytest.mark.rule("FOLD-1", "FOLD-2", "DATA-2")
@given(SPLICE | ODD)
def test_parsed_and_frozen_data_read_alike(data: object) -> None:
    """FOLD-1, FOLD-2, DATA-2: one reading, or one refusal in one wording, whichever form the JSON has."""
    if isinstance(data, dict):
        assert _read(data) == _read(freeze(data))
    else:
        assert _read(data) == ("FOLD-1", "splice data must be an object", 7)


@pytest.mark.rule("DATA-2")
@given(MESSAGE | ODD)
def test_a_message_is_judged_alike_in_either_form(raw: object) -> None:
    """DATA-2: the one message test names the same defect for parsed and frozen JSON."""
    assert message_problem(raw) == message_problem(freeze(raw))


@pytest.mark.rule("FOLD-1", "FOLD-2", "DATA-2")
@pytest.mark.parametrize(("data", "rule", "words"), [
    ({"target": "next-turn", "start": 0.0, "inserted": []}, "FOLD-2", "'start' must be a safe integer, got 0.0"),
    ({"target": "x", "start": 0.0, "inserted": []}, "FOLD-1", "unknown inbox target 'x'"),
    ({"target": "next-turn", "start": 0, "inserted": [], "outcome": "done"}, "FOLD-1",
     "'outcome' may only be 'canceled', got 'done'"),
    ({"target": "next-turn", "start": 0, "inserted": [], "x": 1}, "FOLD-1", "unknown splice field(s) ['x']"),
    ({"target": "next-turn", "start": 0, "inserted": [[]]}, "DATA-2",
     "inserted message: a message must be a JSON object, got tuple"),
])
def test_each_refusal_names_its_rule_first_defect_first(data: dict[str, object], rule: str, words: str) -> None:
    """FOLD-1 before FOLD-2 for the target, FOLD-2 before the messages: the first defect is named."""
    with pytest.raises(InvalidEvent) as err:
        read_splice(data, 3)
    assert (err.value.rule, err.value.detail, err.value.seq) == (rule, words, 3)
