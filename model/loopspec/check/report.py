"""Rendering verdicts: JSON and JUnit XML (plain text: :mod:`loopspec.check.report_text`).

Every report says which tool judged (package version and spec digest, :class:`ToolInfo`) and,
for each violation, where its rule is stated (``spec/NN-chapter.md#anchor``); JSON also carries
the rule's sentence, so a CI artefact is readable without the spec at hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from loopspec.check.manifest import Expectation
from loopspec.check.report_text import Summary, render_text, render_violation
from loopspec.check.tool_info import ToolInfo
from loopspec.check.verdict import LogResult, Violation
from loopspec.data.xml_text import xml_safe

if TYPE_CHECKING:  # the spec and the XML writer are loaded when a report needs them (start-up time)
    import xml.etree.ElementTree as ET


def _json_violation(v: Violation, tool: ToolInfo) -> dict[str, object]:
    entry: dict[str, object] = {k: as_data(value) for k, value in v._asdict().items()}
    rule = tool.rule(v.rule)
    entry["rule_text"] = rule.rule if rule is not None else None
    entry["rule_why"] = rule.why if rule is not None else None
    entry["spec_section"] = rule.section if rule is not None else None
    return entry


def _json_log(r: LogResult, tool: ToolInfo) -> dict[str, object]:
    entry = {k: as_data(v) for k, v in r._asdict().items() if k not in ("seconds", "violations")}
    entry["violations"] = [_json_violation(v, tool) for v in r.violations]
    entry["seconds"] = round(r.seconds, 6)
    return entry


def render_json(results: Sequence[LogResult], summary: Summary, tool: ToolInfo | None = None) -> str:
    tool = tool or ToolInfo.current()
    body = {"tool": tool.as_json(), "logs": [_json_log(r, tool) for r in results],
            "summary": summary._asdict() | {"events_per_second": round(summary.rate)}}
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
        case = ET.SubElement(suite, "testcase", {"classname": "loopspec.check", "name": xml_safe(r.file),
                                                 "time": f"{r.seconds:.3f}"})
        if r.status == "unusable":
            ET.SubElement(case, "error", {"type": "unusable", "message": xml_safe(r.problem or "")})
        for v in r.violations:
            failure = ET.SubElement(case, "failure", {"type": v.rule, "message": xml_safe(f"[{v.rule}] {v.message}")})
            failure.text = xml_safe("\n".join(render_violation(v, indent="", tool=tool)))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _junit_properties(suite: ET.Element, tool: ToolInfo | None) -> None:
    import xml.etree.ElementTree as ET

    if tool is not None:
        props = ET.SubElement(suite, "properties")
        for name, value in (("loopspec.version", tool.version), ("loopspec.spec_digest", tool.spec_digest)):
            ET.SubElement(props, "property", {"name": name, "value": xml_safe(value)})


# ``loopspec check --format``: each report format and its renderer (``quiet`` shortens the text one);
# its keys are ``report_text.FORMAT_NAMES``, which the command line offers without importing this module.
FORMATS: Mapping[str, Callable[[Sequence[LogResult], Summary, bool, ToolInfo | None], str]] = MappingProxyType({
    "text": render_text,
    "json": lambda results, summary, _, tool: render_json(results, summary, tool),
    "junit": lambda results, summary, _, tool: render_junit(results, summary, tool),
})


def render(fmt: str, results: Sequence[LogResult], summary: Summary, quiet: bool = False) -> str:
    """The report in format ``fmt``, citing the rules of the spec this tool reads."""
    return FORMATS.get(fmt, render_text)(results, summary, quiet, ToolInfo.current())


def as_data(value: object) -> object:
    """A verdict value (a named tuple, :mod:`loopspec.check.verdict`) as JSON data, nested values too."""
    if isinstance(value, tuple):
        fields = getattr(value, "_asdict", None)
        if fields is not None:
            return {k: as_data(v) for k, v in fields().items()}
        return [as_data(v) for v in value]
    return value


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
            case = ET.SubElement(suite, "testcase", {"classname": "loopspec.check.manifest",
                                                      "name": xml_safe(str(e.path)), "time": f"{r.seconds:.3f}"})
            if mismatch is not None:
                ET.SubElement(case, "failure", {"type": "mismatch", "message": xml_safe(f"{_expected(e)}: {mismatch}")})
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
