"""The types of the commands' numeric options: each states its range in the usage error it raises.

argparse turns :class:`argparse.ArgumentTypeError` into ``argument --ids: must be 1 to 6, got 9``
with the subcommand's usage, exit 2; a plain ``type=int`` would name the Python type instead and
leave the range to a later, less clear error.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _range_text(low: int, high: int | None) -> str:
    return f"{low} or more" if high is None else f"{low} to {high}"


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An option type: a whole number from ``low`` up to ``high`` (inclusive; None: no bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number ({_range_text(low, high)}), "
                                             f"got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {_range_text(low, high)}, got {value}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in its own messages
    return parse


def any_whole_number(text: str) -> int:
    """An option type: any whole number (a seed)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def seconds(text: str) -> float:
    """An option type: a finite number of seconds greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, got {text}")
    return value


positive_int = whole_number(1)
