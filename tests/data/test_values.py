"""The inbox's value classes (DATA-1, DATA-2, DATA-3) and frozen JSON, on their own.

Everything else in the model builds on these, so their contracts are held here directly: a
message read from JSON is written back equal in meaning, with every field it had (DATA-2); a
malformed one is refused naming its defect; ids compare exactly (DATA-1); a target is one of two
lists (DATA-3); frozen JSON thaws back to what was frozen, compares by value and hashes alike.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.json_value import MAX_DEPTH, JsonObject, NestedTooDeeply, freeze, thaw
from loopspec.data.messages import InboxTarget, MessageId, UserMessage, shown

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@given(JSON)
def test_frozen_json_thaws_back_to_what_was_frozen(value: object) -> None:
    frozen = freeze(value)
    assert thaw(frozen) == value
    assert freeze(thaw(frozen)) == frozen
    assert hash(freeze(thaw(frozen))) == hash(frozen)
    assert freeze(frozen) == frozen  # freezing a frozen value changes nothing


def test_frozen_objects_compare_by_value_whatever_the_key_order() -> None:
    assert freeze({"a": 1, "b": [2]}) == freeze({"b": [2], "a": 1})
    assert hash(freeze({"a": 1, "b": [2]})) == hash(freeze({"b": [2], "a": 1}))
    assert freeze({"a": 1}) != freeze({"a": 2})


def test_json_nested_past_the_limit_is_refused_at_the_limit() -> None:
    deep: object = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert thaw(freeze(deep)) == deep
    with pytest.raises(NestedTooDeeply):
        freeze([deep])
    with pytest.raises(TypeError, match="not a JSON value: set"):
        freeze({"x": {1}})


@given(st.dictionaries(st.sampled_from(["meta", "x", "attachments"]), JSON, max_size=3))
def test_a_message_keeps_every_field_it_was_read_with(extra: dict[str, object]) -> None:
    """DATA-2: fields the model does not know survive a read and a write."""
    raw = {"id": "m1", "role": "user", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"},
           **extra}
    message = UserMessage.from_json(raw)
    assert message.id == MessageId("m1")
    assert message.to_json() == raw
    assert message.text == "hi"


@pytest.mark.parametrize(("raw", "defect"), [
    ([], "a message must be a JSON object, got list"),
    ({"role": "user", "content": [], "source": {}}, "a message needs a string id, got null"),
    ({"id": 7, "role": "user", "content": [], "source": {}}, "a message needs a string id, got 7"),
    ({"id": "m", "role": "assistant", "content": [], "source": {}}, "role must be 'user', got 'assistant'"),
    ({"id": "m", "role": "user", "content": "hi", "source": {}}, "content must be an array"),
    ({"id": "m", "role": "user", "content": [], "source": []}, "source must be an object"),
])
def test_a_malformed_message_is_refused_naming_its_defect(raw: object, defect: str) -> None:
    """DATA-2: what is not a user message is refused, and the error says why."""
    with pytest.raises(ValueError, match=defect.replace("(", r"\(")):
        UserMessage.from_json(raw)


def test_ids_compare_exactly() -> None:
    """DATA-1: an id is an opaque string; nothing normalizes it."""
    assert MessageId("a") == MessageId("a")
    assert MessageId("a") != MessageId("A")
    assert MessageId("a ") != MessageId("a")
    assert str(MessageId("m-1")) == "m-1"


def test_a_target_names_one_of_the_two_lists() -> None:
    """DATA-3: next-turn or next-step, nothing else."""
    assert InboxTarget.parse("next-turn") is InboxTarget.NEXT_TURN
    assert InboxTarget.parse("next-step") is InboxTarget.NEXT_STEP
    with pytest.raises(ValueError, match="unknown inbox target 'next'"):
        InboxTarget.parse("next")
    with pytest.raises(ValueError, match=r"unknown inbox target \[\]"):
        InboxTarget.parse(freeze([]))


def test_errors_show_frozen_json_as_it_was_read() -> None:
    assert shown(freeze([])) == "[]"
    assert shown(freeze({"a": [1]})) == "{'a': [1]}"
    assert isinstance(freeze({}), JsonObject)
