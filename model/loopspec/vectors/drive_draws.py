"""How ``loopspec drive`` turns Hypothesis' choices into commands.

Each command is one unit for the shrinker: a span of integer choices, each an index into the
options the generator (:mod:`.command_gen`, :mod:`.profile_gen`) offers, so a failing sequence
shrinks toward earlier options.  :class:`SpanChooser` draws the choices straight from the choice
sequence (the fast path); :func:`command_for` is the same through public strategies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from hypothesis import strategies as st

from loopspec.vectors.profile_gen import ProfileGenerator
from loopspec.vectors.reference_model import Model, VectorCommand
from loopspec.vectors.swarm import Swarm

T = TypeVar("T")


class IntegerStrategies:
    """``st.integers(low, high)`` built once per range for one drive run (building one costs more than a draw)."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, int], st.SearchStrategy[int]] = {}

    def __call__(self, low: int, high: int) -> st.SearchStrategy[int]:
        made = self._made.get((low, high))
        if made is None:
            made = self._made[(low, high)] = st.integers(low, high)
        return made


class DrawChooser:
    """Choices drawn through a Hypothesis ``draw``, so failing sequences shrink toward earlier options."""

    def __init__(self, draw: Callable[[st.SearchStrategy[int]], int],
                 integers: Callable[[int, int], st.SearchStrategy[int]] = st.integers) -> None:
        self.draw = draw
        self.integers = integers

    def pick(self, options: Sequence[T]) -> T:
        # An index, not sampled_from: building a strategy per choice costs more than the model step.
        return options[self.draw(self.integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self.draw(self.integers(low, high))


COMMAND_SPAN = 0x10005EC  # labels of our own for the spans of one command's choices
SWARM_SPAN = 0x10005ED  # and of an example's command mix


class SpanChooser:
    """Choices drawn straight from Hypothesis' choice sequence, one span per command.

    ``st.integers(low, high).draw`` costs about three times the choice itself (strategy
    validation, a span per draw); drive makes a dozen choices per command, so this takes most of
    the search's time.  Small ranges draw exactly as ``st.integers`` does (no weights below 128
    values), and the span keeps a command a unit for the shrinker, as ``command_for`` does.  It
    relies on ``ConjectureData.draw_integer``/``start_span``/``stop_span``; :func:`fast_draws`
    says whether the installed Hypothesis has them, else drive uses :func:`command_for`.
    """

    def __init__(self, data: object) -> None:
        self.data = data

    def pick(self, options: Sequence[T]) -> T:
        return options[self.data.draw_integer(0, len(options) - 1)]  # type: ignore[attr-defined]

    def integer(self, low: int, high: int) -> int:
        return int(self.data.draw_integer(low, high))  # type: ignore[attr-defined]


def fast_draws(data: st.DataObject) -> object | None:
    """The ConjectureData behind ``data`` when it offers what :class:`SpanChooser` needs, else None."""
    conjecture = getattr(data, "conjecture_data", None)
    needed = ("draw_integer", "start_span", "stop_span")
    return conjecture if all(callable(getattr(conjecture, n, None)) for n in needed) else None


def draw_command(data: st.DataObject, model: Model, serial: int, profile: str,
                 integers: Callable[[int, int], st.SearchStrategy[int]], swarm: Swarm | None = None,
                 stops: tuple[str, ...] = ()) -> VectorCommand:
    """One command: through :class:`SpanChooser` when possible, else as one ``command_for`` draw."""
    conjecture = fast_draws(data)
    if conjecture is None:
        return data.draw(command_for(model, serial, profile, integers, swarm, stops))
    conjecture.start_span(COMMAND_SPAN)  # type: ignore[attr-defined]
    command = ProfileGenerator(SpanChooser(conjecture), profile, serial, swarm, stops).next_command(model)
    conjecture.stop_span()  # type: ignore[attr-defined]
    return command


def draw_swarm(data: st.DataObject, integers: Callable[[int, int], st.SearchStrategy[int]]) -> Swarm:
    """An example's command mix (:class:`~loopspec.vectors.swarm.Swarm`), drawn before its commands."""
    conjecture = fast_draws(data)
    if conjecture is None:
        return data.draw(swarms(integers))
    conjecture.start_span(SWARM_SPAN)  # type: ignore[attr-defined]
    swarm = Swarm.draw(SpanChooser(conjecture))
    conjecture.stop_span()  # type: ignore[attr-defined]
    return swarm


@st.composite
def command_for(draw: st.DrawFn, model: Model, serial: int, profile: str = "full",
                integers: Callable[[int, int], st.SearchStrategy[int]] = st.integers,
                swarm: Swarm | None = None, stops: tuple[str, ...] = ()) -> VectorCommand:
    """One command as one Hypothesis draw, so the shrinker can delete or simplify it as a unit."""
    return ProfileGenerator(DrawChooser(draw, integers), profile, serial, swarm, stops).next_command(model)


@st.composite
def swarms(draw: st.DrawFn, integers: Callable[[int, int], st.SearchStrategy[int]] = st.integers) -> Swarm:
    """An example's command mix, drawn first so it shrinks toward the plain generator's."""
    return Swarm.draw(DrawChooser(draw, integers))
