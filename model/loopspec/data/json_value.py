"""Frozen, hashable JSON values.

Session events and messages carry arbitrary JSON (message content, unknown fields, the data of
event types outside the model).  The model keeps it *losslessly* but frozen, so it can live in
frozen attrs state and be compared structurally: arrays become tuples and objects become
:class:`JsonObject` (key order kept for writing back, ignored for equality, as in JSON).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeAlias

import attrs

Frozen: TypeAlias = "bool | int | float | str | tuple[Frozen, ...] | JsonObject | None"
Thawed: TypeAlias = "bool | int | float | str | list[Thawed] | dict[str, Thawed] | None"


@attrs.frozen(eq=False)
class JsonObject(Mapping[str, Frozen]):
    """An immutable JSON object; equality ignores key order, like JSON's."""

    items_: tuple[tuple[str, Frozen], ...]

    def __getitem__(self, key: str) -> Frozen:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JsonObject):
            return dict(self.items_) == dict(other.items_)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self.items_))


_SCALARS = (str, int, float, bool, type(None))


def freeze(value: object) -> Frozen:
    """Turn parsed JSON (dicts, lists, scalars) into its frozen form."""
    # Dispatch on the exact type first: JsonObject is a Mapping, so isinstance() against it
    # goes through the ABC machinery, which dominated the cost of reading long logs.
    kind = type(value)
    if kind in _SCALARS:
        return value  # type: ignore[return-value]
    if kind is dict:
        return JsonObject(tuple((str(k), freeze(v)) for k, v in value.items()))  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return tuple(freeze(v) for v in value)  # type: ignore[attr-defined]
    if kind is JsonObject:  # already frozen: freezing is idempotent
        return value  # type: ignore[return-value]
    if isinstance(value, dict):
        return JsonObject(tuple((str(k), freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def thaw(value: Frozen) -> Thawed:
    """Inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps``."""
    if isinstance(value, JsonObject):
        return {k: thaw(v) for k, v in value.items_}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value
