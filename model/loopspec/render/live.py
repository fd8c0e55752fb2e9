"""A live recording (``NAME.live.jsonl``) as notices placed in the log's order.

Every record carries the log's length when it was written (``nextSeq``; an ``op-end`` carries
``nextSeqBefore``/``nextSeqAfter``), so a notice with ``next_seq`` n sits between the events n-1
and n (examples/recordings/README.md).  Durable markers name the log's own events and are not
repeated.  Records after a ``note`` with ``crash`` up to the next note come from the process that
died: their seqs belong to its lost log, so they are drawn at the crash note, marked ``dead``.
A public call is one notice from its ``op-begin`` to its ``op-end``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

import attrs

from loopspec.log.kinds import AGENT_ERROR, AGENT_STATUS, CLAIMED, DISCARDED, INSERTED, PRE_STEP_HOOK
from loopspec.render.labels import value_json
from loopspec.render.source import open_source
from loopspec.render.timeline import Decision, Notice

PRE_STEP = PRE_STEP_HOOK


@attrs.frozen
class LiveRecords:
    notices: tuple[Notice, ...]
    decisions: tuple[Decision, ...]
    problems: tuple[str, ...] = ()


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first(*values: object) -> int:
    """The first of ``values`` that is an integer (0 counts: ``or`` would skip it)."""
    for value in values:
        found = _int(value)
        if found is not None:
            return found
    return 0


def _id(rec: dict[str, object]) -> str:
    message = rec.get("message")
    return str(message.get("id")) if isinstance(message, dict) else "?"


def _ids(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


Record = dict[str, object]
LABELS: Mapping[str, Callable[[Record], str]] = MappingProxyType({
    INSERTED: lambda r: f"inserted {_id(r)}",
    DISCARDED: lambda r: f"discarded {_id(r)}",
    CLAIMED: lambda r: f"claimed {_id(r)} by turn {r.get('turn')}",
    AGENT_STATUS: lambda r: f"status {r.get('status')}",
    AGENT_ERROR: lambda r: f"error {r.get('turn')}.{r.get('step')}: {r.get('error')}",
    PRE_STEP: lambda r: _pre_step(r),
})


def _pre_step(rec: dict[str, object]) -> str:
    phase = rec.get("phase")
    where = f"{rec.get('turn')}.{rec.get('step')}"
    if phase == "invoked":
        return f"pre-step {where} invoked with [{', '.join(_ids(rec.get('messageIds')))}]"
    if phase == "decided":
        decision = rec.get("decision")
        kind = decision.get("kind") if isinstance(decision, dict) else None
        if kind == "enter" and isinstance(decision, dict):
            return f"pre-step {where}: enter [{', '.join(_ids(decision.get('messageIds')))}]"
        return f"pre-step {where}: {kind}"
    return f"pre-step {where} threw {rec.get('error')}"


def _decision(rec: dict[str, object], at: int, text: str) -> Decision | None:
    phase = rec.get("phase")
    turn, step = _int(rec.get("turn")), _int(rec.get("step"))
    if phase == "threw":
        return Decision(at, turn, step, "threw", (), "live", text)
    decision = rec.get("decision")
    if phase != "decided" or not isinstance(decision, dict):
        return None
    if decision.get("kind") == "reject":
        return Decision(at, turn, step, "reject", (), "live", text)
    if decision.get("kind") == "enter":
        return Decision(at, turn, step, "enter", _ids(decision.get("messageIds")), "live", text)
    return None


def _records(path: Path) -> Iterator[tuple[int, object]]:
    with open_source(path) as stream:
        for order, line in enumerate(stream):
            try:
                yield order, json.loads(line.decode("utf-8", errors="replace"))
            except ValueError:
                yield order, None


def read_live(path: Path, first: int, last: int) -> LiveRecords:
    """The notices and observed decisions placed from ``first`` to ``last + 1``; the rest is left out."""
    notices: list[Notice] = []
    decisions: list[Decision] = []
    problems: list[str] = []
    calls: list[tuple[int, dict[str, object]]] = []
    dead_at: int | None = None
    position = 0
    for order, rec in _records(path):
        if not isinstance(rec, dict):
            problems.append(f"live line {order + 1} is not a JSON object; left out")
            continue
        kind = rec.get("kind")
        at = _int(rec.get("nextSeq"))
        position = at if at is not None else position
        text = value_json(rec)
        if kind == "note":
            crash = rec.get("crash")
            dead_at = _first(at, rec.get("eventCount"), position) if crash is True else None
            label = "note: " + str(rec.get("text", ""))[:60] + (" (process crashed)" if crash is True else "")
            label = label + (" (process shut down)" if crash is False else "")
            notices.append(Notice(position, order, "note", "note", label, text, crash=crash is not None))
            continue
        dead = dead_at is not None
        place = dead_at if dead_at is not None else position
        if kind == "durable":
            if dead:
                label = f"lost write: seq {rec.get('seq')} {rec.get('type')}"
                notices.append(Notice(place, order, "live", str(rec.get("type")), label, text, dead=True))
            continue
        if kind == "op-begin":
            calls.append((order, rec))
        elif kind == "op-end":
            begin_order, begin = calls.pop() if calls else (order, rec)
            start = _first(begin.get("nextSeq"), rec.get("nextSeqBefore"), place)
            end = _int(rec.get("nextSeqAfter"))
            outcome = f"threw {rec['threw']}" if "threw" in rec else f"→ {json.dumps(rec.get('result'))}"
            call = str(rec.get("op", "?")).split("(")[0].strip()
            label = f"{call}({_call_args(rec.get('args'))}) {outcome}"
            joined = value_json(begin) + "\n" + text
            at_begin = start if dead_at is None else dead_at
            notices.append(Notice(at_begin, begin_order, "op", call, label, joined, end_seq=end, dead=dead))
        elif kind == "live":
            rtype = str(rec.get("type"))
            label = LABELS[rtype](rec) if rtype in LABELS else rtype
            notices.append(Notice(place, order, "live", rtype, label, text, dead=dead))
            decision = _decision(rec, place, text) if rtype == PRE_STEP and not dead else None
            if decision is not None:
                decisions.append(decision)
    low, high = first, last + 1
    kept = tuple(sorted((n for n in notices if low <= n.next_seq <= high), key=lambda n: n.order))
    return LiveRecords(kept, tuple(d for d in decisions if low <= d.seq <= high), tuple(problems))


def _call_args(args: object) -> str:
    if not isinstance(args, dict):
        return ""
    return ", ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in args.items())[:60]
