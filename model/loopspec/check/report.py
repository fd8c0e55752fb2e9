"""Rendering verdicts: plain text (Elle-style explanations), JSON, and JUnit XML.

Every report says which tool judged (package version and spec digest, :class:`ToolInfo`) and,
for each violation, where its rule is stated (``spec/NN-chapter.md#anchor``); JSON also carries
the rule's sentence, so a CI artefact is readable without the spec at hand.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import attrs

from loopspec.check.manifest import Expectation
from loopspec.check.verdict import LogResult, Violation

if TYPE_CHECKING:  # the spec and the XML writer are loaded when a report needs them (start-up time)
    import xml.etree.ElementTree as ET

    from loopspec.rules.catalogue import Rule

# Characters XML 1.0 cannot carry (control characters, lone surrogates) may come from garbage input.
# Compiled on first use (by re's cache): building this class costs start-up time.
_NOT_XML = "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _xml(text: str) -> str:
    return re.sub(_NOT_XML, lambda m: f"\\u{ord(m.group()):04x}", text)


@attrs.frozen
class ToolInfo:
    """Which loopspec judged, against which spec: the rules a report cites are looked up here."""

    version: str
    spec_digest: str
    rules: tuple[Rule, ...] = ()

    @classmethod
    def current(cls) -> ToolInfo:
        from loopspec.rules.catalogue import SpecFormatError, load_spec
        from loopspec.rules.shipped import SpecMissing, package_version, spec_digest

        try:
            return cls(package_version(), spec_digest(), load_spec().rules)
        except (SpecMissing, SpecFormatError) as err:  # a report is still worth having without the spec
            return cls(package_version(), f"unavailable ({err})")

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def as_json(self) -> dict[str, str]:
        return {"name": "loopspec", "version": self.version, "spec_digest": self.spec_digest}


@attrs.frozen
class Summary:
    logs: int
    valid: int
    invalid: int
    unusable: int
    events: int
    seconds: float

    @classmethod
    def of(cls, results: Sequence[LogResult], seconds: float) -> Summary:
        count = {status: sum(1 for r in results if r.status == status) for status in ("valid", "invalid", "unusable")}
        return cls(len(results), count["valid"], count["invalid"], count["unusable"],
                   sum(r.events for r in results), seconds)

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0

    def line(self) -> str:
        return (f"checked {self.logs} log(s): {self.valid} valid, {self.invalid} invalid, {self.unusable} unusable; "
                f"{self.events:,} events in {self.seconds:.2f} s ({self.rate:,.0f} events/s)")


def _wrap(label: str, text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, width=110, initial_indent=f"{indent}{label}", subsequent_indent=indent + "  ")


def render_violation(v: Violation, indent: str = "  ", tool: ToolInfo | None = None) -> list[str]:
    where = f"line {v.line}" + (f", seq {v.seq}" if v.seq is not None else "")
    repeats = f" (and {v.repeats} more like it)" if v.repeats else ""
    out = [f"{indent}[{v.rule}] {v.file} {where}: {v.message}{repeats}"]
    inner = indent + "    "
    out += _wrap("because: ", v.because, inner)
    rule = tool.rule(v.rule) if tool is not None else None
    if rule is not None:
        out.append(f"{inner}rule: {rule.section}")
    if v.state is not None:
        out += _wrap("state before: ", v.state.render(), inner)
    if v.context:
        out.append(f"{inner}set up by:")
        out += [f"{inner}  {ref.render()}" for ref in v.context]
    if v.event is not None:
        out.append(f"{inner}offending: {v.event.render()}")
    return out


def render_text(results: Sequence[LogResult], summary: Summary, quiet: bool = False,
                tool: ToolInfo | None = None) -> str:
    lines: list[str] = []
    for r in results:
        if r.status == "unusable":
            lines.append(f"{r.file}: UNUSABLE - {r.problem}")
            continue
        torn = " (torn tail ignored)" if r.torn_tail else ""
        if r.status == "valid":
            if not quiet:
                lines.append(f"{r.file}: VALID ({r.events:,} events){torn}")
            continue
        more = " (stopped at --max-violations)" if r.truncated else ""
        lines.append(f"{r.file}: INVALID - {len(r.violations)} violation(s){more}{torn}")
        for v in r.violations:
            lines += render_violation(v, tool=tool)
    lines.append(summary.line())
    return "\n".join(lines) + "\n"


def _json_violation(v: Violation, tool: ToolInfo) -> dict[str, object]:
    entry = attrs.asdict(v)
    rule = tool.rule(v.rule)
    entry["rule_text"] = rule.rule if rule is not None else None
    entry["spec_section"] = rule.section if rule is not None else None
    return entry


def _json_log(r: LogResult, tool: ToolInfo) -> dict[str, object]:
    entry = attrs.asdict(r, filter=lambda a, _: a.name not in ("seconds", "violations"))
    entry["violations"] = [_json_violation(v, tool) for v in r.violations]
    entry["seconds"] = round(r.seconds, 6)
    return entry


def render_json(results: Sequence[LogResult], summary: Summary, tool: ToolInfo | None = None) -> str:
    tool = tool or ToolInfo.current()
    body = {"tool": tool.as_json(), "logs": [_json_log(r, tool) for r in results],
            "summary": attrs.asdict(summary) | {"events_per_second": round(summary.rate)}}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def render_junit(results: Sequence[LogResult], summary: Summary, tool: ToolInfo | None = None) -> str:
    import xml.etree.ElementTree as ET

    failures = sum(1 for r in results if r.status == "invalid")
    attrs_common = {
        "name": "loopspec check",
        "tests": str(len(results)),
        "failures": str(failures),
        "errors": str(summary.unusable),
        "time": f"{summary.seconds:.3f}",
    }
    suites = ET.Element("testsuites", attrs_common)
    suite = ET.SubElement(suites, "testsuite", attrs_common)
    _junit_properties(suite, tool)
    for r in results:
        case = ET.SubElement(suite, "testcase", {"classname": "loopspec.check", "name": _xml(r.file),
                                                 "time": f"{r.seconds:.3f}"})
        if r.status == "unusable":
            ET.SubElement(case, "error", {"type": "unusable", "message": _xml(r.problem or "")})
        for v in r.violations:
            failure = ET.SubElement(case, "failure", {"type": v.rule, "message": _xml(f"[{v.rule}] {v.message}")})
            failure.text = _xml("\n".join(render_violation(v, indent="", tool=tool)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _junit_properties(suite: ET.Element, tool: ToolInfo | None) -> None:
    import xml.etree.ElementTree as ET

    if tool is not None:
        props = ET.SubElement(suite, "properties")
        for name, value in (("loopspec.version", tool.version), ("loopspec.spec_digest", tool.spec_digest)):
            ET.SubElement(props, "property", {"name": name, "value": _xml(value)})


# ``loopspec check --format``: each report format and its renderer (``quiet`` shortens the text one).
FORMATS: Mapping[str, Callable[[Sequence[LogResult], Summary, bool, ToolInfo | None], str]] = MappingProxyType({
    "text": render_text,
    "json": lambda results, summary, _, tool: render_json(results, summary, tool),
    "junit": lambda results, summary, _, tool: render_junit(results, summary, tool),
})


def render(fmt: str, results: Sequence[LogResult], summary: Summary, quiet: bool = False) -> str:
    # A text report of valid logs cites no rule: reading the spec would only cost start-up time.
    tool = ToolInfo.current() if fmt != "text" or any(r.violations for r in results) else None
    return FORMATS.get(fmt, render_text)(results, summary, quiet, tool)


ManifestOutcome = tuple[Expectation, LogResult, str | None]


def _expected(e: Expectation) -> str:
    return e.verdict + (f" {e.rule}" if e.rule else "")


def render_manifest(fmt: str, manifest: str, outcomes: Sequence[ManifestOutcome], summary: Summary,
                    quiet: bool = False) -> str:
    """The manifest run (``check --manifest``): per example its expected verdict and whether it got it."""
    import xml.etree.ElementTree as ET

    tool = ToolInfo.current()
    bad = sum(1 for *_, mismatch in outcomes if mismatch is not None)
    if fmt == "json":
        examples = [{"file": str(e.path), "expected": {"verdict": e.verdict, "rule": e.rule}, "ok": m is None,
                     "mismatch": m, "result": _json_log(r, tool)} for e, r, m in outcomes]
        body = {"tool": tool.as_json(), "manifest": manifest, "examples": examples,
                "summary": {"examples": len(outcomes), "as_expected": len(outcomes) - bad, "mismatched": bad}}
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if fmt == "junit":
        counts = {"name": f"loopspec check --manifest {manifest}", "tests": str(len(outcomes)),
                  "failures": str(bad), "errors": "0", "time": f"{summary.seconds:.3f}"}
        suites = ET.Element("testsuites", counts)
        suite = ET.SubElement(suites, "testsuite", counts)
        _junit_properties(suite, tool)
        for e, r, mismatch in outcomes:
            case = ET.SubElement(suite, "testcase", {"classname": "loopspec.check.manifest", "name": _xml(str(e.path)),
                                                      "time": f"{r.seconds:.3f}"})
            if mismatch is not None:
                ET.SubElement(case, "failure", {"type": "mismatch", "message": _xml(f"{_expected(e)}: {mismatch}")})
        ET.indent(suites)
        return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
    lines = []
    for e, _, mismatch in outcomes:
        if mismatch is not None:
            lines.append(f"MISMATCH {e.path}: {mismatch}")
        elif not quiet:
            lines.append(f"ok       {e.path}: {_expected(e)}")
    lines.append(f"manifest: {len(outcomes) - bad}/{len(outcomes)} example(s) as expected; {summary.line()}")
    return "\n".join(lines) + "\n"
