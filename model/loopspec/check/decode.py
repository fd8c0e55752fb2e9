"""Typed decoding of streamed ``assistant/chunk`` lines, for the checker's fast path.

Most lines of a real session log are streamed chunks, which only have to carry the next seq and
name the open step (LOG-2, LOG-3).  :mod:`msgspec` decodes such a line straight into the frozen
shapes below in one C pass, validating the shape as it goes (objects where objects belong, integer
tokens where integers belong: ``1.0`` and ``true`` are refused, strings are valid UTF-8), without
building a dict for keys the checker never reads.  On this machine that costs about two thirds
of orjson building the line as dicts (docs/performance.md).

The fast path may only take a line the general path (:func:`loopspec.check.reader.parse_line` and
:meth:`loopspec.check.machine.LogChecker.feed_event`) would judge the same.  A chunk payload of a
shape not listed here, or any other deviation, makes the decode fail and the line go to the
general path, whose parse carries the input policy (what a repeated key or an integral float
means, decisions.md).  Payloads are typed, not skipped as ``msgspec.Raw``: a skipped value is not
checked for valid UTF-8 or finite numbers, which the general path refuses (LOG-1).

A key repeated in one object: msgspec, like orjson and ``JSON.parse``, keeps the last one (and
refuses a repeat whose value has the wrong type, which only sends the line to the general path).
When the policy refuses repeated keys (:data:`REFUSE_REPEATED_KEYS`), the fast path takes only
lines :func:`repeats_no_key` proves free of them, by counting colons: every member of an object
has one colon after its key, and any other colon byte sits in a string, written as ``:`` when the
line holds no ``\\u`` escape.  Every object of a chunk line decodes into a shape that refuses
unknown keys, so ``colon bytes == members decoded + colons in the decoded strings`` exactly when
no member was overwritten (a repeat adds its colon, and its lost value's colons, to the line
only).
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, Struct, UnsetType

from loopspec.log.kinds import ASSISTANT_CHUNK

# The input policy for a key repeated in one object (decisions.md G3): the general path refuses
# such a line (LOG-1), so the fast path takes only lines repeats_no_key proves free of repeats
# (tests/check/test_check_fast_path.py tests both settings).
REFUSE_REPEATED_KEYS = True
CHUNK_PREFIX = b'{"type":"' + ASSISTANT_CHUNK.encode() + b'",'
DecodeError = msgspec.DecodeError
ENVELOPE_AND_SCOPE = 7  # type, seq, time, data; data's turn, step, chunk


class _Shape(Struct, forbid_unknown_fields=True, frozen=True):
    """A JSON object with exactly these keys (absent optional ones are UNSET)."""


# ---- assistant/chunk payloads: each counts its colon bytes (members + colons in its strings) ----


class _Payload(_Shape, tag_field="type", frozen=True):
    def colon_bytes(self) -> int:
        raise NotImplementedError


class TextDelta(_Payload, tag="text-delta", frozen=True):
    index: int
    text: str

    def colon_bytes(self) -> int:
        return 3 + self.text.count(":")


class BlockStart(_Payload, tag="block-start", frozen=True):
    index: int
    blockType: str  # noqa: N815 - the log's own key

    def colon_bytes(self) -> int:
        return 3 + self.blockType.count(":")


class TextBlock(_Shape, tag_field="type", tag="text", frozen=True):
    text: str

    def colon_bytes(self) -> int:
        return 2 + self.text.count(":")


class ToolCallBlock(_Shape, tag_field="type", tag="tool-call", frozen=True):
    id: str
    name: str
    arguments: str

    def colon_bytes(self) -> int:
        return 4 + self.id.count(":") + self.name.count(":") + self.arguments.count(":")


class BlockEnd(_Payload, tag="block-end", frozen=True):
    index: int
    block: TextBlock | ToolCallBlock

    def colon_bytes(self) -> int:
        return 3 + self.block.colon_bytes()


class ToolCallDelta(_Payload, tag="tool-call-delta", kw_only=True, frozen=True):
    index: int
    id: str
    name: str | UnsetType = UNSET
    argumentsDelta: str  # noqa: N815

    def colon_bytes(self) -> int:
        named = 0 if self.name is UNSET else 1 + self.name.count(":")
        return 4 + named + self.id.count(":") + self.argumentsDelta.count(":")


class Kind(_Shape, frozen=True):
    kind: str


class Finish(_Payload, tag="finish", frozen=True):
    reason: Kind

    def colon_bytes(self) -> int:
        return 3 + self.reason.kind.count(":")


class Tokens(_Shape, frozen=True):
    inputTokens: int  # noqa: N815
    outputTokens: int  # noqa: N815


class Usage(_Payload, tag="usage", frozen=True):
    usage: Tokens

    def colon_bytes(self) -> int:
        return 4


class ChunkScope(_Shape, frozen=True):
    turn: int
    step: int
    chunk: TextDelta | BlockStart | BlockEnd | ToolCallDelta | Finish | Usage


class Chunk(_Shape, tag_field="type", tag=ASSISTANT_CHUNK, frozen=True):
    """``{type: "assistant/chunk", seq, time, data: {turn, step, chunk}}`` and nothing else."""

    seq: int
    time: int
    data: ChunkScope


def repeats_no_key(line: bytes, chunk: Chunk) -> bool:
    """Whether ``line``, decoded as ``chunk``, repeats no key in any of its objects (exact; see above)."""
    # ``92 in line`` is a memchr for a backslash: far cheaper than a search for the two bytes of
    # an escape, and than line.find(92), which takes the general search (150 ns against 26 ns a
    # line here, docs/performance.md).
    return (92 not in line or line.find(b"\\u") < 0) and (
        line.count(58) == ENVELOPE_AND_SCOPE + chunk.data.chunk.colon_bytes()
    )


decode_chunk = msgspec.json.Decoder(Chunk).decode
