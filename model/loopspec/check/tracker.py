"""The base of the checker's trackers: one rule's bookkeeping inside one check run, owning its fields.

The checker's state (:class:`loopspec.check.state.CheckState`) holds a tracker per rule whose
bookkeeping spans several records (TURN-5's wake latch, what the boundary's claim owes, the open
step, the last step's outcome, the surface fold, the live process boundaries); only the tracker's
methods write its fields.  The exploration forks the checker at every state and keys it
(:mod:`loopspec.explore.log_rules`), so a tracker can be copied and says which of its fields a
later verdict reads.  A plain class with
``__slots__``: the checker's per-event path allocates nothing.
"""

from __future__ import annotations

from typing import ClassVar


class Tracker:
    """A rule's bookkeeping inside one check run: copied and keyed field by field."""

    __slots__: ClassVar[tuple[str, ...]] = ()

    def copy(self) -> Tracker:
        new = type(self).__new__(type(self))
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        return new

    # The fields a later verdict reads (all of them, unless a tracker says otherwise): the
    # exploration keys each by the rules for a checker slot of that name (explore.log_rules).
    KEYED: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "KEYED" not in cls.__dict__:
            cls.KEYED = cls.__slots__

    def key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.KEYED)

    def __eq__(self, other: object) -> bool:  # two checkers in the same state have equal trackers
        return type(other) is type(self) and other.key() == self.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: keyed by key()
