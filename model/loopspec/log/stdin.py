"""A command line's ``-`` (standard input) as a log file: :func:`spool` copies it to a temporary
file, so every reader, serial or in worker processes, reads a path.

Apart from :mod:`loopspec.log.reader` (which re-exports it) because ``loopspec check`` needs only
this, not the reader's model events (start-up time, docs/performance.md).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import BinaryIO

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"


def spool(stream: BinaryIO, folder: str) -> str:
    """Copy ``stream`` (standard input) into ``folder``; the file is named ``stdin.events.jsonl``,
    with ``.gz`` added when the bytes are gzip-compressed, so it is read as it was written."""
    import shutil

    head = stream.read(2)
    path = os.path.join(folder, "stdin.events.jsonl.gz" if head == GZIP_MAGIC else "stdin.events.jsonl")
    with open(path, "wb") as out:
        out.write(head)
        shutil.copyfileobj(stream, out)
    return path
