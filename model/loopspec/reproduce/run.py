"""Reproducing recordings: the in-process API of ``loopspec reproduce``.

``reproduce(files)`` reads one recording, drives the model through it and returns an
:class:`Outcome`: ``reproduced``, ``different`` (with the first :class:`Difference`) or
``unusable`` (with the :class:`Problem`).  :func:`exit_code` folds outcomes into the command's
exit status: 0 every recording reproduced, 1 some differ, 2 some input is unusable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.reproduce import engine as e
from loopspec.reproduce import listeners
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import Difference, Different
from loopspec.reproduce.files import RecordingFiles, in_folder, read_recording, single
from loopspec.reproduce.processes import before_record, finish
from loopspec.reproduce.reading import Unusable

# The handler of each record class: the engine's walk is a lookup, not a chain of tests.
HANDLERS: Mapping[type, Callable[[e.Engine, Any], None]] = MappingProxyType({
    r.Marker: e.on_marker,
    r.Notice: e.on_notice,
    r.PreStepInvoked: listeners.on_pre_step_invoked,
    r.PreStepDecided: listeners.on_pre_step_decided,
    r.PreStepThrew: listeners.on_pre_step_threw,
    r.TurnStoppingInvoked: listeners.on_stopping_invoked,
    r.TurnStoppingReturned: listeners.on_stopping_ended,
    r.TurnStoppingThrew: listeners.on_stopping_ended,
    r.OpBegin: listeners.on_call_begin,
    r.OpEnd: listeners.on_call_end,
    r.Note: listeners.on_listened_note,
})

Status = Literal["reproduced", "different", "unusable"]


@attrs.frozen
class Problem:
    """Why a recording is unusable: the file, the line if known, what is wrong."""

    path: Path
    line: int | None
    message: str

    @classmethod
    def of(cls, err: Unusable) -> Problem:
        return cls(err.path, err.line, err.message)

    def to_json(self) -> dict[str, object]:
        return {"file": str(self.path), "line": self.line, "message": self.message}


@attrs.frozen
class Outcome:
    """What reproducing one recording gave."""

    name: str
    status: Status
    files: RecordingFiles | None = None
    difference: Difference | None = None
    problem: Problem | None = None
    records: int = 0
    events: int = 0


def drive(recording: r.Recording) -> None:
    """Walk every record, then the end; :class:`Different` at the first difference."""
    engine = e.Engine(recording)
    for index, record in enumerate(recording.records):
        engine.index = index
        before_record(engine, record)
        HANDLERS[type(record)](engine, record)
    finish(engine)


def reproduce(files: RecordingFiles) -> Outcome:
    try:
        recording = read_recording(files)
        drive(recording)
    except Unusable as err:
        return Outcome(files.name, "unusable", files, problem=Problem.of(err))
    except InvalidEvent as err:  # a recorded splice the engine had to read is malformed (FOLD-1, FOLD-2)
        line = None if err.seq is None else err.seq + 1
        return Outcome(files.name, "unusable", files, problem=Problem(files.events, line, f"not a session log: {err}"))
    except Different as diff:
        return Outcome(files.name, "different", files, diff.difference, records=len(recording.records),
                       events=len(recording.events))
    return Outcome(files.name, "reproduced", files, records=len(recording.records), events=len(recording.events))


def reproduce_log(log: Path, live: Path, final: Path | None = None) -> Outcome:
    """``loopspec reproduce LOG --live LIVE [--final FINAL]``."""
    return reproduce(single(log, live, final))


def reproduce_folder(folder: Path) -> tuple[Outcome, ...]:
    """``loopspec reproduce DIR``: every recording of the folder; an unpaired file is an unusable outcome."""
    found, problems = in_folder(folder)
    unpaired = tuple(Outcome(name, "unusable", problem=Problem.of(p)) for name, p in problems)
    return tuple(reproduce(files) for files in found) + unpaired


def exit_code(outcomes: Iterable[Outcome]) -> int:
    statuses = {o.status for o in outcomes}
    return 2 if "unusable" in statuses else 1 if "different" in statuses else 0
