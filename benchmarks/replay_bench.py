"""Replay throughput, run by hand (not a test): ``python benchmarks/replay_bench.py [--events N]``.

Writes a realistic session log of N events (default 1,000,000) into a temporary directory, shaped
like the real traces: follow-ups inserted at the end of next-turn, ``turn/start``, the claim at the
front, ``step/start``, ``user/message``, request records, a run of ``assistant/chunk`` events,
``assistant/message``, sometimes a tool call with a steer landing in next-step and claimed at the
next step, ``step/end``, ``turn/end``.  Then it times, in one run:

* ``replay(read_events(path))`` end to end (FOLD-5, LOG-1 validation included);
* a bare parse of the same file with stdlib ``json`` and with ``orjson`` when importable;
* the fold alone per event with 10 vs 10,000 pending messages in steady state (append one at
  the end, claim one at the front), for the fast projector and the normative ``apply``.

Run it with an interpreter that has ``orjson`` to get both parse baselines; the model is found
from the repository even when it is not installed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from loopspec.inbox import fold
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "model"))
    from loopspec.inbox import fold
from loopspec.data.json_value import freeze
from loopspec.data.messages import InboxState
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.log.reader import read_events

orjson: Any
try:
    import orjson
except ImportError:
    orjson = None

BASE_TIME = 1_700_000_000_000


def _user(mid: str, text: str) -> dict[str, object]:
    return {"id": mid, "role": "user", "content": [{"type": "text", "text": text}], "source": {"kind": "user"}}


class LogWriter:
    """Writes events with contiguous seqs; ``emit`` returns False once the target count is reached."""

    def __init__(self, path: Path, total: int) -> None:
        self.handle = path.open("w", encoding="utf-8")
        self.total = total
        self.seq = 0

    def emit(self, etype: str, data: object, **envelope: object) -> bool:
        if self.seq >= self.total:
            return False
        record = {"type": etype, "seq": self.seq, "time": BASE_TIME + self.seq, "data": data, **envelope}
        self.handle.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.seq += 1
        return self.seq < self.total


def write_log(path: Path, total: int, seed: int = 7) -> None:
    """A log of ``total`` events shaped like the real traces (see the module docstring)."""
    rng = random.Random(seed)
    w = LogWriter(path, total)
    pending_nt: list[str] = []
    counter = 0

    def follow_up() -> bool:
        nonlocal counter
        counter += 1
        mid = f"u{counter}"
        pending_nt.append(mid)
        data = {"target": "next-turn", "start": len(pending_nt) - 1, "inserted": [_user(mid, f"please do {mid}")]}
        return w.emit(SPLICED, data)

    for turn in itertools.count(1):
        # Input arrives in bursts: usually one follow-up, sometimes several queue up.
        for _ in range(rng.choice((1, 1, 1, 2, 3)) if len(pending_nt) < 4 else 0):
            if not follow_up():
                return w.handle.close()
        if not pending_nt and not follow_up():
            return w.handle.close()
        ok = w.emit("turn/start", {"turn": turn})
        claimed = pending_nt.pop(0)
        ok = ok and w.emit(SPLICED, {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []})
        step, batch = 1, [claimed]
        while ok:
            ok = w.emit("step/start", {"turn": turn, "step": step})
            for mid in batch:
                ok = ok and w.emit("user/message", _user(mid, f"please do {mid}"), surfaceOp="append")
            ok = ok and w.emit("request/header", {"header": {"config": {"provider": "mock", "model": "mock"},
                                                             "system": "You are an AI agent."}, "reason": "initial"})
            chunks = rng.randint(6, 30)
            first = w.seq
            ok = ok and w.emit("assistant/chunk", {"turn": turn, "step": step,
                                                   "chunk": {"type": "block-start", "index": 0, "blockType": "text"}})
            for _ in range(chunks):
                ok = ok and w.emit("assistant/chunk", {"turn": turn, "step": step, "chunk": {
                    "type": "text-delta", "index": 0, "text": rng.choice(("ok", " the", " file", " is", " done"))}})
            ok = ok and w.emit("assistant/message", {"turn": turn, "step": step, "message": {
                "role": "assistant", "content": [{"type": "text", "text": "done"}],
                "source": {"kind": "model", "provider": "mock", "model": "mock"}, "id": f"a{turn}.{step}"},
                "usage": {"inputTokens": 10, "outputTokens": chunks}},
                sourceEventSeqs=list(range(first, w.seq)), surfaceOp="append")
            steered = step < 3 and rng.random() < 0.25
            if steered:  # a tool runs and a steer lands in next-step meanwhile
                ok = ok and w.emit("tool/call", {"turn": turn, "step": step, "callId": f"c{turn}", "name": "slow"})
                counter += 1
                sid = f"s{counter}"
                ok = ok and w.emit(SPLICED, {"target": "next-step", "start": 0, "inserted": [_user(sid, "also")]})
                ok = ok and w.emit("tool/result", {"turn": turn, "step": step, "message": _user(f"r{turn}", "x")},
                                   sourceEventSeqs=[w.seq - 2], surfaceOp="append")
            ok = ok and w.emit("step/end", {"turn": turn, "step": step})
            if not steered:
                break
            ok = ok and w.emit(SPLICED, {"target": "next-step", "start": 0, "removedCount": 1, "inserted": []})
            step, batch = step + 1, [sid]
        if not (ok and w.emit("turn/end", {"turn": turn, "reason": {"kind": "completed"}})):
            return w.handle.close()
    return None


# ------------------------------------------------------------------ timing


def timed(label: str, run: Callable[[], object]) -> float:
    """Run once; print wall and CPU seconds and return the CPU time, which other processes
    competing for the cores distort far less than the wall clock."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<44} {cpu:8.3f} s CPU  {wall:8.3f} s wall")
    return cpu


def parse_stdlib(path: Path) -> None:
    loads = json.loads
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            loads(line)


def parse_orjson(path: Path) -> None:
    loads = orjson.loads
    with path.open("rb") as handle:
        for line in handle:
            loads(line)


def steady_state(pending: int, rounds: int) -> tuple[list[SessionEvent], list[SessionEvent]]:
    """``pending`` messages queued, then ``rounds`` × (append one at the end, claim one at the front)."""
    prefix = [
        SessionEvent(SPLICED, i, 0, freeze({"target": "next-turn", "start": i, "inserted": [_user(f"p{i}", "x")]}))
        for i in range(pending)
    ]
    steady: list[SessionEvent] = []
    for r in range(rounds):
        seq = pending + 2 * r
        steady.append(SessionEvent(SPLICED, seq, 0, freeze(
            {"target": "next-turn", "start": pending - 1, "inserted": [_user(f"q{r}", "x")]})))
        steady.append(SessionEvent(SPLICED, seq + 1, 0, freeze(
            {"target": "next-turn", "start": 0, "removedCount": 1, "inserted": []})))
    return prefix, steady


def fold_cost(pending: int, rounds: int) -> tuple[float, float]:
    """CPU seconds per steady-state event: fast projector, normative apply (fewer rounds: it copies tuples)."""
    prefix, steady = steady_state(pending, rounds)
    projector = fold.InboxProjector()
    for event in prefix:
        projector.feed(event)
    started = time.process_time()
    for event in steady:
        projector.feed(event)
    fast = (time.process_time() - started) / len(steady)
    state = projector.state()
    assert len(state.next_turn) == pending
    normative_events = steady[: max(2, min(len(steady), 2_000_000 // max(pending, 1)))]
    state = fold.replay(prefix)
    started = time.process_time()
    for event in normative_events:
        state = fold.apply(state, event)
    normative = (time.process_time() - started) / len(normative_events)
    assert state == fold.replay(prefix + normative_events)
    return fast, normative


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000, help="events in the generated log")
    parser.add_argument("--rounds", type=int, default=50_000, help="steady-state rounds for the fold cost")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.events.jsonl"
        started = time.perf_counter()
        write_log(path, args.events)
        size = path.stat().st_size
        print(f"log: {args.events:,} events, {size / 1e6:.1f} MB, written in {time.perf_counter() - started:.1f} s")
        print(f"python {sys.version.split()[0]}, orjson {'available' if orjson else 'NOT importable'}, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")

        print("end to end:")
        state_box: list[object] = []
        t_replay = timed("replay(read_events(path))", lambda: state_box.append(fold.replay(read_events(path))))
        t_json = timed("bare parse, stdlib json.loads per line", lambda: parse_stdlib(path))
        t_orjson = timed("bare parse, orjson.loads per line", lambda: parse_orjson(path)) if orjson else None
        n = args.events
        print(f"  CPU throughput: replay {n / t_replay:,.0f} events/s; stdlib parse {n / t_json:,.0f} events/s"
              + (f"; orjson parse {n / t_orjson:,.0f} events/s" if t_orjson else ""))
        print(f"  CPU ratio replay / stdlib parse: {t_replay / t_json:.2f}x"
              + (f"; replay / orjson parse: {t_replay / t_orjson:.2f}x" if t_orjson else ""))
        final = state_box[0]
        assert isinstance(final, InboxState)
        print(f"  final inbox: {len(final.next_turn)} next-turn, {len(final.next_step)} next-step pending")

    print(f"fold only (CPU), steady state (append one, claim one), {2 * args.rounds:,} events:")
    for pending in (10, 10_000):
        fast, normative = fold_cost(pending, args.rounds)
        print(f"  {pending:>6,} pending: InboxProjector {fast * 1e6:7.2f} µs/event ({1 / fast:,.0f} events/s); "
              f"apply {normative * 1e6:8.2f} µs/event ({1 / normative:,.0f} events/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
