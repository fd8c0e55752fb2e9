"""Valid session logs and their mutations, as Hypothesis strategies for the checker's tests.

Valid logs come from :func:`check.synthetic_logs.generate` driven by a Hypothesis-controlled
``Random`` (so failures shrink); mutations are the edits the brief names: drop, duplicate, swap
adjacent, re-number seq/turn/step, alter a field.  Logs are lists of plain JSON dicts; they are
written out as JSONL with the standard library so odd values (huge ints, floats) survive.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import strategies as st

from check.synthetic_logs import generate
from loopspec.check import fastpath, reader, runner
from loopspec.check.machine import LogChecker
from loopspec.check.runner import check_file
from loopspec.check.state import StopCheck
from loopspec.check.verdict import CheckOptions, LogResult
from loopspec.log.tool_errors import SYNTHETIC_RESULT

Event = dict[str, object]
Log = list[Event]

TYPES = ("turn/start", "turn/end", "step/start", "step/end", "agent/inbox/spliced", "user/message",
         "assistant/chunk", "session/end-seed", "tool/result", "x/foreign")
ODD_VALUES: tuple[object, ...] = (
    0, 1, 2, -1, 2**53, 2**53 - 1, 2**64, 1.0, 0.5, True, False, None, "", "1", [], {}, [1], {"kind": "x"},
)


@st.composite
def valid_logs(draw: st.DrawFn, max_events: int = 120) -> Log:
    """A whole valid session of roughly ``max_events`` events (it ends at an idle point)."""
    rnd: random.Random = draw(st.randoms(use_true_random=False))
    size = draw(st.integers(1, max_events))
    chunks = draw(st.integers(0, 3))
    backlog = draw(st.sampled_from((0, 0, 0, 3)))
    return list(generate(rnd.randrange, size, chunks=chunks, backlog=backlog))


def renumber(log: Log) -> Log:
    """seq made contiguous again, so a mutation is judged on more than LOG-2; what names a seq (a
    ``sourceEventSeqs`` citation, the seq ending a crash-repair result's id) follows its event, as a
    writer numbering the mutated log would write it, so one fault stays one."""
    out = [copy.deepcopy(e) for e in log]  # one copy per element: a duplicate must not stay aliased
    moved: dict[int, int] = {}
    for index, event in enumerate(out):
        seq = event.get("seq")
        if type(seq) is int:  # a mutated seq may be any JSON value
            moved.setdefault(seq, index)
    for index, event in enumerate(out):
        old, event["seq"] = event.get("seq"), index
        cited = event.get("sourceEventSeqs")
        if isinstance(cited, list):
            event["sourceEventSeqs"] = [moved.get(c, c) if type(c) is int else c for c in cited]
        data = event.get("data")
        message = data.get("message") if isinstance(data, dict) else None
        mid = message.get("id") if isinstance(message, dict) else None
        if isinstance(mid, str) and mid.startswith(SYNTHETIC_RESULT) and mid.endswith(f"-{old}"):
            message["id"] = f"{mid[: -len(str(old))]}{index}"  # type: ignore[index]
    return out


def drop(log: Log, i: int) -> Log:
    return renumber(log[:i] + log[i + 1 :])


def duplicate(log: Log, i: int) -> Log:
    return renumber([*log[: i + 1], log[i], *log[i + 1 :]])


def swap(log: Log, i: int) -> Log:
    return renumber([*log[:i], log[i + 1], log[i], *log[i + 2 :]])


def set_path(log: Log, i: int, path: tuple[str, ...], value: object) -> Log:
    out = [copy.deepcopy(e) for e in log]  # events may share sub-objects (a message, a scope)
    target: object = out[i]
    for key in path[:-1]:
        if not isinstance(target, dict):
            return out
        target = target.setdefault(key, {})
    if isinstance(target, dict):
        target[path[-1]] = value
    return out


@st.composite
def any_mutation(draw: st.DrawFn, log: Log) -> Log:
    """One to three arbitrary mutations: the checker must judge the result without crashing."""
    for _ in range(draw(st.integers(1, 3))):
        if not log:
            break
        i = draw(st.integers(0, len(log) - 1))
        kind = draw(st.sampled_from(("drop", "dup", "swap", "field", "field", "seq")))
        if kind == "drop":
            log = drop(log, i)
        elif kind == "dup":
            log = duplicate(log, i)
        elif kind == "swap" and i + 1 < len(log):
            log = swap(log, i)
        elif kind == "seq":
            log = set_path(log, i, ("seq",), draw(st.sampled_from(ODD_VALUES)))
        else:
            path = draw(st.sampled_from((
                ("type",), ("time",), ("data",), ("extra",), ("data", "turn"), ("data", "step"),
                ("data", "start"), ("data", "removedCount"), ("data", "target"), ("data", "outcome"),
                ("data", "inserted"), ("data", "reason"), ("data", "reason", "kind"), ("surfaceOp",),
                ("sourceEventSeqs",), ("ignorable",), ("data", "chunk"),
            )))
            value = draw(st.one_of(st.sampled_from(ODD_VALUES), st.sampled_from(TYPES)))
            log = set_path(log, i, path, value)
    return log


def dumps(log: Log) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in log)


def check_log(log: Log, tmp: Path, options: CheckOptions | None = None, name: str = "x.events.jsonl") -> LogResult:
    """The verdict of the file path (the hot loop of :func:`loopspec.check.runner.scan`)."""
    path = tmp / name
    path.write_bytes(dumps(log))
    return check_file(path, options or CheckOptions(all=True, max_violations=1000))


def feed_general(log: Log, make: Callable[[], LogChecker]) -> list[tuple[str, int | None]]:
    """(rule, seq) of every violation when every event takes the general path."""
    checker = make()
    try:
        for line, event in enumerate(log, start=1):
            checker.feed_event(event, line)
    except StopCheck:
        pass
    return [(v.rule, v.seq) for v in checker.violations]


def _as_parsed(line: bytes, value: object) -> object:
    return value


def stdlib_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Check as an installation without orjson does: the standard library parses every line."""
    for module in (runner, reader, fastpath):
        monkeypatch.setattr(module, "lenient_loads", reader.strict_loads)
        monkeypatch.setattr(module, "confirmed", _as_parsed)
    monkeypatch.setattr(runner, "write_back", None)
