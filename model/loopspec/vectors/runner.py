"""``loopspec vectors run DIR -- COMMAND...``: a suite against an implementation, case by case.

Each case starts from ``reset``; its commands are sent in order and every observation is compared
with the expected one (spec/command-language.md, Comparing observations), then the final state.
A case fails at its first differing observation, which is reported with the path of the first
differing JSON value.  A case whose file does not match the manifest's checksum fails unrun.
If the adapter dies or hangs, the case in progress fails and every later case counts as not run;
any failure or unrun case makes the run fail.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import attrs

from loopspec.vectors.adapter.client import Adapter, AdapterError, AdapterFailure
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import first_difference, observation_difference

PASS, FAIL, NOT_RUN = "pass", "fail", "not-run"


@attrs.frozen
class CaseResult:
    id: str
    status: str
    detail: str = ""


@attrs.frozen
class RunReport:
    implementation: str
    results: tuple[CaseResult, ...]

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(r.status == PASS for r in self.results)

    def summary(self) -> str:
        return (f"{self.count(PASS)} passed, {self.count(FAIL)} failed, {self.count(NOT_RUN)} not run "
                f"(of {len(self.results)}) against {self.implementation}")


class SuiteUnreadable(Exception):
    """The suite directory has no readable manifest."""


def load_manifest(suite: Path) -> Json:
    try:
        manifest = json.loads((suite / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise SuiteUnreadable(f"{suite}/manifest.json: {err}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("cases"), list):
        raise SuiteUnreadable(f"{suite}/manifest.json: not a suite manifest")
    return manifest


def _load_case(suite: Path, entry: object) -> tuple[str, Json | None, str]:
    """(id, case or None, why it cannot run)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return "?", None, f"malformed manifest entry {entry!r}"
    case_id = str(entry.get("id", entry["path"]))
    try:
        data = (suite / entry["path"]).read_bytes()
    except OSError as err:
        return case_id, None, f"cannot read {entry['path']}: {err.strerror}"
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        return case_id, None, "checksum differs from manifest.json (edited case file? regenerate the suite)"
    try:
        case = json.loads(data)
    except ValueError as err:
        return case_id, None, f"not JSON: {err}"
    if not isinstance(case, dict) or not isinstance(case.get("steps"), list):
        return case_id, None, "not a vector case (no steps)"
    return case_id, case, ""


def _op(command: object) -> str:
    return str(command.get("op")) if isinstance(command, dict) else "?"


def run_case(adapter: Adapter, case_id: str, case: Json) -> CaseResult:
    """One case; :class:`AdapterFailure` propagates (the adapter is gone)."""
    steps = case["steps"]
    assert isinstance(steps, list)
    try:
        adapter.reset()
        for index, step in enumerate(steps):
            command = step.get("command") if isinstance(step, dict) else None
            expect = step.get("expect") if isinstance(step, dict) else None
            actual = adapter.command(command)  # type: ignore[arg-type]
            diff = observation_difference(expect, actual)
            if diff is not None:
                return CaseResult(case_id, FAIL, f"step {index} ({_op(command)}): {diff}")
        diff = first_difference(case.get("final"), adapter.state())
    except AdapterError as err:
        return CaseResult(case_id, FAIL, str(err))
    if diff is not None:
        return CaseResult(case_id, FAIL, f"final state: {diff}")
    return CaseResult(case_id, PASS)


def load_cases(path: Path) -> list[tuple[str, Json | None, str]]:
    """The cases of a suite directory (checked against its manifest), or one case file as is."""
    if path.is_dir():
        entries = load_manifest(path)["cases"]
        assert isinstance(entries, list)
        return [_load_case(path, entry) for entry in entries]
    try:
        case = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise SuiteUnreadable(f"{path}: {err}") from None
    if not isinstance(case, dict) or not isinstance(case.get("steps"), list):
        raise SuiteUnreadable(f"{path}: not a vector case (no steps)")
    return [(str(case.get("id", path.stem)), case, "")]


def run_suite(suite: Path, connect: Callable[[], Adapter], out: TextIO) -> RunReport:
    """Run every case of a suite (or one case file) in order, printing one line per case and a summary."""
    loaded = load_cases(suite)
    results: list[CaseResult] = []
    implementation = "?"

    def emit(result: CaseResult) -> None:
        results.append(result)
        line = f"{result.status.upper():7} {result.id}"
        out.write(line + (f"\n        {result.detail}" if result.detail else "") + "\n")

    adapter: Adapter | None = None
    try:
        adapter = connect()
        implementation = adapter.implementation
    except (AdapterFailure, AdapterError) as err:
        out.write(f"cannot start the adapter:\n{err}\n")
    for position, (case_id, case, why) in enumerate(loaded):
        if adapter is None:
            emit(CaseResult(case_id, NOT_RUN))
            continue
        if case is None:
            emit(CaseResult(case_id, FAIL, why))
            continue
        try:
            emit(run_case(adapter, case_id, case))
        except AdapterFailure as failure:
            emit(CaseResult(case_id, FAIL, failure.report().replace("\n", "\n        ")))
            for later_id, _, _ in loaded[position + 1 :]:
                emit(CaseResult(later_id, NOT_RUN))
            adapter.close()
            adapter = None
            break
    if adapter is not None:
        adapter.close()
    report = RunReport(implementation, tuple(results))
    out.write(report.summary() + "\n")
    return report
