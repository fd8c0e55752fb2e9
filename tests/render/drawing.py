"""Reading a drawing back: the SVG's marks as the tests see them (class and data-* attributes)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from loopspec.render.build import build
from loopspec.render.svg import render_svg
from loopspec.render.timeline import Timeline
from loopspec.render.window import WindowSpec

SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "logs"
RECORDINGS = REPO / "examples" / "recordings"
EXAMPLE_LOGS = sorted(EXAMPLES.rglob("*.events.jsonl"))
WHOLE = WindowSpec(first=0)


def recordings() -> list[Path]:
    return sorted(RECORDINGS.glob("*.events.jsonl")) if RECORDINGS.is_dir() else []


def live_of(log: Path) -> Path | None:
    live = log.with_name(log.name.replace(".events.jsonl", ".live.jsonl"))
    return live if live.is_file() else None


def whole(log: Path, live: Path | None = None) -> Timeline:
    return build(log, WHOLE, live=live)


class Drawing:
    """The groups of one SVG, by the class that names what they show."""

    def __init__(self, svg: str) -> None:
        self.root = ET.fromstring(svg)
        self.groups = [g for g in self.root.iter(f"{SVG}g") if g.get("class")]

    def of(self, kind: str) -> list[ET.Element]:
        return [g for g in self.groups if kind in (g.get("class") or "").split()]

    def event_x(self) -> dict[int, float]:
        out: dict[int, float] = {}
        for g in self.of("event"):
            for seq in range(int(g.attrib["data-first"]), int(g.attrib["data-last"]) + 1):
                out[seq] = float(g.attrib["data-x"])
        return out

    @staticmethod
    def tooltip(group: ET.Element) -> str | None:
        first = next(iter(group), None)
        return first.text if first is not None and first.tag == f"{SVG}title" else None


def drawing(timeline: Timeline) -> Drawing:
    return Drawing(render_svg(timeline))
