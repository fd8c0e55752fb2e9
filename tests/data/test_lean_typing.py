"""The start-up path's ``NamedTuple`` and ``Generic`` build what :mod:`typing`'s build.

``loopspec.data.lean_typing`` exists so ``loopspec check`` need not import :mod:`typing`; these
tests declare the same classes both ways and require the same behaviour, and check that every
named tuple of the check path is one.
"""

from __future__ import annotations

import pickle
import types
import typing

import pytest

from loopspec.check.inbox_track import SpliceEffect
from loopspec.check.report_text import Summary
from loopspec.check.verdict import CheckOptions, EventRef, LogResult, StateSnapshot, Violation
from loopspec.data import lean_typing
from loopspec.inbox.lane import Lane

LEAN: typing.Any = lean_typing.NamedTuple  # the run-time stand-in, whatever mypy believes


def _declare(base: typing.Any) -> typing.Any:
    class Point(base):  # type: ignore[misc]
        """A point."""

        x: int
        y: int = 0
        label: str = "p"

        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

        @property
        def twice(self) -> int:
            return 2 * self.x

    return Point


def test_a_lean_named_tuple_behaves_as_typing_builds_it() -> None:
    lean, real = _declare(LEAN), _declare(typing.NamedTuple)
    assert lean._fields == real._fields == ("x", "y", "label")
    assert lean._field_defaults == real._field_defaults == {"y": 0, "label": "p"}
    assert lean.__doc__ == real.__doc__ == "A point."
    assert lean.__qualname__ == real.__qualname__
    assert lean.__module__ == real.__module__ == __name__
    a, b = lean(3, -4), real(3, -4)
    assert tuple(a) == tuple(b) == (3, -4, "p")
    assert repr(a).replace("Point", "") == repr(b).replace("Point", "")
    assert a.norm() == b.norm() == 7
    assert a.twice == b.twice == 6
    assert a._replace(y=1) == (3, 1, "p")
    assert issubclass(lean, tuple)


@pytest.mark.parametrize("refused", ["_fields", "_replace", "__new__"])
def test_a_lean_named_tuple_refuses_what_typing_refuses(refused: str) -> None:
    def body(namespace: dict[str, object]) -> None:
        namespace.update({"__module__": __name__, "__annotations__": {"x": "int"}, refused: None})

    for base in (LEAN, typing.NamedTuple):
        with pytest.raises(AttributeError):
            types.new_class("Bad", (base,), exec_body=body)


def test_a_field_without_default_after_one_with_is_refused_alike() -> None:
    def body(namespace: dict[str, object]) -> None:
        namespace.update({"__module__": __name__, "__annotations__": {"x": "int", "y": "int"}, "x": 0})

    for base in (LEAN, typing.NamedTuple):
        with pytest.raises(TypeError):
            types.new_class("Bad", (base,), exec_body=body)


@pytest.mark.parametrize("cls", [CheckOptions, EventRef, StateSnapshot, Violation, LogResult, SpliceEffect, Summary])
def test_the_check_paths_values_are_named_tuples_that_pickle(cls: typing.Any) -> None:
    assert issubclass(cls, tuple)
    assert cls.__module__.startswith("loopspec.check.")
    value = cls(*(cls._field_defaults.get(f, 0) for f in cls._fields))
    assert pickle.loads(pickle.dumps(value)) == value
    assert list(cls.__annotations__) == list(cls._fields)  # the annotations were kept, in order


def test_a_lean_generic_subscripts_to_itself() -> None:
    assert Lane[int] is Lane
    lane: Lane[int] = Lane([1, 2, 3])
    assert lane.splice(0, 1, [9, 8]) == [1]
    assert lane.view() == [9, 8, 2, 3]
