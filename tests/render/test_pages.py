"""The pages and pictures reference nothing outside themselves, and the check page says what the report says.

A page must open from disk with no network: no URL, no script, no link, no external font or
image.  The standalone SVG may hold one URL only: its XML namespace, which is a name, never fetched.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions
from loopspec.cli import main
from loopspec.render.build import build
from loopspec.render.page import render_page
from loopspec.render.svg import SVG_NAMESPACE, render_svg
from loopspec.render.window import WindowSpec
from render.drawing import EXAMPLES, SVG, Drawing, live_of, recordings

INVALID = sorted((EXAMPLES / "invalid").glob("*.events.jsonl"))  # the session logs (a live recording is no log)
OUTSIDE = re.compile(r"https?:|<script|<link|<iframe|<img|<object|<embed|url\(|@import|\bsrc=|xlink:href|"
                     r"@font-face", re.IGNORECASE)


def assert_self_contained(page: str) -> None:
    found = OUTSIDE.findall(page)
    assert not found, f"external references: {found[:5]}"
    for href in re.findall(r'href="([^"]*)"', page):
        assert ":" not in href, f"not a page beside this one: {href}"
        assert not href.startswith(("/", "\\")), f"not a page beside this one: {href}"


def _samples() -> list[Path]:
    picked = [EXAMPLES / "valid" / "S16-keep-inbox-cancel-parks-queued-work.events.jsonl",
              EXAMPLES / "valid" / "S23-crash-recovery.events.jsonl", *INVALID[:3], *recordings()[:3]]
    return [p for p in picked if p.is_file()]


@pytest.mark.parametrize("log", _samples(), ids=lambda p: p.name)
def test_pages_and_pictures_reference_nothing_outside(log: Path) -> None:
    timeline = build(log, WindowSpec(first=0), live=live_of(log))
    assert_self_contained(render_page(timeline))
    svg = render_svg(timeline)
    assert svg.count("http") == 1
    assert SVG_NAMESPACE in svg
    assert_self_contained(svg.replace(SVG_NAMESPACE, ""))
    ET.fromstring(svg)  # a standalone picture is well-formed XML


def test_text_from_the_log_cannot_escape_into_the_markup(tmp_path: Path) -> None:
    hostile = '<script src="https://x.example/a.js"></script>\u0001\ud800'
    message = {"id": hostile, "role": "user", "content": [], "source": {"kind": "user"}}
    events = [{"type": "agent/inbox/spliced", "seq": 0, "time": 1,
               "data": {"target": "next-turn", "start": 0, "inserted": [message]}},
              {"type": f"x/{hostile}", "seq": 1, "time": 2, "data": {}}]
    log = tmp_path / "h.events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="ascii")
    timeline = build(log, WindowSpec(first=0))
    assert timeline.stop is None
    assert [b.id for b in timeline.bars] == [hostile]
    page = render_page(timeline)
    assert "<script" not in page
    assert "\u0001" not in page
    ET.fromstring(render_svg(timeline))  # still well-formed XML


@pytest.mark.parametrize("log", INVALID, ids=lambda p: p.name)
def test_a_check_page_draws_the_first_violation_where_it_happens(log: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    result = check_file(log, CheckOptions())
    first = result.violations[0]
    assert main(["check", "--format", "html", str(log)]) == 1
    page = capsys.readouterr().out
    assert_self_contained(page)
    for fact in (f"[{first.rule}]", "because:", "state before:"):
        assert fact in page
    html_escaped = first.message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert html_escaped.replace('"', "&quot;").replace("'", "&#x27;") in page
    svg = page[page.index("<svg") : page.index("</svg>") + 6]
    drawing = Drawing(svg.replace("<svg ", f'<svg xmlns="{SVG[1:-1]}" ', 1))
    marked = drawing.of("violation")
    assert len(marked) == 1
    assert marked[0].attrib["data-rule"] == first.rule
    index = first.line - 1  # the line's index is its seq in the valid prefix, even where its own seq lies
    assert int(marked[0].attrib["data-seq"]) == index
    assert index in drawing.event_x(), "the offending event is drawn"


def test_an_index_page_lists_every_log_with_its_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pages"
    logs = [*INVALID[:2], EXAMPLES / "valid" / "S01-single-followup.events.jsonl"]
    assert main(["check", "--format", "html", "--out", str(out), *map(str, logs)]) == 1
    assert "wrote" in capsys.readouterr().out
    index = (out / "index.html").read_text(encoding="utf-8")
    assert_self_contained(index)
    links = re.findall(r'href="([^"]*)"', index)
    assert len(links) == 3
    assert all((out / link).is_file() for link in links)
    assert index.count("INVALID") == 2
    assert index.count("VALID") == 3
    for link in links:
        assert_self_contained((out / link).read_text(encoding="utf-8"))
