"""The engine covers the whole recording format, and the repository's recordings exercise all of it.

The format is the one ``examples/recordings/README.md`` documents.  Its record kinds, live record
types, pre-step phases and calls are read from that README and must be exactly the engine's
registries: a kind the engine lacks would be refused as unusable, a kind the README lacks would be
accepted without documentation.  Then every documented kind, and every variant the README
describes in words (remarks in op names, coordinates written as strings, the four shapes of a
decision, both process boundaries, a failing model step, edits outside any call …), must occur in
a recording that reproduces: the eight real ones plus the hand-made ``reproduces/`` ones.
"""

from __future__ import annotations

import re

import pytest

from loopspec.data.json_value import thaw
from loopspec.log.events import InboxSpliced
from loopspec.log.kinds import SPLICED, STEP_END, TURN_END
from loopspec.loop import records as rec
from loopspec.reproduce import reading
from loopspec.reproduce import records as r
from loopspec.reproduce.calls import CALLS
from loopspec.reproduce.files import in_folder, read_recording
from reproduce.recording_copies import REAL_RUNS, RECORDINGS, SYNTHETIC

README = (RECORDINGS / "README.md").read_text(encoding="utf-8")


def _ticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def documented_kinds() -> set[str]:
    sentence = re.search(r"whose `kind` is one of (.*?)\.", README, re.DOTALL)
    assert sentence is not None
    return set(_ticked(sentence.group(1)))


def documented_live_types() -> set[str]:
    section = README.split('### `kind: "live"`', 1)[1].split("`agent/pre-step` records", 1)[0]
    return {_ticked(line)[0] for line in section.splitlines() if line.startswith("| `agent/")}


def documented_phases(hook: str = "agent/pre-step") -> set[str]:
    """The phases the README lists for one listener hook, in that hook's list of records."""
    section = README.split(f"`{hook}` records", 1)[1].split("\n\n", 2)
    return set(re.findall(r'`phase: "(\w+)"`', "\n\n".join(section[:2])))


def documented_calls() -> set[str]:
    table = README.split("| call | `args` | `result` |", 1)[1].split("\n\n", 1)[0]
    return {name for line in table.splitlines()[2:] for name in _ticked(line.split("|")[1])}


def test_the_registries_are_the_documented_format() -> None:
    assert set(reading.KINDS) == documented_kinds() == {"durable", "live", "op-begin", "op-end", "note"}
    assert set(reading._LIVE) == documented_live_types()
    assert set(reading._PRE_STEP) == documented_phases() == {"invoked", "decided", "threw"}
    assert set(reading._TURN_STOPPING) == documented_phases("agent/turn-stopping") == {"invoked", "returned", "threw"}
    assert set(CALLS) == documented_calls()


def _coordinate(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    if raw in ("NaN", "Infinity", "-Infinity", "-0"):
        return raw
    return "fraction as text" if "." in raw else "integer as text"


def features(recording: r.Recording) -> set[str]:
    """What a recording exercises, read from its records and log."""
    out: set[str] = set()
    depth, boundary, shutdown = 0, None, False
    windows = 0  # listener windows open (a scenario's call inside one is the format's other case)
    batch: tuple[str, ...] = ()
    for record in recording.records:
        if isinstance(record, r.Note):
            out.add("kind:note")
            if boundary is True and shutdown:
                out.add("a killed process's shutdown records")
            boundary, shutdown = record.crash, False
            if record.crash is not None:
                out.add(f"crash:{str(record.crash).lower()}")
                windows = 0  # a listener of a process that ends never returns
            continue
        shutdown = True
        if isinstance(record, r.Marker):
            out.add("kind:durable")
            event = recording.events[record.seq] if boundary is not True else None
            if event is not None and event.type == SPLICED and depth == 0 and boundary is None and \
                    not InboxSpliced.from_data(event.data).is_claim:
                out.add("an edit outside any call")
        elif isinstance(record, r.Notice):
            out |= {"kind:live", f"live:{record.type}"}
        if isinstance(record, r.PreStepInvoked | r.TurnStoppingInvoked):
            windows += 1
        elif isinstance(record, r.ListenerClose):
            windows -= 1
        if isinstance(record, r.PreStepInvoked):
            out |= {"kind:live", "live:agent/pre-step", "pre-step:invoked"}
            batch = record.message_ids
        elif isinstance(record, r.PreStepDecided):
            out |= {"kind:live", "pre-step:decided"}
            shape = "reject" if record.kind == "reject" else "enter the batch" if record.message_ids == batch \
                else "enter nothing" if not record.message_ids else "enter a rewritten batch"
            out.add(f"decision:{shape}")
        elif isinstance(record, r.PreStepThrew):
            out |= {"kind:live", "pre-step:threw"}
        elif isinstance(record, r.TurnStoppingInvoked | r.TurnStoppingReturned | r.TurnStoppingThrew):
            out |= {"kind:live", "live:agent/turn-stopping", f"turn-stopping:{type(record).__name__[12:].lower()}"}
        elif isinstance(record, r.OpBegin):
            depth += 1
            out |= {"kind:op-begin", f"call:{record.op}"}
            out |= {f"a call within {record.within}"} if record.within else set()
            out |= {"a scenario's call inside a listener window"} if record.within is None and windows else set()
            out |= {"op name with a remark"} if "(" in record.label else set()
            out |= {"op name with blanks"} if record.label != record.label.strip() else set()
            out |= {"cancel with keepInbox"} if record.args.get("keepInbox") is True else set()
            out |= {f"coordinate:{c}" for c in map(_coordinate, (record.args.get("start"),
                                                                  record.args.get("deleteCount"))) if c}
        elif isinstance(record, r.OpEnd):
            depth -= 1
            out.add("kind:op-end")
            out.add("a refused call" if record.threw is not None else f"{record.op} -> {record.result}")
            out |= {"a listener's refused call"} if record.within and record.threw is not None else set()
    for event in recording.events:
        data = thaw(event.data)
        chunk = data.get("chunk") if isinstance(data, dict) and event.type == "assistant/chunk" else None
        if isinstance(chunk, dict) and chunk.get("type") == "finish" and isinstance(chunk.get("reason"), dict):
            out.add(f"finish:{chunk['reason'].get('kind')}")  # type: ignore[union-attr]
        if event.type == TURN_END and isinstance(data, dict) and isinstance(data.get("reason"), dict) and \
                data["reason"].get("kind") == rec.ERROR:  # type: ignore[union-attr]
            before = recording.events[event.seq - 1]
            out.add("a failing model step" if before.type == STEP_END else "an error before any step")
    return out


REQUIRED = (
    {f"kind:{k}" for k in documented_kinds()} | {f"live:{t}" for t in documented_live_types()}
    | {f"pre-step:{p}" for p in documented_phases()} | {f"call:{c}" for c in documented_calls()}
    | {"decision:reject", "decision:enter the batch", "decision:enter nothing", "decision:enter a rewritten batch",
       "op name with a remark", "op name with blanks", "a refused call", "cancel with keepInbox",
       "inbox.replace -> True", "inbox.replace -> False", "inbox.remove -> True", "inbox.remove -> False",
       "coordinate:NaN", "coordinate:Infinity", "coordinate:-Infinity", "coordinate:-0", "coordinate:fraction as text",
       "coordinate:integer as text", "crash:true", "crash:false", "a killed process's shutdown records",
       "a failing model step", "an error before any step", "finish:stop", "finish:max-tokens", "finish:tool-calls",
       "an edit outside any call", "a call within agent/pre-step", "a call within agent/turn-stopping",
       "a call within agent/status", "a call within agent/inbox/claimed", "a call within agent/inbox/inserted",
       "a call within agent/inbox/discarded",
       "a listener's refused call", "a scenario's call inside a listener window"}
    | {f"turn-stopping:{p}" for p in documented_phases("agent/turn-stopping")}
)


def _reproducing() -> list[r.Recording]:
    found = in_folder(RECORDINGS)[0] + in_folder(SYNTHETIC / "reproduces")[0] + in_folder(REAL_RUNS)[0]
    return [read_recording(files) for files in found]


@pytest.mark.rule("LOG-6")
def test_the_recordings_that_reproduce_exercise_the_whole_format() -> None:
    exercised: set[str] = set()
    for recording in _reproducing():
        exercised |= features(recording)
    assert REQUIRED - exercised == set()
