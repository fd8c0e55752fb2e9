"""What ``loopspec vectors run`` found, as values and in three formats (text, json, junit).

A case is ``pass``, ``fail`` or ``not-run``; a not-run case says why: ``outside-profile`` (it
needs a command the adapter's profile does not have — this does not fail the run),
``unsupported`` (the adapter answered ``unsupported`` to a command of its own profile) or
``no-adapter`` (the adapter could not be started).  The verdict is per profile: an
implementation *conforms to profile P* when every case of the suite that P can run passed.  A run
of a selection (``--select``) proves no conformance, however it ends: it says how many of the
suite's cases it ran, and a failure in it is still a failure.  Every report names what it judged
with (:class:`Provenance`): the suite and its digest, the selection, the tool and the spec.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO
from xml.sax.saxutils import quoteattr

import attrs

PASS, FAIL, NOT_RUN = "pass", "fail", "not-run"
OUTSIDE_PROFILE, UNSUPPORTED, NO_ADAPTER = "outside-profile", "unsupported", "no-adapter"
RUN_FORMAT = "loopspec-run/1"
FORMATS = ("text", "json", "junit")


@attrs.frozen
class CaseResult:
    id: str
    status: str
    detail: str = ""
    reason: str = ""
    """Why a case was not run (``outside-profile``, ``unsupported``, ``no-adapter``)."""
    rules: tuple[str, ...] = ()
    """The rules the case file says a failing case shows broken (its ``rules``), for the report."""

    @property
    def area(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def counts_against(self) -> bool:
        """Whether this result makes the run fail: anything but a pass or a case outside the profile."""
        return self.status != PASS and self.reason != OUTSIDE_PROFILE

    @property
    def label(self) -> str:
        if self.reason == OUTSIDE_PROFILE:
            return "SKIPPED"  # of other profiles only: never counted against the profile
        return {PASS: "PASS", FAIL: "FAIL"}.get(self.status, "NOT RUN")


@attrs.frozen
class Provenance:
    """What a run judged with: the suite (its path, the digest of its manifest or case file, how many
    cases it holds), the selection that chose the cases run, loopspec's version and its spec's digest."""

    suite: str = ""
    digest: str = ""
    cases: int = 0
    selection: tuple[str, ...] = ()
    tool: str = ""
    spec: str = ""

    def to_json(self) -> dict[str, object]:
        return {"suite": {"path": self.suite, "sha256": self.digest, "cases": self.cases},
                "selection": list(self.selection), "tool": self.tool, "spec": self.spec}

    def line(self) -> str:
        chosen = f"--select {' '.join(self.selection)}" if self.selection else "every case"
        return (f"suite {self.suite} (sha256 {self.digest[:16]}, {self.cases} case(s)), {chosen}; "
                f"loopspec {self.tool}, spec {self.spec[:23]}")


@attrs.frozen
class RunReport:
    implementation: str
    results: tuple[CaseResult, ...]
    profile: str = "full"
    provenance: Provenance = Provenance()

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    def count_reason(self, reason: str) -> int:
        return sum(1 for r in self.results if r.reason == reason)

    @property
    def of_profile(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if r.reason != OUTSIDE_PROFILE)

    @property
    def ok(self) -> bool:
        """Nothing ran failed or went unrun (the exit code); conformance needs the whole suite too."""
        return bool(self.of_profile) and not any(r.counts_against for r in self.results)

    @property
    def conforms(self) -> bool | None:
        """True or False for a run of the whole suite; a selection that passed establishes nothing (None)."""
        if self.provenance.selection and self.ok:
            return None
        return self.ok

    def verdict(self) -> str:
        mine = self.of_profile
        if mine and all(r.reason == NO_ADAPTER for r in mine):
            return "the adapter could not be started: nothing was tested"
        if not mine:
            return f"no case of the suite runs on profile {self.profile}: nothing was tested"
        # Cases of other profiles are named as such: "conforms to profile full" must not read as
        # "every case of the suite ran".
        outside = self.count_reason(OUTSIDE_PROFILE)
        others = f"; {outside} case(s) of other profiles only skipped" if outside else ""
        chosen = self.provenance.selection
        if chosen and self.ok:
            return (f"the {len(mine)} selected case(s) of profile {self.profile} passed against "
                    f"{self.implementation} ({len(self.results)} of the suite's {self.provenance.cases} case(s), "
                    f"--select {' '.join(chosen)}{others}); a selection proves no conformance: run every case")
        if self.ok:
            passed = f"{len(mine)} case(s) of the profile passed"
            return f"{self.implementation} conforms to profile {self.profile} ({passed}{others})"
        bad = sum(1 for r in mine if r.counts_against)
        which = "selected case(s)" if chosen else "case(s) of the profile"
        return (f"{self.implementation} does NOT conform to profile {self.profile}: "
                f"{bad} of {len(mine)} {which} failed or were not run{others}")

    def summary(self) -> str:
        # A case of other profiles only is skipped as the profile asks and never counts against it;
        # "not run" is said only of the profile's own cases, each of which fails the run (exit 1).
        outside = self.count_reason(OUTSIDE_PROFILE)
        skipped = f", {outside} skipped (of other profiles only)" if outside else ""
        return (f"{self.count(PASS)} passed, {self.count(FAIL)} failed, {self.count(NOT_RUN) - outside} not run"
                f"{skipped} (of {len(self.results)}) against {self.implementation}")

    def areas(self) -> dict[str, Counter[str]]:
        """Per area: passed, failed, not run (of the profile) and, under ``outside-profile``, skipped."""
        out: dict[str, Counter[str]] = {}
        for r in self.results:
            out.setdefault(r.area, Counter())[OUTSIDE_PROFILE if r.reason == OUTSIDE_PROFILE else r.status] += 1
        return out

    def area_lines(self) -> list[str]:
        width = max((len(a) for a in self.areas()), default=0)
        return [f"  {area:{width}}  {c[PASS]:4} passed  {c[FAIL]:4} failed  {c[NOT_RUN]:4} not run"
                + (f"  {c[OUTSIDE_PROFILE]:4} skipped" if c[OUTSIDE_PROFILE] else "")
                for area, c in sorted(self.areas().items())]


def case_line(result: CaseResult) -> str:
    """One case in the text format (two lines when there is a detail)."""
    detail = result.detail or result.reason
    rules = f"  (rules: {', '.join(result.rules)})" if result.rules else ""
    text = f"{result.label:7} {result.id}{rules}"
    return text + ("\n        " + detail.replace("\n", "\n        ") if detail else "")


def write_text_end(report: RunReport, out: TextIO) -> None:
    out.write("per area:\n" + "\n".join(report.area_lines()) + "\n")
    out.write(report.summary() + "\n")
    out.write("judged with " + report.provenance.line() + "\n")
    out.write(report.verdict() + "\n")


def as_json(report: RunReport) -> dict[str, object]:
    return {
        "format": RUN_FORMAT,
        "implementation": report.implementation,
        "profile": report.profile,
        **report.provenance.to_json(),
        "conforms": report.conforms,
        "verdict": report.verdict(),
        "counts": {PASS: report.count(PASS), FAIL: report.count(FAIL), NOT_RUN: report.count(NOT_RUN),
                   OUTSIDE_PROFILE: report.count_reason(OUTSIDE_PROFILE)},
        "areas": {area: {PASS: c[PASS], FAIL: c[FAIL], NOT_RUN: c[NOT_RUN] + c[OUTSIDE_PROFILE]}
                  for area, c in sorted(report.areas().items())},
        "cases": [{"id": r.id, "area": r.area, "status": r.status,
                   **({"reason": r.reason} if r.reason else {}), **({"detail": r.detail} if r.detail else {}),
                   **({"rules": list(r.rules)} if r.rules else {})}
                  for r in report.results],
    }


def write_json(report: RunReport, out: TextIO) -> None:
    out.write(json.dumps(as_json(report), indent=1, ensure_ascii=False) + "\n")


def _testcase(r: CaseResult) -> str:
    head = f'  <testcase classname={quoteattr("loopspec." + r.area)} name={quoteattr(r.id)}'
    message = quoteattr((r.detail or r.reason).split("\n", 1)[0])
    body = (r.detail or r.reason).replace("]]>", "]]]]><![CDATA[>")
    if r.status == PASS:
        return head + "/>"
    if r.status == FAIL:
        return f"{head}>\n   <failure message={message}><![CDATA[{body}]]></failure>\n  </testcase>"
    if r.reason == OUTSIDE_PROFILE:
        return f"{head}>\n   <skipped message={message}/>\n  </testcase>"
    return f"{head}>\n   <error type={quoteattr(r.reason)} message={message}><![CDATA[{body}]]></error>\n  </testcase>"


def _flat(provenance: Provenance) -> list[tuple[str, str]]:
    return [("suite", provenance.suite), ("suite.sha256", provenance.digest), ("suite.cases", str(provenance.cases)),
            ("selection", " ".join(provenance.selection)), ("loopspec", provenance.tool), ("spec", provenance.spec)]


def _property(name: str, value: str) -> str:
    return f"<property name={quoteattr(name)} value={quoteattr(value)}/>"


def write_junit(report: RunReport, out: TextIO) -> None:
    """JUnit XML: one ``testsuite`` per area, skipped for cases outside the profile."""
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<testsuites name={quoteattr("loopspec vectors: " + report.verdict())} tests="{len(report.results)}" '
              f'failures="{report.count(FAIL)}">\n')
    properties = f"  <properties>{''.join(_property(k, v) for k, v in _flat(report.provenance))}</properties>"
    by_area: dict[str, list[CaseResult]] = {}
    for r in report.results:
        by_area.setdefault(r.area, []).append(r)
    for area, results in sorted(by_area.items()):
        failures = sum(1 for r in results if r.status == FAIL)
        errors = sum(1 for r in results if r.status == NOT_RUN and r.reason != OUTSIDE_PROFILE)
        skipped = sum(1 for r in results if r.reason == OUTSIDE_PROFILE)
        out.write(f' <testsuite name={quoteattr("loopspec." + area)} tests="{len(results)}" failures="{failures}" '
                  f'errors="{errors}" skipped="{skipped}">\n{properties}\n')
        out.write("\n".join(_testcase(r) for r in results) + "\n </testsuite>\n")
    out.write("</testsuites>\n")
