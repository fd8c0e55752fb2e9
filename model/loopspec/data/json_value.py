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

from loopspec.data.frozen_members import FrozenMembers

Frozen: TypeAlias = "bool | int | float | str | tuple[Frozen, ...] | JsonObject | None"
Thawed: TypeAlias = "bool | int | float | str | list[Thawed] | dict[str, Thawed] | None"


@attrs.frozen(eq=False)
class JsonObject(Mapping[str, Frozen], FrozenMembers):
    """An immutable JSON object; equality ignores key order, like JSON's.

    :class:`FrozenMembers` is how the message shape tests, which do not import this module, know one.
    """

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


_SCALARS = frozenset({str, int, float, bool, type(None)})

# Deeper payloads are refused (LOG-1, decision D9) at a fixed depth rather than wherever the
# interpreter's stack runs out: a RecursionError deep in the stack can also fire inside a finalizer
# that runs meanwhile, where nobody can catch it, so the outcome would depend on the garbage collector.
MAX_DEPTH = 500


class NestedTooDeeply(RecursionError):
    """A JSON value nested more than :data:`MAX_DEPTH` levels deep."""


def freeze(value: object) -> Frozen:
    """Turn parsed JSON (dicts, lists, scalars) into its frozen form."""
    return _freeze(value, MAX_DEPTH)


def _freeze(value: object, budget: int) -> Frozen:
    # Dispatch on the exact type first: JsonObject is a Mapping, so isinstance() against it
    # goes through the ABC machinery, which dominated the cost of reading long logs.  Plain loops
    # rather than generator expressions: one stack frame per level of nesting, not two.
    kind = type(value)
    if kind in _SCALARS or kind is JsonObject:  # a JsonObject is already frozen: freezing is idempotent
        return value  # type: ignore[return-value]
    if budget == 0:
        raise NestedTooDeeply(f"JSON nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        pairs = []
        for k, v in value.items():
            pairs.append((str(k), _freeze(v, budget - 1)))
        return JsonObject(tuple(pairs))
    if isinstance(value, list | tuple):
        items = []
        for v in value:
            items.append(_freeze(v, budget - 1))
        return tuple(items)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def nests_too_deep(value: object, size: int) -> bool:
    """Whether ``value``, parsed from a line of ``size`` bytes, nests past :data:`MAX_DEPTH` (LOG-1, D9).

    Freezing is the model's test; a line of at most ``2 * MAX_DEPTH`` bytes cannot nest that deep
    (each level costs an opening and a closing bracket), so only longer lines pay for it.
    """
    if size <= 2 * MAX_DEPTH:
        return False
    try:
        freeze(value)
    except RecursionError:  # NestedTooDeeply, or the interpreter's own limit
        return True
    return False


def thaw(value: Frozen) -> Thawed:
    """Inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps``."""
    # The exact types freeze makes are tried first, for the reason given in _freeze: isinstance()
    # against JsonObject (a Mapping) takes the ABC machinery; it made thaw 1.7x slower.  Plain
    # loops, as in _freeze: a comprehension is a frame of its own, and at two frames a level a
    # value freeze accepts (MAX_DEPTH levels) would exhaust Python's stack on the way back out.
    kind = type(value)
    if kind in _SCALARS:
        return value  # type: ignore[return-value]
    if kind is JsonObject or (kind is not tuple and isinstance(value, JsonObject)):
        out: dict[str, Thawed] = {}
        for k, v in value.items_:  # type: ignore[union-attr]
            out[k] = thaw(v)
        return out
    if kind is tuple or isinstance(value, tuple):
        items: list[Thawed] = []
        for v in value:  # type: ignore[union-attr]
            items.append(thaw(v))
        return items
    return value  # type: ignore[return-value]
