"""The plain-text report of ``loopspec check`` (Elle-style explanations) and the run's summary.

Apart from the JSON and JUnit reports (:mod:`loopspec.check.report`) because the text report is
the default and a check of valid logs needs nothing else: it cites no rule, so neither the spec nor
the tool's version is read, and the other formats' imports are not paid (start-up time,
docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from loopspec.check.verdict import LogResult, Violation
from loopspec.data.terminal_text import escaped

if TYPE_CHECKING:
    from loopspec.check.tool_info import ToolInfo

# ``loopspec check --format``: the names of ``report.FORMATS`` (tests/cli/test_startup.py holds them equal).
FORMAT_NAMES = ("text", "json", "junit")
# One log's page, drawn by loopspec.render.violation rather than by a report of this package.
HTML = "html"


class Summary(NamedTuple):
    """What a run checked, counted, and how long it took."""

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
    import textwrap  # only a report with a violation wraps text

    # Lines break between words only ("next-step" stays whole).
    return textwrap.wrap(escaped(text), width=110, initial_indent=f"{indent}{label}", subsequent_indent=indent + "  ",
                         break_on_hyphens=False)


def render_violation(v: Violation, indent: str = "  ", tool: ToolInfo | None = None) -> list[str]:
    where = f"line {v.line}" + (f", seq {v.seq}" if v.seq is not None else "")
    repeats = f" (and {v.repeats} more like it)" if v.repeats else ""
    out = [f"{indent}[{v.rule}] {v.file} {where}: {v.message}{repeats}"]
    inner = indent + "    "
    if v.because:  # the facts of this case; the norm and its reason are the catalogue's
        out += _wrap("facts: ", v.because, inner)
    rule = tool.rule(v.rule) if tool is not None else None
    if rule is not None and tool is not None:
        out += _wrap("rule: ", rule.rule, inner)
        out += _wrap("why: ", rule.why, inner)
        out.append(f"{inner}see: {tool.where_stated(rule)}")
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


