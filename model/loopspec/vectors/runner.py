"""``loopspec vectors run DIR -- COMMAND...``: a suite against an implementation, case by case.

Each case starts from ``reset``; its commands are sent in order and every observation is compared
with the expected one (spec/command-language.md, Comparing observations), then the final state
(the part the adapter's profile reports); then everything the adapter wrote and emitted is
audited by the time policy, the log checker and the live checker (:mod:`.audit`).  A case fails
at its first differing observation, reported with the path of the first differing JSON value, or
with the audit's findings (rule ID and seq).  A case whose file does not match the manifest's
checksum, or that cannot be read, makes the whole suite unusable: nothing is run and nothing is
claimed about the implementation (a broken input is no finding).  A case that needs a command
outside the adapter's profile is not run and does not fail the run.  If the adapter dies or
hangs, the case in progress fails and the adapter is started again for the next case.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import attrs

from loopspec.data.terminal_text import escaped, write_meter
from loopspec.rules.catalogue import RULE_ID_PATTERN
from loopspec.rules.shipped import package_version, spec_digest
from loopspec.vectors.adapter.client import Adapter, AdapterError, AdapterFailure
from loopspec.vectors.audit import audit
from loopspec.vectors.case_reading import read_case
from loopspec.vectors.json_reading import CodecError, Json
from loopspec.vectors.observation import first_difference, observation_difference
from loopspec.vectors.profiles import PROFILES, case_ops, profiles_running
from loopspec.vectors.run_report import (
    FAIL,
    NO_ADAPTER,
    NOT_RUN,
    OUTSIDE_PROFILE,
    PASS,
    UNSUPPORTED,
    CaseResult,
    Provenance,
    RunReport,
    case_line,
    write_json,
    write_junit,
    write_text_end,
)
from loopspec.vectors.suite_archive import ArchiveUnreadable, archive_files, is_archive

__all__ = ["FAIL", "NOT_RUN", "PASS", "AdapterUnavailable", "CaseResult", "RunReport", "SuiteUnreadable", "run_case",
           "run_suite"]
RULE_ID = re.compile(f"^{RULE_ID_PATTERN}$")
Loaded = tuple[str, Json | None, str]
"""``(id, case or None, why it cannot run)``."""


class SuiteUnreadable(Exception):
    """The suite directory has no readable manifest, or a selection matches no case."""


class AdapterUnavailable(Exception):
    """The adapter could not be started for the first case: nothing can be tested, so nothing is listed."""


Read = Callable[[str], bytes]
"""A suite file's bytes by its path inside the suite (OSError when it cannot be read)."""


def _folder_reader(suite: Path) -> Read:
    return lambda name: (suite / name).read_bytes()


def load_manifest(suite: Path, read: Read | None = None) -> Json:
    try:
        manifest = json.loads((read or _folder_reader(suite))("manifest.json").decode("utf-8"))
    except FileNotFoundError:
        raise SuiteUnreadable(f"{suite}: not a suite: it has no manifest.json (loopspec vectors generate "
                              "writes one)") from None
    except OSError as err:
        raise SuiteUnreadable(f"{suite}/manifest.json: cannot read ({err.strerror or err})") from None
    except ValueError as err:
        raise SuiteUnreadable(f"{suite}/manifest.json: not a suite manifest (not JSON: {err})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("cases"), list):
        raise SuiteUnreadable(f"{suite}/manifest.json: not a suite manifest")
    return manifest


def _load_case(read: Read, entry: object) -> Loaded:
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return "?", None, f"malformed manifest entry {entry!r}"
    case_id = str(entry.get("id", entry["path"]))
    try:
        data = read(entry["path"])
    except OSError as err:
        return case_id, None, f"cannot read {entry['path']}: {err.strerror}"
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        return case_id, None, "checksum differs from manifest.json (edited case file? regenerate the suite)"
    try:
        return case_id, read_case(json.loads(data)), ""
    except CodecError as err:
        return case_id, None, f"{entry['path']}: not a vector case: {err}"
    except ValueError as err:
        return case_id, None, f"{entry['path']}: not JSON: {err}"


def _op(command: object) -> str:
    return str(command.get("op")) if isinstance(command, dict) else "?"


def run_case(adapter: Adapter, case_id: str, case: Json) -> CaseResult:
    """One case on the adapter's profile; :class:`AdapterFailure` propagates (the adapter is gone)."""
    steps = case["steps"]
    assert isinstance(steps, list)
    profile = PROFILES[adapter.profile]
    ops = case_ops(steps)
    outside = profile.missing(ops)
    if outside:
        others = " and ".join(profiles_running(ops)) or "no profile"
        return CaseResult(case_id, NOT_RUN, f"a case of profile {others} only: it needs {', '.join(outside)}, "
                          f"which profile {profile.name} does not have", OUTSIDE_PROFILE)
    seen: list[tuple[str, Json]] = []
    try:
        adapter.reset()
        for index, step in enumerate(steps):
            command = step.get("command") if isinstance(step, dict) else None
            expect = step.get("expect") if isinstance(step, dict) else None
            actual = adapter.command(command)  # type: ignore[arg-type]
            diff = observation_difference(expect, actual)
            if diff is not None:
                return CaseResult(case_id, FAIL, f"step {index} ({_op(command)}): {diff}")
            assert isinstance(actual, dict)
            seen.append((_op(command), actual))
        diff = first_difference(profile.state(case.get("final")), adapter.state())
    except AdapterError as err:
        if err.kind == "unsupported":
            return CaseResult(case_id, NOT_RUN, f"the adapter answered unsupported to a command of its profile "
                                                f"{profile.name}: {err.message}", UNSUPPORTED)
        return CaseResult(case_id, FAIL, str(err))
    if diff is not None:
        return CaseResult(case_id, FAIL, f"final state: {diff}")
    findings = audit(seen, profile)
    if findings:
        return CaseResult(case_id, FAIL, "what the adapter wrote breaks rules the observations do not compare:\n"
                          + "\n".join(f.render() for f in findings))
    return CaseResult(case_id, PASS)


# How many broken cases an unusable suite's message names before it counts the rest.
NAMED_BROKEN = 5


def load_cases(path: Path) -> list[Loaded]:
    """The cases of a suite directory or packed suite (checked against its manifest), or one case file as is.

    A suite any of whose cases is missing, unreadable or not what its manifest says is refused
    whole (:class:`SuiteUnreadable`): its verdict would be about the suite, not the implementation."""
    if path.is_dir() or is_archive(path):
        read = _folder_reader(path) if path.is_dir() else _archive_reader(path)
        entries = load_manifest(path, read)["cases"]
        assert isinstance(entries, list)
        loaded = [_load_case(read, entry) for entry in entries]
        broken = [f"{case_id}: {why}" for case_id, case, why in loaded if case is None]
        if broken:
            more = len(broken) - NAMED_BROKEN
            raise SuiteUnreadable(
                f"{path}: the suite is broken, so nothing was tested: {len(broken)} of its {len(loaded)} "
                f"case(s) cannot be used ({'; '.join(broken[:NAMED_BROKEN])}{f'; and {more} more' if more > 0 else ''}"
                "); generate or unpack it again")
        return loaded
    if not path.exists():
        raise SuiteUnreadable(f"{path}: no such suite folder, archive or case file")
    try:
        case = read_case(json.loads(path.read_text(encoding="utf-8")))
    except CodecError as err:
        raise SuiteUnreadable(f"{path}: not a vector case: {err}") from None
    except OSError as err:
        raise SuiteUnreadable(f"{path}: cannot read ({err.strerror or err})") from None
    except ValueError:
        raise SuiteUnreadable(f"{path}: not a suite folder, a packed suite or a vector case (a JSON file)") from None
    return [(str(case["id"]), case, "")]


def suite_digest(path: Path) -> str:
    """The SHA-256 a run names its suite by: a packed suite's or a case file's bytes, a folder's manifest
    (which holds every case's own checksum)."""
    try:
        return hashlib.sha256((path / "manifest.json" if path.is_dir() else path).read_bytes()).hexdigest()
    except OSError as err:
        raise SuiteUnreadable(f"{path}: cannot read ({err.strerror or err})") from None


def _archive_reader(path: Path) -> Read:
    try:
        files = archive_files(path)
    except ArchiveUnreadable as err:
        raise SuiteUnreadable(str(err)) from None

    def read(name: str) -> bytes:
        if name not in files:
            raise FileNotFoundError(2, "not in the archive")
        return files[name]

    return read


def _selected(item: Loaded, pattern: str) -> bool:
    case_id, case, _ = item
    if RULE_ID.match(pattern):
        rules = case.get("rules") if case is not None else None
        return isinstance(rules, list) and pattern in rules
    if not any(ch in pattern for ch in "*?[/"):
        return case_id.split("/", 1)[0] == pattern  # an area
    return fnmatch.fnmatchcase(case_id, pattern)


def select_cases(loaded: list[Loaded], patterns: Sequence[str]) -> list[Loaded]:
    """The cases any pattern selects: a rule ID, an area, or a glob over case ids (none: all)."""
    if not patterns:
        return loaded
    chosen = [item for item in loaded if any(_selected(item, p) for p in patterns)]
    if not chosen:
        raise SuiteUnreadable(f"--select {' '.join(patterns)} matches no case (a rule ID like SPLICE-3, an area "
                              "like splice, or a glob over case ids like 'lifecycle/*')")
    return chosen


class _Progress:
    """One self-overwriting line on a terminal: cases done, failures so far, the case running."""

    def __init__(self, stream: TextIO | None, total: int) -> None:
        self.stream, self.total, self.failed = stream, total, 0

    def show(self, done: int, case_id: str) -> None:
        if self.stream is not None:
            line = f"[{done}/{self.total}] {self.failed} failed  {escaped(case_id)}"
            write_meter(self.stream, "\r" + line[:100].ljust(100))
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            write_meter(self.stream, "\r" + " " * 100 + "\r")
            self.stream.flush()


def start_problem(err: AdapterFailure | AdapterError) -> str:
    """Why the adapter could not be started, in one line, then what it wrote on stderr (if anything)."""
    if isinstance(err, AdapterFailure):
        extra = [f"last line received: {err.last_received}"] if err.last_received else []
        head = err.what if err.what.startswith("cannot start") else f"cannot start the adapter: {err.what}"
        return "\n".join([head, *extra, *err.detail.splitlines()])
    return f"cannot start the adapter: {err}"


def _connect(connect: Callable[[], Adapter]) -> tuple[Adapter | None, str]:
    """A started adapter, or None and why (its first line says it all)."""
    try:
        return connect(), ""
    except (AdapterFailure, AdapterError) as err:
        return None, start_problem(err)


def run_suite(suite: Path, connect: Callable[[], Adapter], out: TextIO, *, select: Sequence[str] = (),
              fmt: str = "text", progress: TextIO | None = None, quiet: bool = False) -> RunReport:
    """Run every selected case of a suite (or one case file) in order and write the report in ``fmt``.

    ``progress`` (a terminal) gets a self-overwriting progress line; ``quiet`` leaves out of the text
    report the lines of cases that passed or were skipped (of other profiles only).  A dead or hung adapter fails
    its case and is started again (``connect``) for the next one; if it cannot be started the
    remaining cases are not run.
    """
    every = load_cases(suite)
    loaded = select_cases(every, select)
    provenance = Provenance(str(suite), suite_digest(suite), len(every), tuple(select), package_version(),
                            spec_digest())
    results: list[CaseResult] = []
    meter = _Progress(progress, len(loaded))
    adapter, why = _connect(connect)
    if adapter is None:
        raise AdapterUnavailable(why)
    implementation, profile = adapter.implementation, adapter.profile

    def emit(result: CaseResult) -> None:
        results.append(result)
        meter.failed += result.counts_against
        if fmt == "text" and not (quiet and not result.counts_against):
            meter.close()
            out.write(case_line(result) + "\n")

    for position, (case_id, case, _) in enumerate(loaded):
        assert case is not None, "load_cases refuses a suite with a broken case"
        meter.show(position, case_id)
        if adapter is None and not why:
            adapter, why = _connect(connect)
        if adapter is None:
            emit(CaseResult(case_id, NOT_RUN, "the adapter was not started again: "
                            + why.splitlines()[0], NO_ADAPTER))
        else:
            listed = case.get("rules")
            rules = tuple(str(rule) for rule in listed) if isinstance(listed, list) else ()
            gone = False
            try:
                result = run_case(adapter, case_id, case)
            except AdapterFailure as failure:
                result, gone = CaseResult(case_id, FAIL, failure.report()), True
            # A failed case names the rules its file lists, as a vector suite's reader expects.
            emit(attrs.evolve(result, rules=rules) if result.counts_against else result)
            if gone:
                adapter.close()
                adapter = None  # started again before the next case
    meter.close()
    if adapter is not None:
        adapter.close()
    report = RunReport(implementation, tuple(results), profile, provenance)
    {"json": write_json, "junit": write_junit}.get(fmt, write_text_end)(report, out)
    return report
