"""Why one line is not JSON, said the way a person fixing the line needs it: the column within
the line and the cause, not the standard parser's "line 1 column N (char M)" of a one-line text."""

from __future__ import annotations

import json

# The standard decoder's messages, by their start, and what they expect at the place they name.
_EXPECTED = (
    ("Expecting property name", "a key in double quotes"),
    ("Expecting ':' delimiter", "a ':' after the key"),
    ("Expecting ',' delimiter", "a ',' or the closing bracket"),
    ("Expecting value", "a value"),
)
_CAUSES = (
    ("Unterminated string", "a string opened here is not closed before the end of the line"),
    ("Extra data", "more text follows the end of the JSON value"),
    ("Invalid \\uXXXX escape", "a \\u escape without four hex digits"),
    ("Invalid \\escape", "an escape sequence JSON does not have"),
)


def _cause(err: json.JSONDecodeError, found: str) -> str:
    if err.msg.startswith("Invalid control character"):
        if not found:
            return "a string is not closed before the end of the line"
        return f"a control character (U+{ord(found):04X}) inside a string; JSON writes it escaped"
    for start, expected in _EXPECTED:
        if err.msg.startswith(start):
            return f"{expected} is expected here, not {found!r}" if found else f"the line ends where {expected} is due"
    return next((cause for start, cause in _CAUSES if err.msg.startswith(start)), err.msg)


def json_fault(err: json.JSONDecodeError, text: str) -> str:
    """``column C: the cause`` for a one-line ``text`` the decoder refused with ``err`` (``line L
    column C`` in a text of several lines, such as a final-state file)."""
    content = text.rstrip("\r\n")
    if not content.strip():
        return "a blank line; every line of a session log holds one event"
    pos = min(err.pos, len(content))  # past the end: the decoder skipped the newline as white space
    found = content[pos] if pos < len(content) else ""
    start = content.rfind("\n", 0, pos) + 1
    where = f"column {pos - start + 1}"
    if "\n" in content:
        where = f"line {content.count(chr(10), 0, pos) + 1} {where}"
    return f"{where}: {_cause(err, found)}"


def why_not_json(err: BaseException, text: str | bytes) -> str:
    """What to say about a text one of the JSON readers refused: the column and cause of a syntax
    error, else the reader's own words (a NaN token, a repeated key, nesting too deep)."""
    if isinstance(err, json.JSONDecodeError):
        return json_fault(err, text.decode("utf-8", "replace") if isinstance(text, bytes) else text)
    return str(err) or type(err).__name__
