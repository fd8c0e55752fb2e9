"""Every log and live rule, applied to what an implementation wrote (``spec/adapter-protocol.md``, Audit).

Comparing observations with the model leaves out each event's ``time``; the rules that speak
about time (REPAIR-3) and the protocol's time policy are checked here instead, together with
every other rule the log checker and the live checker enforce, over what the adapter itself
reported for one vector case or one ``drive`` example:

* the **time policy**: within a case each event's time is greater than the time of the event
  before it, except crash repair's closers, which carry exactly the time of the last event
  before the restart (REPAIR-3);
* the **log checker** (:mod:`loopspec.check`) over the case's accumulated durable events;
* the **live checker** over the stream the observations describe: each event is a durable marker,
  each notification sits where its ``nextSeq`` puts it, and a ``restart`` is a process boundary
  (a crash note, then the new process, whose repair closers and end-seed marker go unmarked).

A finding names the rule (or ``time-policy``) and the seq; the tools fail a case or an example
with findings even when every observation matched.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

import attrs

from loopspec.check.live import check_live
from loopspec.check.machine import LogChecker
from loopspec.check.reader import write_back
from loopspec.check.verdict import CheckOptions
from loopspec.log.kinds import END_SEED
from loopspec.vectors.json_reading import Json
from loopspec.vectors.profiles import Profile

TIME_POLICY = "time-policy"
MAX_FINDINGS = 20
CRASH_NOTE: Json = {"kind": "note", "text": "restart: the process stops here", "crash": True}
NEW_PROCESS_NOTE: Json = {"kind": "note", "text": "restart: a new process loaded the log"}


@attrs.frozen
class Finding:
    """One broken rule in what an implementation wrote: the rule ID (or ``time-policy``), where, what."""

    rule: str
    seq: int | None
    message: str

    def render(self) -> str:
        where = f" at seq {self.seq}" if self.seq is not None else ""
        return f"{self.rule}{where}: {self.message}"


def _dicts(value: object) -> list[Json]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _is_closer(op: str, event: Json) -> bool:
    """Crash repair's closers: what a restart writes before its end-seed marker (REPAIR-1)."""
    return op == "restart" and event.get("type") != END_SEED


def time_policy(steps: Sequence[tuple[str, Json]]) -> list[Finding]:
    """Each event's time is greater than the one before it; repair closers copy it exactly (REPAIR-3).

    The closers are known here (what a ``restart`` writes before its end-seed marker), so each one
    is compared with the last event before the restart — the log checker, reading a log alone,
    can only compare the closing ``turn/end`` with the event just before it, which a re-stamped
    ``step/end`` closer would make look right.
    """
    findings: list[Finding] = []
    previous: int | None = None
    for op, observation in steps:
        before = previous
        for event in _dicts(observation.get("events")):
            time, raw_seq = event.get("time"), event.get("seq")
            seq = raw_seq if isinstance(raw_seq, int) else None
            if not isinstance(time, int) or isinstance(time, bool):
                continue  # LOG-1 reports it
            if _is_closer(op, event):
                if before is not None and time != before:
                    findings.append(Finding("REPAIR-3", seq, f"crash-repair closer {event.get('type')} has time "
                                                            f"{time}, the last event before the restart {before}"))
            elif previous is not None and time <= previous:
                findings.append(Finding(TIME_POLICY, seq, f"time {time} is not after the previous event's time "
                                                          f"{previous}"))
            previous = time
    return findings


def live_stream(steps: Sequence[tuple[str, Json]]) -> list[Json]:
    """The live stream the observations describe, as ``loopspec check --live`` reads one.

    A ``cancel`` is also a recorded call (op-begin, its records, op-end): it may write nothing (with
    keepInbox), and the live checker must know that one was made, to let a chaining turn end's next
    turn never start (CHAIN-1; a cancel at the hop between them, spec/loop-grain.md row 19)."""
    records: list[Json] = []
    next_seq = 0
    for op, observation in steps:
        if observation.get("ok") is not True:
            continue
        events = _dicts(observation.get("events"))
        notes = _dicts(observation.get("notifications"))
        before = next_seq
        for event in events:
            seq = event.get("seq")
            next_seq = seq + 1 if isinstance(seq, int) and not isinstance(seq, bool) else next_seq
        if op == "cancel":
            records.append({"kind": "op-begin", "op": op, "args": {}, "nextSeq": before})
            records.extend(_records(events, notes))
            records.append({"kind": "op-end", "op": op, "args": {}, "nextSeqBefore": before,
                            "nextSeqAfter": next_seq, "result": None})
            continue
        if op == "restart":  # a process boundary: the new process's repair writes go unmarked (LOG-5)
            records.extend((CRASH_NOTE, NEW_PROCESS_NOTE))
            records.extend({"kind": "live", **n} for n in notes)
            continue
        records.extend(_records(events, notes))
    return records


def _records(events: list[Json], notes: list[Json]) -> list[Json]:
    """One observation's events and notifications interleaved by each notification's ``nextSeq``."""
    records: list[Json] = []
    pending = list(notes)
    for event in events:
        seq = event.get("seq")
        while pending and isinstance(seq, int) and _next_seq(pending[0]) <= seq:
            records.append({"kind": "live", **pending.pop(0)})
        records.append({"kind": "durable", "seq": seq, "type": event.get("type")})
    records.extend({"kind": "live", **n} for n in pending)
    return records


def _next_seq(note: Json) -> int:
    value = note.get("nextSeq")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _line(record: Json) -> bytes:
    """One record as a line's bytes: orjson when installed (the checker parses it right back, to the
    same value), else the standard library, which also writes what orjson refuses (a lone surrogate,
    an integer beyond 64 bits)."""
    if write_back is not None:
        try:
            return write_back(record)
        except TypeError:
            pass
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()


def _lines(records: Sequence[Json]) -> bytes:
    return b"".join([_line(r) + b"\n" for r in records])


def checked(steps: Sequence[tuple[str, Json]], profile: Profile) -> list[Finding]:
    """The log checker's and the live checker's violations of what the observations show."""
    events = [e for op, o in steps if o.get("ok") is True for e in _dicts(o.get("events"))]
    live = live_stream(steps)
    options = CheckOptions(all=True, max_violations=MAX_FINDINGS)
    checker = LogChecker("case", options)
    outcome = check_live(io.BytesIO(_lines(events)), io.BytesIO(_lines(live)), checker, "live", options)
    return [Finding(v.rule, v.seq, v.message) for v in (*checker.found(), *outcome.violations)
            if v.rule not in profile.unaudited]


def audit(steps: Sequence[tuple[str, Json]], profile: Profile) -> tuple[Finding, ...]:
    """Everything wrong with what one case's commands (``(op, observation)`` each) wrote and emitted."""
    findings: dict[tuple[str, int | None], Finding] = {}
    for finding in time_policy(steps) + checked(steps, profile):
        findings.setdefault((finding.rule, finding.seq), finding)  # both sides may see one REPAIR-3
    return tuple(findings.values())[:MAX_FINDINGS]
