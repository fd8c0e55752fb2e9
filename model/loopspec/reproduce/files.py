"""Which files make a recording: ``LOG --live LIVE [--final FINAL]``, or the pairs in a folder."""

from __future__ import annotations

from pathlib import Path

import attrs

from loopspec.check.input_kind import foreign_marker
from loopspec.reproduce import records as r
from loopspec.reproduce.final_state import read_final
from loopspec.reproduce.reading import Unusable, read_live, read_log

EVENTS, LIVE, FINAL = ".events.jsonl", ".live.jsonl", ".final.json"


@attrs.frozen
class RecordingFiles:
    """Where one recording's files are; ``final`` is optional."""

    name: str
    events: Path
    live: Path
    final: Path | None = None


def recording_name(events: Path) -> str:
    return events.name.removesuffix(EVENTS) if events.name.endswith(EVENTS) else events.stem


def live_beside(log: Path) -> Path | None:
    """``NAME.live.jsonl`` next to ``NAME.events.jsonl``, when there is one: the recording's other half."""
    beside = log.parent / f"{recording_name(log)}{LIVE}"
    return beside if log.name.endswith(EVENTS) and beside.is_file() else None


def single(log: Path, live: Path, final: Path | None = None) -> RecordingFiles:
    """``LOG --live LIVE``: the final state is ``--final``, else ``NAME.final.json`` next to the log if present."""
    name = recording_name(log)
    if final is None and log.name.endswith(EVENTS) and (log.parent / f"{name}{FINAL}").is_file():
        final = log.parent / f"{name}{FINAL}"
    return RecordingFiles(name, log, live, final)


def in_folder(folder: Path) -> tuple[list[RecordingFiles], list[tuple[str, Unusable]]]:
    """Every ``NAME.events.jsonl`` + ``NAME.live.jsonl`` pair of a folder (not its subfolders).

    A log without its live file, or a live file without its log, is unusable input.
    """
    found: list[RecordingFiles] = []
    problems: list[tuple[str, Unusable]] = []
    names = sorted({p.name.removesuffix(EVENTS) for p in folder.glob(f"*{EVENTS}")}
                   | {p.name.removesuffix(LIVE) for p in folder.glob(f"*{LIVE}")})
    for name in names:
        events, live, final = (folder / f"{name}{suffix}" for suffix in (EVENTS, LIVE, FINAL))
        if not events.is_file() or not live.is_file():
            missing = events if not events.is_file() else live
            problems.append((name, Unusable(missing, None, f"recording {name!r} lacks this file")))
            continue
        found.append(RecordingFiles(name, events, live, final if final.is_file() else None))
    if not names:
        problems.append((folder.name, Unusable(folder, None, f"no *{EVENTS} + *{LIVE} pair in this folder")))
    return found, problems


def check_markers(files: RecordingFiles) -> None:
    """Each marker names an event of its type in the log, except a killed process's last ones
    (:func:`loopspec.check.input_kind.foreign_marker`, the reading ``check`` and ``render`` share)."""
    if foreign := foreign_marker(files.events, files.live):
        raise Unusable(files.live, foreign[0], f"not the live recording of {files.events.name}: {foreign[1]}")


def read_recording(files: RecordingFiles) -> r.Recording:
    """Read and validate the files of one recording (:class:`Unusable` when they are not one)."""
    events, records = read_log(files.events), read_live(files.live)
    check_markers(files)
    final = None if files.final is None else read_final(files.final, files.name, records)
    return r.Recording(files.name, files.events, files.live, files.final, events, records, final)
