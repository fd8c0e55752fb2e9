"""Is a line a torn tail: a proper prefix of one JSON object? (spec rule LOG-5)

A crash in the middle of an append leaves the log's last line cut short and without its newline.
Such a line does not parse, but neither does binary garbage; the difference is that every
character of a torn line is still a legal continuation of a JSON object.  This recognizer walks
the text once with a stack of open containers and answers exactly that, so ``--allow-torn-tail``
forgives a crash and never hides garbage.
"""

from __future__ import annotations

import re

_WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
# Prefixes of a number: an exponent may only follow a digit ("1.e5" is not JSON).
_NUMBER_PREFIX = re.compile(r"-?(?:(?:0|[1-9]\d*)(?:\.\d*)?(?:(?<=\d)[eE][+-]?\d*)?)?")
_LITERALS = ("true", "false", "null")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrt')

# What the walker expects next.
_VALUE, _VALUE_OR_CLOSE, _KEY_OR_CLOSE, _KEY, _COLON, _COMMA_OR_CLOSE = range(6)


def _string_end(text: str, i: int) -> int | None:
    """Index after the string opening at ``text[i]``; ``len(text)`` if cut off; None if illegal."""
    n = len(text)
    i += 1
    while i < n:
        c = text[i]
        if c == '"':
            return i + 1
        if c < " ":
            return None  # raw control characters are not allowed inside JSON strings
        if c == "\\":
            if i + 1 >= n:
                return n
            e = text[i + 1]
            if e == "u":
                digits = text[i + 2 : i + 6]
                if any(d not in _HEX for d in digits):
                    return None
                if len(digits) < 4:
                    return n
                i += 6
                continue
            if e not in _ESCAPES:
                return None
            i += 2
            continue
        i += 1
    return n


def _token_end(text: str, i: int, allowed: str) -> int:
    n = len(text)
    while i < n and text[i] in allowed:
        i += 1
    return i


def is_object_prefix(text: str) -> bool:
    """True when ``text`` is a proper prefix of a JSON text whose value is an object."""
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    if i == n or text[i] != "{":
        return False
    stack: list[str] = []
    expect = _VALUE
    while i < n:
        c = text[i]
        if c in _WS:
            i += 1
            continue
        if expect in (_VALUE, _VALUE_OR_CLOSE):
            if c in "{[":
                stack.append(c)
                expect = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                i += 1
                continue
            if c == "]" and expect == _VALUE_OR_CLOSE:
                stack.pop()
                i += 1
            elif c == '"':
                end = _string_end(text, i)
                if end is None:
                    return False
                i = end
            elif c == "-" or c.isdigit():
                end = _token_end(text, i, "0123456789+-.eE")
                token = text[i:end]
                if end == n:
                    return _NUMBER_PREFIX.fullmatch(token) is not None
                if _NUMBER.fullmatch(token) is None:
                    return False
                i = end
            elif c in "tfn":
                end = _token_end(text, i, "truefalsn")
                token = text[i:end]
                if end == n:
                    return any(lit.startswith(token) for lit in _LITERALS)
                if token not in _LITERALS:
                    return False
                i = end
            else:
                return False
            if not stack:
                return False  # the object is complete: this line is not torn
            expect = _COMMA_OR_CLOSE
        elif expect in (_KEY_OR_CLOSE, _KEY):
            if c == "}" and expect == _KEY_OR_CLOSE:
                stack.pop()
                i += 1
                if not stack:
                    return False
                expect = _COMMA_OR_CLOSE
                continue
            if c != '"':
                return False
            end = _string_end(text, i)
            if end is None:
                return False
            i = end
            expect = _COLON
        elif expect == _COLON:
            if c != ":":
                return False
            i += 1
            expect = _VALUE
        else:  # _COMMA_OR_CLOSE
            top = stack[-1]
            if c == ",":
                expect = _KEY if top == "{" else _VALUE
            elif (c == "}" and top == "{") or (c == "]" and top == "["):
                stack.pop()
                if not stack:
                    return False
            else:
                return False
            i += 1
    return True
