"""Shapes of JSON values as data: the vocabulary the readers of files a user hands us are written in.

A :data:`Shape` is a function ``(value, where) -> problem or None``: ``None`` when the value has
the shape, else one sentence naming ``where`` (a JSON path such as ``$.steps[2].expect``) and what
is wrong.  Readers build their format from the combinators here — closed and open objects,
arrays, constants, anchored patterns, alternatives — so a format is a table that can be read
beside its JSON Schema (``spec/schemas``), and ``tests/specdoc/test_schema_decoders.py`` proves
the two agree.  Integers are integer tokens as the real writer writes them (decisions.md G3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from loopspec.data.message_shape import shown
from loopspec.data.messages import UserMessage
from loopspec.log.envelope import MAX_SAFE_INTEGER

Shape = Callable[[object, str], "str | None"]
NO_FIELDS: Mapping[str, Shape] = MappingProxyType({})


def _first(problems: Iterable[str | None]) -> str | None:
    return next((p for p in problems if p is not None), None)


def _object_with(raw: object, where: str, required: Mapping[str, Shape]) -> str | None:
    """What keeps ``raw`` from being a JSON object holding every required key, or None."""
    if not isinstance(raw, dict):
        return f"{where}: expected a JSON object, got {type(raw).__name__}"
    missing = [k for k in required if k not in raw]
    return f"{where}: missing key(s) {missing}" if missing else None


def closed(required: Mapping[str, Shape], optional: Mapping[str, Shape] = NO_FIELDS) -> Shape:
    """An object with exactly these keys (the optional ones may be absent), each of its shape."""
    fields = {**required, **optional}

    def check(raw: object, where: str) -> str | None:
        if (problem := _object_with(raw, where, required)) is not None:
            return problem
        assert isinstance(raw, dict)
        unknown = sorted(set(raw) - set(fields), key=str)
        if unknown:
            return f"{where}: unknown key(s) {unknown}"
        return _first(fields[key](value, f"{where}.{key}") for key, value in raw.items())

    return check


def open_object(required: Mapping[str, Shape], optional: Mapping[str, Shape] = NO_FIELDS) -> Shape:
    """An object with at least the required keys; these and the optional ones of their shape, others unjudged."""
    fields = {**required, **optional}

    def check(raw: object, where: str) -> str | None:
        if (problem := _object_with(raw, where, required)) is not None:
            return problem
        assert isinstance(raw, dict)
        return _first(shape(raw[key], f"{where}.{key}") for key, shape in fields.items() if key in raw)

    return check


def array(item: Shape, *, min_items: int = 0, unique: bool = False) -> Shape:
    def check(raw: object, where: str) -> str | None:
        if not isinstance(raw, list):
            return f"{where}: expected an array, got {type(raw).__name__}"
        if len(raw) < min_items:
            return f"{where}: needs at least {min_items} item(s), got {len(raw)}"
        if unique and len({repr(i) for i in raw}) != len(raw):
            return f"{where}: items must not repeat, got {shown(raw)}"
        return _first(item(value, f"{where}[{index}]") for index, value in enumerate(raw))

    return check


def matching(pattern: str) -> Shape:
    """A string the schema's anchored ``^...$`` pattern matches whole (ECMA-262: ``$`` is the very end)."""
    assert pattern.startswith("^"), pattern
    assert pattern.endswith("$"), pattern
    compiled = re.compile(pattern[1:-1])

    def check(raw: object, where: str) -> str | None:
        ok = isinstance(raw, str) and compiled.fullmatch(raw)
        return None if ok else f"{where}: expected a string matching {pattern}, got {shown(raw)}"

    return check


def one_of(*values: object) -> Shape:
    """One of these JSON values exactly (``true`` is not ``1``)."""

    def check(raw: object, where: str) -> str | None:
        ok = any(type(raw) is type(v) and raw == v for v in values)
        return None if ok else f"{where}: expected one of {list(values)!r}, got {shown(raw)}"

    return check


def either(name: str, *shapes: Shape) -> Shape:
    """The first alternative that fits; none fitting names every alternative's complaint."""

    def check(raw: object, where: str) -> str | None:
        complaints = []
        for shape in shapes:
            problem = shape(raw, where)
            if problem is None:
                return None
            complaints.append(problem)
        return f"{where}: not {name}: " + " | ".join(complaints)

    return check


def of_type(kind: type, label: str) -> Shape:
    def check(raw: object, where: str) -> str | None:
        return None if type(raw) is kind else f"{where}: expected {label}, got {shown(raw)}"

    return check


def integer(low: int, high: int | None = MAX_SAFE_INTEGER) -> Shape:
    """An integer token in ``[low, high]`` (``high`` None: unbounded)."""
    span = f"{low} .. {high}" if high is not None else f">= {low}"

    def check(raw: object, where: str) -> str | None:
        ok = type(raw) is int and raw >= low and (high is None or raw <= high)
        return None if ok else f"{where}: expected an integer {span}, got {shown(raw)}"

    return check


def anything(_: object, __: str) -> str | None:
    return None


def user_message(raw: object, where: str) -> str | None:
    """A ``UserMessage`` (DATA-2), as the model reads one."""
    try:
        UserMessage.from_json(raw)
    except ValueError as err:
        return f"{where}: {err}"
    return None


STRING = of_type(str, "a string")
BOOLEAN = of_type(bool, "a boolean")
OBJECT = of_type(dict, "a JSON object")
STRINGS = array(STRING)
MESSAGES = array(user_message)
NON_NEGATIVE = integer(0)
POSITIVE = integer(1)
