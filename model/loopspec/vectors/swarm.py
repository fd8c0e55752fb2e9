"""Swarm testing for the command generator: one example's command mix (:class:`Swarm`).

``drive`` draws a :class:`Swarm` per example and hands it to every
:class:`~loopspec.vectors.command_gen.Generator` of that example.  Half the time the swarm is a
*theme* — a coherent mix over several choices, one per group of spec areas whose paths need those
choices together (the abort window, the waterfall, long turns, odd coordinates, …); otherwise each
choice independently keeps the plain mix, favours one option (about two thirds of the draws) or
leaves some options out.  Either way an example explores a corner the plain mix reaches only
by luck.  Every draw's first option is the plain one, so Hypothesis shrinks a swarm toward the
plain generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar

import attrs

from loopspec.vectors.command_builders import COUNTS, REPLACEMENTS, RESULTS
from loopspec.vectors.command_gen import (
    ACTIONS,
    AFTER_ABORT,
    AT_HOP_CHOICES,
    COORDINATES,
    EDITS,
    HINT_CHOICES,
    ID_CHOICES,
    LANES,
    LISTENERS,
    MENU,
    PENDING_CHOICES,
    SENDS,
    STOP_CHOICES,
    TRANSFORMS,
    Chooser,
)
from loopspec.vectors.command_hints import HINTS

T = TypeVar("T")


def _labels(options: Sequence[object]) -> tuple[str, ...]:
    """The distinct options of a choice, by name (``repr`` tells ``0`` from ``-0.0``; one NaN)."""
    return tuple(dict.fromkeys(o if isinstance(o, str) else repr(o) for o in options))


SWARM_CHOICES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "menu": _labels(MENU), "edit": EDITS, "send": SENDS, "result": _labels(RESULTS),
    "listener": _labels(LISTENERS), "action": _labels(ACTIONS), "transform": TRANSFORMS,
    "id": _labels(ID_CHOICES), "pending": _labels(PENDING_CHOICES), "replacement": _labels(REPLACEMENTS),
    "listeners": _labels(COUNTS), "actions": _labels(COUNTS), "lane": LANES, "after-abort": _labels(AFTER_ABORT),
    "coordinate": COORDINATES, "hint": _labels(HINT_CHOICES), "hint-kind": tuple(HINTS),
    "stop": _labels(STOP_CHOICES), "at-hop": _labels(AT_HOP_CHOICES),
})
"""Every choice a swarm weighs, with its distinct options (the weight of an option scales all its copies)."""
_QUIET = {"cancel": 0, "restart": 0, "wrong-answer": 0}
SWARM_THEMES: Mapping[str, Mapping[str, Mapping[str, int]]] = MappingProxyType({
    # Edits where coordinates and identity matter (NORM, SPLICE, DATA): full lists, odd numbers, near ids.
    "edits": {"menu": {"answer": 1, "send": 2, "edit": 6, **_QUIET}, "edit": {"splice": 4, "replace": 2, "remove": 2},
              "lane": {"fuller": 6}, "id": {"pending": 3},
              "pending": {"near-miss": 3}, "replacement": {"same-id": 3},
              "coordinate": {"-0.0": 3, "-0.5": 3, "-1.5": 3, "nan": 2, "inf": 2, "-inf": 2, "-1": 2, "-len": 2},
              "hint": {"hinted": 4}, "hint-kind": {"long-lane": 4, "addresses": 3}},
    # The pre-step waterfall (DECIDE): two-listener chains, transforms that do not commute, listener edits.
    "waterfall": {"menu": {"answer": 2, **_QUIET}, "listeners": {"2": 6}, "listener": {"wrap": 3},
                  "transform": {"add": 3, "replace": 3, "drop-pool": 2}, "actions": {"1": 3, "2": 3},
                  "action": {"edit": 4}, "edit": {"splice": 4}, "coordinate": {"-0.0": 4, "-0.5": 4},
                  "hint": {"hinted": 4}, "hint-kind": {"listener-chains": 4}},
    # Results and what follows them (RESULT, CHAIN, STEP): long turns, max-tokens, continuations, queues.
    "results": {"menu": {"answer": 2, "send": 1, **_QUIET}, "result": {"max-tokens": 4, "tool-calls": 2},
                "send": {"steer": 3, "inject": 3, "followup": 2}, "actions": {"1": 3, "2": 3},
                "action": {"send": 3}, "hint": {"hinted": 4}, "hint-kind": {"long-turn": 4}},
    # The abort window (CANCEL): cancels, and sends, cancels and edits before the aborted turn ends.
    "cancel": {"menu": {"cancel": 3, "send": 3, "edit": 2, "answer": 1, "restart": 0, "wrong-answer": 0},
               "after-abort": {"send": 2, "cancel": 2, "edit": 2}, "send": {"inject": 2, "send": 2},
               "edit": {"append": 3, "prepend": 2}, "hint": {"hinted": 4},
               "hint-kind": {"latched-wake": 4, "abort-window": 4}},
    # Crashes and reloads (REPAIR, FOLD, TURN-1).
    "restart": {"menu": {"restart": 6, "send": 2, "wrong-answer": 0}},
    # Duplicates and addresses (DATA, SPLICE-3, SPLICE-9).
    "ids": {"menu": {"edit": 3, "send": 2}, "id": {"pending": 4, "pool": 2}, "pending": {"near-miss": 3},
            "replacement": {"same-id": 3}, "hint": {"hinted": 4}, "hint-kind": {"addresses": 4}},
    # Calls landing at the loop's hops (spec/loop-grain.md): stops, and calls rather than advance there.
    "hops": {"menu": {"cancel": 2, "send": 3, "edit": 2, "restart": 0}, "stop": {"hop": 8},
             "at-hop": {"call": 4}, "send": {"followup": 3}, "result": {"fail": 3, "request-error": 2}},
})
"""Coherent mixes over several choices, one per group of spec areas whose paths need them together."""


def _plain(_: Chooser, labels: Sequence[str]) -> tuple[int, ...]:
    return (1,) * len(labels)


def _focus(chooser: Chooser, labels: Sequence[str]) -> tuple[int, ...]:
    """One option favoured: as likely as all the others together, twice over."""
    favourite = chooser.integer(0, len(labels) - 1)
    return tuple(2 * len(labels) if i == favourite else 1 for i in range(len(labels)))


def _thin(chooser: Chooser, labels: Sequence[str]) -> tuple[int, ...]:
    """Some options left out (all of them left out falls back to the plain mix, :meth:`Swarm.mix`)."""
    return tuple(chooser.pick((1, 0)) for _ in labels)


SWARM_MODES: Mapping[str, Callable[[Chooser, Sequence[str]], tuple[int, ...]]] = MappingProxyType({
    "plain": _plain, "focus": _focus, "thin": _thin,
})
"""How a choice's weights are drawn outside a theme; plain first, so Hypothesis shrinks a swarm toward the
plain generator."""


@attrs.frozen
class Swarm:
    """One example's command mix: a weight per option of each choice in :data:`SWARM_CHOICES`."""

    weights: tuple[tuple[str, tuple[int, ...]], ...]
    # Each choice's weight by option label, derived once: drive asks :meth:`mix` for almost every
    # choice it makes, and rebuilding these dicts there took about 5% of a drive run.
    _by_label: dict[str, dict[str, int]] = attrs.field(init=False, eq=False, repr=False)
    # The choices whose options all weigh 1 (most of them, in most swarms): their mix is the options.
    _plain_names: frozenset[str] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        by_label = {name: dict(zip(SWARM_CHOICES[name], weights, strict=True)) for name, weights in self.weights}
        object.__setattr__(self, "_by_label", by_label)
        plain = frozenset(name for name, weights in self.weights if all(w == 1 for w in weights))
        object.__setattr__(self, "_plain_names", plain)

    @classmethod
    def draw(cls, chooser: Chooser) -> Swarm:
        """Half the time a theme (:data:`SWARM_THEMES`); otherwise per choice the plain mix, one option
        favoured (about two thirds of the draws), or some options left out."""
        if chooser.integer(0, 1) == 1:
            theme = SWARM_THEMES[chooser.pick(tuple(SWARM_THEMES))]
            return cls(tuple(
                (name, tuple(theme.get(name, {}).get(label, 1) for label in labels))
                for name, labels in SWARM_CHOICES.items()
            ))
        return cls(tuple((name, SWARM_MODES[chooser.pick(tuple(SWARM_MODES))](chooser, labels))
                         for name, labels in SWARM_CHOICES.items()))

    def mix(self, name: str, options: Sequence[T], labels: Sequence[str] | None = None) -> Sequence[T]:
        """``options`` weighted (each copy of an option repeated by its weight); all of them if all weigh 0.

        ``labels`` name the options where they are not strings themselves (transforms, numbers).
        """
        if name in self._plain_names:
            return options
        weight = self._by_label[name]
        names = labels if labels is not None else [o if isinstance(o, str) else repr(o) for o in options]
        mixed: list[T] = []
        for option, label in zip(options, names, strict=True):
            copies = weight[label]
            if copies == 1:
                mixed.append(option)
            elif copies:
                mixed += [option] * copies
        return mixed or options
