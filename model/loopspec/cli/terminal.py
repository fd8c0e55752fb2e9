"""What the command line writes is safe for a terminal: no value from a log reaches it raw.

Ids, bodies and paths come from the files a user hands the tool, so an id holding ``ESC[2J``
would clear the screen and one holding a carriage return could print a fake ``VALID`` line over
the real verdict.  Every text the commands write to stdout and stderr passes through
:class:`TerminalSafe`, which writes each control character (C0 but newline and tab, DEL, C1) as
its JSON escape ``\\u001b``.  Inside a JSON string that escape stands for the same character, so a
JSON report keeps its values (``json.dumps`` already escapes C0 itself); JUnit and HTML escape
their own text before this.  The adapter command is exempt: its stdout is the protocol, not a
terminal, and a JSON line there is already escaped by the encoder.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from loopspec.data.terminal_text import escaped


class TerminalSafe:
    """A text stream that escapes control characters on their way to ``inner``; the rest is ``inner``'s."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(escaped(text))
        return len(text)

    def write_unescaped(self, text: str) -> int:
        """The tool's own control characters (a progress meter's carriage return), as they are."""
        return self._inner.write(text)

    def writelines(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> object:
        # flush, isatty, fileno, encoding, buffer (binary writes: archives, compressed pages) ...
        return getattr(self._inner, name)


@contextlib.contextmanager
def terminal_safe_output() -> Iterator[None]:
    """stdout and stderr escape control characters while a command runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(out), TerminalSafe(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
