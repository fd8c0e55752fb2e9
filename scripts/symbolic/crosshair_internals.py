"""The two CrossHair internals the search relies on; each fails loudly if CrossHair renames it.

docs/contracts.md says why each is needed and what it buys.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from typing import Any

from crosshair import SymbolicFactory, core
from crosshair.libimpl.builtinslib import _hash

from loopspec.log.events import SessionEvent


def install_log_creator(log: Callable[[SymbolicFactory], tuple[SessionEvent, ...]]) -> None:
    """Build ``Iterable[SessionEvent]`` and ``Sequence[SessionEvent]`` (the logs the folds take) with ``log``.

    ``register_type`` refuses a second creator, so this swaps two entries of CrossHair's internal
    registry, keeping CrossHair's creator for other element types; if the name changes, it fails.
    """
    registry = core._SIMPLE_PROXIES
    for abc in (collections.abc.Iterable, collections.abc.Sequence):
        default = registry[abc]

        def creator(p: SymbolicFactory, t: Any = Any, default: Callable[..., Any] = default) -> Any:
            return log(p) if t is SessionEvent else default(p, t)

        registry[abc] = creator


def never_short_circuit_hash() -> None:
    """Make CrossHair always run ``hash`` rather than replace it by a symbolic int (its issue #190).

    Inside an attrs ``__hash__`` a symbolic int makes CPython's dict raise and CrossHair drop the
    path, about once in three hashed ids.  ``consider_shortcircuit`` is internal; if renamed, this fails.
    """
    consider = core.consider_shortcircuit

    def consider_shortcircuit(fn: object, *args: object, **kwargs: object) -> object:
        return None if fn is _hash else consider(fn, *args, **kwargs)

    core.consider_shortcircuit = consider_shortcircuit
