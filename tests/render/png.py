"""Reading a PNG screenshot's pixels with zlib and struct (8-bit greyscale/RGB/RGBA, not interlaced).

Enough to tell a blank screenshot from a drawn one without an imaging library.
"""

from __future__ import annotations

import struct
import zlib
from collections import Counter

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> bytes per pixel at bit depth 8


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind: int, row: bytearray, prior: bytes, bpp: int) -> None:
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        up = prior[i]
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            row[i] = (row[i] + _paeth(left, up, prior[i - bpp] if i >= bpp else 0)) & 0xFF


def pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, one ``bytes`` per pixel, row by row)."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    at, chunks = len(SIGNATURE), []
    width = height = depth = colour = interlace = 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = CHANNELS[colour]
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    prior = bytes(stride)
    out: list[bytes] = []
    for y in range(height):
        start = y * (stride + 1)
        row = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(raw[start], row, prior, bpp)
        out.extend(bytes(row[x : x + bpp]) for x in range(0, stride, bpp))
        prior = bytes(row)
    return width, height, out


def colours(data: bytes) -> Counter[bytes]:
    """How many pixels have each colour."""
    return Counter(pixels(data)[2])
