"""Simpler forms of one command, for drive's minimization: a listener chain with a listener or an
action fewer, a listener with its plain defaults, a turn-stopping answer with an action fewer.

Deleting whole commands cannot shorten a decision's listener chain, which Hypothesis draws as
long as it likes; a minimal case must not carry listeners and actions the disagreement does not
need (a drive case of 6.6 KB where three commands suffice).  Each form is one step simpler, so a
greedy loop that keeps what still disagrees reaches a chain no single removal shortens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TypeVar

import attrs

from loopspec.loop import commands as cmd
from loopspec.loop.pre_step import ALWAYS, Keep, Listener, Throw, Veto, Wrap

T = TypeVar("T")
ACTION_FIELDS = {Wrap: ("before", "after", "after_enter", "after_reject"), Veto: ("before",), Throw: ("before",)}


def _fewer(items: tuple[T, ...]) -> Iterator[tuple[T, ...]]:
    """``items`` with one of them left out, the last first (later ones depend on earlier ones less often)."""
    for index in reversed(range(len(items))):
        yield items[:index] + items[index + 1 :]


def _listener_forms(listener: Listener) -> Iterator[Listener]:
    for name in ACTION_FIELDS[type(listener)]:
        for fewer in _fewer(getattr(listener, name)):
            yield attrs.evolve(listener, **{name: fewer})  # type: ignore[arg-type]  # the field named by ACTION_FIELDS
    if listener.when != ALWAYS:
        yield attrs.evolve(listener, when=ALWAYS)
    if isinstance(listener, Wrap) and listener.transform != Keep():
        yield attrs.evolve(listener, transform=Keep())


def _decide_forms(command: cmd.Decide) -> Iterator[cmd.Decide]:
    for fewer in _fewer(command.listeners):
        yield cmd.Decide(fewer)
    for index, listener in enumerate(command.listeners):
        for form in _listener_forms(listener):
            yield cmd.Decide((*command.listeners[:index], form, *command.listeners[index + 1 :]))


def _stopping_forms(command: cmd.TurnStopping) -> Iterator[cmd.TurnStopping]:
    for fewer in _fewer(command.actions):
        yield attrs.evolve(command, actions=fewer)


SIMPLER: Mapping[type, Callable[[object], Iterator[object]]] = MappingProxyType({
    cmd.Decide: _decide_forms,  # type: ignore[dict-item]
    cmd.TurnStopping: _stopping_forms,  # type: ignore[dict-item]
})


def simpler_forms(command: object) -> Iterator[object]:
    """Each form of ``command`` one step simpler (none for a command without parts to drop)."""
    forms = SIMPLER.get(type(command))
    return forms(command) if forms is not None else iter(())
