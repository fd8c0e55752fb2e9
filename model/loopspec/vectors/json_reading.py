"""Strict reading of the command language's JSON (``spec/command-language.md``).

Closed objects, exact types and JavaScript numbers that keep NaN, ±Infinity and ``-0`` (which
JSON cannot write; NORM-1 … NORM-5 depend on them).  Every defect raises :class:`CodecError`
naming where it is, never a bare ``KeyError``/``TypeError``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from loopspec.data.messages import InboxTarget, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber, is_negative_zero

Json = dict[str, object]
SPECIAL_NUMBERS: Mapping[str, float] = MappingProxyType(
    {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0})


class CodecError(ValueError):
    """A JSON value that is not a command (or part of one) of the command language."""


def encode_number(x: JsNumber) -> int | float | str:
    """A js-number: a JSON number when finite and not -0, else one of the four strings."""
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        if is_negative_zero(x):
            return "-0"
    return x


def decode_number(raw: object, where: str) -> JsNumber:
    if isinstance(raw, str) and raw in SPECIAL_NUMBERS:
        return SPECIAL_NUMBERS[raw]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise CodecError(f"{where}: a js-number is a JSON number or one of {sorted(SPECIAL_NUMBERS)}, got {raw!r}")
    return raw


def read_object(raw: object, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Json:
    if not isinstance(raw, dict):
        raise CodecError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    missing = [k for k in required if k not in raw]
    if missing:
        raise CodecError(f"{where}: missing key(s) {missing}")
    unknown = sorted(set(raw) - set(required) - set(optional))
    if unknown:
        raise CodecError(f"{where}: unknown key(s) {unknown}")
    return raw


def read_str(raw: object, where: str) -> str:
    if not isinstance(raw, str):
        raise CodecError(f"{where}: expected a string, got {raw!r}")
    return raw


def read_bool(raw: object, where: str) -> bool:
    if not isinstance(raw, bool):
        raise CodecError(f"{where}: expected a boolean, got {raw!r}")
    return raw


def read_list(raw: object, where: str) -> list[object]:
    if not isinstance(raw, list):
        raise CodecError(f"{where}: expected an array, got {type(raw).__name__}")
    return raw


def decode_message(raw: object, where: str = "message") -> UserMessage:
    try:
        return UserMessage.from_json(raw)
    except ValueError as err:
        raise CodecError(f"{where}: {err}") from None


def decode_messages(raw: object, where: str) -> Messages:
    return tuple(decode_message(m, f"{where}[{i}]") for i, m in enumerate(read_list(raw, where)))


def encode_messages(messages: Messages) -> list[object]:
    return [m.to_json() for m in messages]


def read_target(raw: object, where: str) -> InboxTarget:
    try:
        return InboxTarget.parse(raw)
    except ValueError as err:
        raise CodecError(f"{where}: {err}") from None
