"""Reading a long log block by block finds exactly the lines a fold may read, with their index and offset.

:class:`loopspec.render.source.FoldLines` must agree with reading the file line by line and looking
at each line's first key, for any block size (a line may straddle blocks) and any mix of lines:
folded and other types, a type holding an escape, a line without a type first, a blank line, a
last line without its newline.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loopspec.render import source
from loopspec.render.source import FOLDED, FoldLines

LINES = st.sampled_from([
    b'{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}',
    b'{"type":"agent/inbox/spliced","seq":0}',
    b'{"type":"assistant/chunk","seq":0,"time":1,"data":{"text":"\\n{\\"type\\":\\"turn/end\\""}}',
    b'{"type":"x/foreign"}',
    b'{"type":"turn\\/end","seq":0}',
    b'{"seq":0,"type":"step/end"}',
    b"",
    b"[1, 2]",
    b'{"type":"user/message"',
])


def by_lines(data: bytes) -> tuple[list[tuple[int, int, bytes]], int]:
    """The reference: every line, its type read off its first key like FoldLines does."""
    found, offset, total = [], 0, 0
    for index, line in enumerate(io.BytesIO(data)):
        total += 1
        shown = line[9 : line.find(b'"', 9)] if line.startswith(b'{"type":"') else None
        if shown is None or b"\\" in shown or shown.decode() in FOLDED:
            found.append((index, offset, line.rstrip(b"\n")))
        offset += len(line)
    return found, total


@given(st.lists(LINES, max_size=30), st.booleans(), st.integers(1, 200), st.integers(-1, 30))
def test_block_reading_finds_the_lines_a_fold_reads(lines: list[bytes], newline_at_end: bool, block: int,
                                                    find: int) -> None:
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "BLOCK", block)
        reader = FoldLines(io.BytesIO(data), find)
        got = [(i, o, line.rstrip(b"\n")) for i, o, line in reader]
    expected, total = by_lines(data)
    assert got == expected
    assert reader.total == total
    if 0 <= find < total:
        assert reader.offset_of == sum(len(line) for line in io.BytesIO(data).readlines()[:find])
