"""``-`` as a file argument: standard input, read once, as ``check`` and ``replay`` read it.

``render`` and ``reproduce`` take their log (or the live recording) as ``-`` too: the bytes are
copied to a temporary file (:func:`loopspec.log.stdin.spool`, gzip kept as it came) that lives
while the command runs, and the command reads that file as it reads any other.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from loopspec.log.stdin import STDIN, spool


def reads_stdin(path: Path | None) -> bool:
    return path is not None and str(path) == STDIN


@contextlib.contextmanager
def stdin_spooled(paths: Sequence[Path | None]) -> Iterator[list[Path | None]]:
    """``paths`` with the one ``-`` among them replaced by a copy of standard input (ValueError for two)."""
    if sum(reads_stdin(p) for p in paths) > 1:
        raise ValueError("standard input (-) can be read once only")
    if not any(reads_stdin(p) for p in paths):
        yield list(paths)
        return
    with tempfile.TemporaryDirectory(prefix="loopspec-stdin-") as folder:
        copy = Path(spool(sys.stdin.buffer, folder))
        yield [copy if reads_stdin(p) else p for p in paths]
