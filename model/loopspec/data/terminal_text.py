"""Text from the user's files written for a terminal: each control character as its JSON escape.

An id holding ``ESC[2J`` would clear the screen, one holding a carriage return could print a fake
line over a verdict.  :func:`escaped` writes every control character but newline and tab (C0,
DEL, C1) as ``\\u001b``, which inside a JSON string stands for the same character, so the same
function serves text reports and JSON ones.  The command line escapes all it writes
(:mod:`loopspec.cli.terminal`); a report that wraps its lines escapes first, since wrapping would
otherwise read a carriage return as a space.
"""

from __future__ import annotations

import re
from typing import TextIO

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escaped(text: str) -> str:
    """``text`` with every control character but newline and tab written as ``\\uXXXX``."""
    return _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def write_meter(stream: TextIO, text: str) -> None:
    """A progress meter's own line, whose carriage returns rewrite it in place: written as it is
    (through ``write_unescaped`` when the command line escapes ``stream``); the meter escapes any
    value it shows itself."""
    getattr(stream, "write_unescaped", stream.write)(text)
