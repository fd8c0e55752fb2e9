"""Reading and validating a recording: files → :class:`~loopspec.reproduce.records.Recording`.

Anything the format (``examples/recordings/README.md``) does not describe makes the recording
unusable (:class:`Unusable`, exit 2) before any comparison, naming the file, the line and what is
wrong: an unknown record ``kind``, live ``type``, pre-step ``phase`` or call, a missing or unknown
field, a call without its ``op-end``.  The engine reads what it replays (a call it knows with
its arguments, errors as text, as a recording writes them: decisions.md G4), then holds the
record to the live checker's form (:func:`loopspec.check.live_shape.live_record_problem`, the
shape of live-record.schema.json) for what its own reading does not look at (bounds, turn 0).
Nothing is skipped silently.  JSON is read strictly, as the real writer (``JSON.stringify``)
writes it: no ``NaN``/``Infinity`` tokens, no repeated key, no blank line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from loopspec.check.live_nesting import Nesting
from loopspec.check.live_shape import live_record_problem
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import JsonObject, freeze
from loopspec.data.messages import UserMessage, shown
from loopspec.log.events import SessionEvent
from loopspec.log.json_fault import why_not_json
from loopspec.log.kinds import (
    AGENT_ERROR,
    AGENT_STATUS,
    CLAIMED,
    DISCARDED,
    INSERTED,
    PRE_STEP_HOOK,
    TURN_STOPPING_HOOK,
)
from loopspec.log.reader import read_events
from loopspec.reproduce import records as r
from loopspec.reproduce.calls import CALLS, call_name


class Unusable(Exception):
    """The input is not a recording this engine can reproduce (exit 2); nothing was compared."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.message = path, line, message


def unreadable(err: OSError | UnicodeDecodeError) -> str:
    """Why a file could not be read, in words (not Python's repr): "cannot read (Is a directory)"."""
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text (byte {err.start} of the file)"
    return f"cannot read ({err.strerror or err})"


def _no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constants(token: str) -> object:
    raise ValueError(f"{token} is not JSON")


def parse_json(text: str, path: Path, line: int | None) -> object:
    try:
        return json.loads(text, object_pairs_hook=_no_repeats, parse_constant=_no_constants)
    except (ValueError, RecursionError) as err:
        raise Unusable(path, line, f"not valid JSON ({why_not_json(err, text)})") from None


class _Fields:
    """Typed access to one record's fields; :meth:`done` rejects the fields nobody asked for."""

    def __init__(self, raw: dict[str, object], path: Path, line: int) -> None:
        self.raw, self.path, self.line, self.seen = raw, path, line, {"kind"}

    def fail(self, message: str) -> Unusable:
        return Unusable(self.path, self.line, message)

    def has(self, key: str) -> bool:
        return key in self.raw

    def any(self, key: str) -> object:
        if key not in self.raw:
            raise self.fail(f"'{key}' is missing")
        self.seen.add(key)
        return self.raw[key]

    def integer(self, key: str) -> int:
        value = self.any(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(f"'{key}' must be a non-negative integer, got {shown(value)}")
        return value

    def text(self, key: str) -> str:
        value = self.any(key)
        if not isinstance(value, str):
            raise self.fail(f"'{key}' must be a string, got {shown(value)}")
        return value

    def ids(self, key: str) -> r.Ids:
        value = self.any(key)
        if not (isinstance(value, list) and all(isinstance(i, str) for i in value)):
            raise self.fail(f"'{key}' must be an array of ids, got {shown(value)}")
        return tuple(value)

    def status(self, key: str) -> str:
        value = self.text(key)
        if value not in ("idle", "running"):
            raise self.fail(f"'{key}' must be 'idle' or 'running', got {value!r}")
        return value

    def message(self) -> UserMessage:
        try:
            return UserMessage.from_json(self.any("message"))
        except ValueError as err:
            raise self.fail(f"'message': {err}") from None

    def done(self) -> None:
        unknown = sorted(set(self.raw) - self.seen)
        if unknown:
            raise self.fail(f"unknown field(s) {unknown} on this {self.raw.get('kind')} record")


def _durable(f: _Fields) -> r.LiveRecord:
    return r.Marker(f.line, f.integer("seq"), f.text("type"))


def _inbox_notice(f: _Fields) -> r.LiveRecord:
    return r.Notice(f.line, f.integer("nextSeq"), f.text("type"), message=f.message())


def _claimed(f: _Fields) -> r.LiveRecord:
    return r.Notice(f.line, f.integer("nextSeq"), f.text("type"), message=f.message(), turn=f.integer("turn"))


def _status(f: _Fields) -> r.LiveRecord:
    return r.Notice(f.line, f.integer("nextSeq"), f.text("type"), status=f.status("status"))


def _error(f: _Fields) -> r.LiveRecord:
    return r.Notice(f.line, f.integer("nextSeq"), f.text("type"), turn=f.integer("turn"), step=f.integer("step"),
                    error=f.text("error"))


def _invoked(f: _Fields) -> r.LiveRecord:
    return r.PreStepInvoked(f.line, f.integer("nextSeq"), f.integer("turn"), f.integer("step"), f.ids("messageIds"))


def _decided(f: _Fields) -> r.LiveRecord:
    decision = f.any("decision")
    kind = decision.get("kind") if isinstance(decision, dict) else None
    if kind == "reject" and isinstance(decision, dict) and set(decision) == {"kind"}:
        return r.PreStepDecided(f.line, f.integer("nextSeq"), f.integer("turn"), f.integer("step"), "reject")
    ids = decision.get("messageIds") if isinstance(decision, dict) else None
    if kind == "enter" and isinstance(decision, dict) and set(decision) == {"kind", "messageIds"} and \
            isinstance(ids, list) and all(isinstance(i, str) for i in ids):
        return r.PreStepDecided(f.line, f.integer("nextSeq"), f.integer("turn"), f.integer("step"), "enter", tuple(ids))
    raise f.fail(f"'decision' must be {{kind: reject}} or {{kind: enter, messageIds}}, got {shown(decision)}")


def _threw(f: _Fields) -> r.LiveRecord:
    return r.PreStepThrew(f.line, f.integer("nextSeq"), f.integer("turn"), f.integer("step"), f.text("error"))


_PRE_STEP: Mapping[str, Callable[[_Fields], r.LiveRecord]] = MappingProxyType(
    {"invoked": _invoked, "decided": _decided, "threw": _threw}
)


def _pre_step(f: _Fields) -> r.LiveRecord:
    phase = f.text("phase")
    if phase not in _PRE_STEP:
        raise f.fail(f"unknown agent/pre-step phase {phase!r} (known: {', '.join(_PRE_STEP)})")
    return _PRE_STEP[phase](f)


_TURN_STOPPING: Mapping[str, Callable[[_Fields], r.LiveRecord]] = MappingProxyType({
    "invoked": lambda f: r.TurnStoppingInvoked(f.line, f.integer("nextSeq"), f.integer("turn")),
    "returned": lambda f: r.TurnStoppingReturned(f.line, f.integer("nextSeq"), f.integer("turn")),
    "threw": lambda f: r.TurnStoppingThrew(f.line, f.integer("nextSeq"), f.integer("turn"), f.text("error")),
})


def _turn_stopping(f: _Fields) -> r.LiveRecord:
    phase = f.text("phase")
    if phase not in _TURN_STOPPING:
        raise f.fail(f"unknown agent/turn-stopping phase {phase!r} (known: {', '.join(_TURN_STOPPING)})")
    return _TURN_STOPPING[phase](f)


_LIVE: Mapping[str, Callable[[_Fields], r.LiveRecord]] = MappingProxyType({
    INSERTED: _inbox_notice,
    DISCARDED: _inbox_notice,
    CLAIMED: _claimed,
    AGENT_STATUS: _status,
    AGENT_ERROR: _error,
    PRE_STEP_HOOK: _pre_step,
    TURN_STOPPING_HOOK: _turn_stopping,
})


def _live(f: _Fields) -> r.LiveRecord:
    rtype = f.text("type")
    if rtype not in _LIVE:
        raise f.fail(f"unknown live record type {rtype!r} (known: {', '.join(_LIVE)})")
    return _LIVE[rtype](f)


def _args(f: _Fields) -> tuple[str, str, JsonObject]:
    label, args = f.text("op"), f.any("args")
    op = call_name(label)
    if op not in CALLS:
        raise f.fail(f"unknown call {op!r} in op {label!r} (known: {', '.join(CALLS)})")
    if not isinstance(args, dict):
        raise f.fail(f"'args' must be an object, got {shown(args)}")
    frozen = freeze(args)
    assert isinstance(frozen, JsonObject)
    try:
        CALLS[op].check_keys(frozen)
        CALLS[op].build(frozen, UserMessage.create)  # the argument values, checked before any comparison
    except ValueError as err:
        raise f.fail(f"{op}: {err}") from None
    return op, label, frozen


def _within(f: _Fields) -> str | None:
    """The listener hook a call was made from (its form is the live checker's: live_shape)."""
    return f.text("within") if f.has("within") else None


def _op_begin(f: _Fields) -> r.LiveRecord:
    op, label, args = _args(f)
    return r.OpBegin(f.line, op, label, args, f.integer("nextSeq"), _within(f))


def _op_end(f: _Fields) -> r.LiveRecord:
    op, label, args = _args(f)
    before, after, within = f.integer("nextSeqBefore"), f.integer("nextSeqAfter"), _within(f)
    if f.has("result") == f.has("threw"):
        raise f.fail("an op-end holds exactly one of 'result' and 'threw'")
    if f.has("threw"):
        return r.OpEnd(f.line, op, label, args, before, after, threw=f.text("threw"), within=within)
    return r.OpEnd(f.line, op, label, args, before, after, result=freeze(f.any("result")), within=within)


def _note(f: _Fields) -> r.LiveRecord:
    crash = f.any("crash") if f.has("crash") else None
    if crash is not None and not isinstance(crash, bool):
        raise f.fail(f"'crash' must be a boolean, got {shown(crash)}")
    return r.Note(
        f.line, f.text("text"),
        next_seq=f.integer("nextSeq") if f.has("nextSeq") else None,
        next_turn=f.ids("nextTurn") if f.has("nextTurn") else None,
        next_step=f.ids("nextStep") if f.has("nextStep") else None,
        status=f.status("status") if f.has("status") else None,
        event_count=f.integer("eventCount") if f.has("eventCount") else None,
        crash=crash,
    )


# The record kinds of NAME.live.jsonl; a kind not listed here is unusable input, never skipped.
KINDS: Mapping[str, Callable[[_Fields], r.LiveRecord]] = MappingProxyType({
    "durable": _durable, "live": _live, "op-begin": _op_begin, "op-end": _op_end, "note": _note,
})


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise Unusable(path, None, unreadable(err)) from None
    return text.splitlines()


def _raw_record(raw: object, path: Path, line: int) -> tuple[r.LiveRecord, dict[str, object]]:
    if not isinstance(raw, dict):
        raise Unusable(path, line, f"a record must be a JSON object, got {type(raw).__name__}")
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise Unusable(path, line, f"unknown record kind {shown(kind)} (known: {', '.join(KINDS)})")
    fields = _Fields(raw, path, line)
    record = KINDS[kind](fields)  # what the engine replays: the calls it knows, texts, in its own words
    fields.done()
    problem = live_record_problem(raw)  # and the whole form live-record.schema.json gives the record
    if problem is not None:
        raise Unusable(path, line, problem.message)
    return record, raw


def read_record(raw: object, path: Path, line: int) -> r.LiveRecord:
    """One record of a ``NAME.live.jsonl`` (line ``line`` of ``path``), validated on its own."""
    return _raw_record(raw, path, line)[0]


def read_live(path: Path) -> tuple[r.LiveRecord, ...]:
    """The records of a ``NAME.live.jsonl``, validated, with every call paired with its end and nested
    only as a listener's call inside its listener's window or right after its notification
    (:mod:`loopspec.check.live_nesting`)."""
    out: list[r.LiveRecord] = []
    nesting = Nesting()
    for line, text in enumerate(_lines(path), start=1):
        record, raw = _raw_record(parse_json(text, path, line), path, line)
        misplaced = nesting.feed(line, raw)
        if misplaced is not None:
            raise Unusable(path, line, misplaced)
        out.append(record)
    unclosed = nesting.finish()
    if unclosed is not None:
        raise Unusable(path, nesting.calls[0].line if nesting.calls else None, unclosed)
    return tuple(out)


def read_log(path: Path) -> tuple[SessionEvent, ...]:
    """The durable log; a line that is not an event, or a seq that is not its index, is unusable."""
    try:
        events = tuple(read_events(path))
    except InvalidEvent as err:  # LOG-2 among them: the markers name events by seq, so seq must be the index
        line = err.line if err.line is not None else None if err.seq is None else err.seq + 1
        raise Unusable(path, line, f"not a session log: {err}") from None
    except UnicodeDecodeError as err:
        raise Unusable(path, None, f"not a session log: {unreadable(err)}") from None
    except OSError as err:
        raise Unusable(path, None, unreadable(err)) from None
    return events
