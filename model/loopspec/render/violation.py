"""``loopspec check --format html``: each verdict as a page, the first violation drawn where it happens.

A page shows the turns around the first violation with the offending event highlighted and the
events that set it up marked; beside the picture stand the text report's facts — rule ID and the
rule's sentence from the catalogue, the message, why, the state before.  The folds interpret the
log only up to the offending event (the prefix the checker accepted); the rest is drawn as read.

One log without ``--out`` prints its page; with ``--out DIR`` every log gets ``DIR/NNN-NAME.html``
and ``DIR/index.html`` lists them with their verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from loopspec.check.reader import UNREADABLE
from loopspec.check.report_text import HTML
from loopspec.check.verdict import LogResult, Violation
from loopspec.render.build import build
from loopspec.render.page import render_page
from loopspec.render.source import open_source
from loopspec.render.svg_text import text
from loopspec.render.timeline import Highlight
from loopspec.render.window import AROUND_TURNS, WindowSpec
from loopspec.rules.catalogue import SpecFormatError, load_spec


def usage_problem(fmt: str, out: str | Path | None, logs: int) -> str | None:
    """Why these arguments cannot make HTML (None when they can); ``logs`` is how many logs were found."""
    if fmt != HTML:
        return "--out is only used with --format html" if out is not None else None
    if out is None and logs != 1:
        return "--format html prints one log's page; give --out DIR for several logs"
    return None


def _sentences() -> dict[str, str]:
    try:
        return {rule.id: rule.rule for rule in load_spec().rules}
    except SpecFormatError:  # an installed package without the spec: the page still names the rule
        return {}


def _index_of(v: Violation) -> int:
    """The offending line's index: its seq in a log whose prefix is valid (LOG-2), also when its own seq lies."""
    return v.line - 1


def highlight(v: Violation, sentences: dict[str, str], in_log: bool) -> Highlight:
    refs = v.context if in_log else ()
    return Highlight(
        seq=_index_of(v) if in_log else None, line=v.line, rule=v.rule,
        sentence=sentences.get(v.rule, "(rule text not available)"), message=v.message, because=v.because,
        state=v.state.render() if v.state is not None else "(not known)",
        context=tuple(r.line - 1 for r in refs),
        context_text=tuple(r.render() for r in (v.context if v.context else ())),
        file=Path(v.file).name, live_line=None if in_log else v.line,
    )


def page(result: LogResult, live: Path | None, sentences: dict[str, str]) -> str:
    """The page of one verdict."""
    if result.status == "unusable":
        return _plain(f"loopspec check: {result.file}", f"UNUSABLE: {result.problem}")
    path = Path(result.file)
    if result.status == "valid":
        timeline = build(path, live=live)
        return render_page(timeline, WindowSpec().describe(timeline), heading=f"VALID ({result.events:,} events)")
    first = result.violations[0]
    in_log = first.file == result.file  # a live-stream violation names the live file, not a log line
    mark = highlight(first, sentences, in_log)
    if in_log:
        window = WindowSpec(turns=AROUND_TURNS, around=_index_of(first))
        timeline = build(path, window, live=live, stop_before=_index_of(first), highlight=mark)
    else:  # drawn around the place in the log the live record stands at (its nextSeq)
        at = first.seq if first.seq is not None else _live_position(live, first.line)
        window = WindowSpec(turns=AROUND_TURNS, around=at) if at is not None else WindowSpec()
        timeline = build(path, window, live=live, highlight=mark)
    side = "" if in_log else " (the live recording)"
    heading = f"INVALID: [{first.rule}] at line {first.line} of {Path(first.file).name}{side}" + (
        f" and {len(result.violations) - 1} more violation(s)" if len(result.violations) > 1 else "")
    more = "".join(f"<li><code>[{text(v.rule)}] {text(v.file)} line {v.line}: {text(v.message)}</code></li>"
                   for v in result.violations[1:])
    return render_page(timeline, window.describe(timeline), heading=heading,
                       after=f"<h2>Further violations</h2><ul>{more}</ul>\n" if more else "")


def _live_position(live: Path | None, line: int) -> int | None:
    """The seq before which the live recording's record at ``line`` stands (its ``nextSeq``), if it says."""
    if live is None:
        return None
    with open_source(live) as stream:
        for number, raw in enumerate(stream, start=1):
            if number == line:
                try:
                    record = json.loads(raw.decode("utf-8", errors="replace"))
                except ValueError:
                    return None
                at = record.get("nextSeq") if isinstance(record, dict) else None
                return max(0, at - 1) if type(at) is int else None
    return None


def _plain(title: str, message: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{text(title)}</title></head>'
            f"<body><h1>{text(title)}</h1><p>{text(message)}</p></body></html>\n")


def _safe_page(result: LogResult, live: Path | None, sentences: dict[str, str]) -> str:
    try:
        return page(result, live, sentences)
    except UNREADABLE as err:  # the file changed or vanished since it was checked
        return _plain(f"loopspec check: {result.file}", f"cannot draw: {err}")


def _index(results: Sequence[LogResult], names: Sequence[str]) -> str:
    rows = []
    for result, name in zip(results, names, strict=True):
        first = result.violations[0] if result.violations else None
        what = f"[{first.rule}] line {first.line}: {first.message}" if first else (result.problem or "")
        rows.append(f'<tr class="{result.status}"><td><a href="{text(name)}">{text(result.file)}</a></td>'
                    f"<td>{result.status.upper()}</td><td>{result.events:,}</td><td>{text(what)}</td></tr>")
    head = "<tr><th>log</th><th>verdict</th><th>events</th><th>first violation</th></tr>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>loopspec check</title>'
        "<style>body{font-family:ui-sans-serif,system-ui,sans-serif;margin:16px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}tr.invalid td{background:#fff5f5}"
        "tr.unusable td{background:#f3f3f3}</style></head><body><h1>loopspec check</h1>"
        f"<table>{head}{''.join(rows)}</table></body></html>\n"
    )


def write_html(results: Sequence[LogResult], out: str | Path | None, live: str | Path | None,
               stdout: TextIO) -> str | None:
    """Print the one page, or write every page and the index under ``out``; why not, when it cannot."""
    sentences = _sentences()
    live = None if live is None else Path(live)
    if out is None:
        stdout.write(_safe_page(results[0], live, sentences))
        return None
    out = Path(out)
    names = [f"{n:03d}-{Path(r.file).name}.html" for n, r in enumerate(results, start=1)]
    try:
        out.mkdir(parents=True, exist_ok=True)
        for result, name in zip(results, names, strict=True):
            (out / name).write_text(_safe_page(result, live, sentences), encoding="utf-8")
        (out / "index.html").write_text(_index(results, names), encoding="utf-8")
    except OSError as err:
        return f"cannot write {out}: {err.strerror or err}"
    stdout.write(f"wrote {out / 'index.html'} and {len(names)} page(s)\n")
    return None
