"""Rendering verdicts: plain text (Elle-style explanations), JSON, and JUnit XML."""

from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import attrs

from loopspec.check.verdict import LogResult, Violation

# Characters XML 1.0 cannot carry (control characters, lone surrogates) may come from garbage input.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


def render_violation(v: Violation, indent: str = "  ") -> list[str]:
    where = f"line {v.line}" + (f", seq {v.seq}" if v.seq is not None else "")
    repeats = f" (and {v.repeats} more like it)" if v.repeats else ""
    out = [f"{indent}[{v.rule}] {v.file} {where}: {v.message}{repeats}"]
    inner = indent + "    "
    out += _wrap("because: ", v.because, inner)
    if v.state is not None:
        out += _wrap("state before: ", v.state.render(), inner)
    if v.context:
        out.append(f"{inner}set up by:")
        out += [f"{inner}  {ref.render()}" for ref in v.context]
    if v.event is not None:
        out.append(f"{inner}offending: {v.event.render()}")
    return out


def render_text(results: Sequence[LogResult], summary: Summary, quiet: bool = False) -> str:
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
            lines += render_violation(v)
    lines.append(summary.line())
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[LogResult], summary: Summary) -> str:
    logs = []
    for r in results:
        entry = attrs.asdict(r, filter=lambda a, _: a.name != "seconds")
        entry["seconds"] = round(r.seconds, 6)
        logs.append(entry)
    body = {"logs": logs, "summary": attrs.asdict(summary) | {"events_per_second": round(summary.rate)}}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def render_junit(results: Sequence[LogResult], summary: Summary) -> str:
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
    for r in results:
        case = ET.SubElement(suite, "testcase", {"classname": "loopspec.check", "name": _xml(r.file),
                                                 "time": f"{r.seconds:.3f}"})
        if r.status == "unusable":
            ET.SubElement(case, "error", {"type": "unusable", "message": _xml(r.problem or "")})
        for v in r.violations:
            failure = ET.SubElement(case, "failure", {"type": v.rule, "message": _xml(f"[{v.rule}] {v.message}")})
            failure.text = _xml("\n".join(render_violation(v, indent="")))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


# ``loopspec check --format``: each report format and its renderer (``quiet`` shortens the text one).
FORMATS: Mapping[str, Callable[[Sequence[LogResult], Summary, bool], str]] = MappingProxyType({
    "text": render_text,
    "json": lambda results, summary, _: render_json(results, summary),
    "junit": lambda results, summary, _: render_junit(results, summary),
})


def render(fmt: str, results: Sequence[LogResult], summary: Summary, quiet: bool = False) -> str:
    return FORMATS.get(fmt, render_text)(results, summary, quiet)
