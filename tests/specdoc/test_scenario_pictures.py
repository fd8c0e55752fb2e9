"""Each spec chapter shows the scenario pictures of its rules inline, and every picture it shows exists.

The chapters' final *Scenarios* sections are generated documents (``loopspec docs --write``;
``tests/specdoc/test_generated_docs.py`` fails when one is stale).  Here, independently of the
generator: which pictures a chapter must show is worked out from the scenario table and the
spec's rules, and each image a chapter references must be a committed SVG, by a path relative
to the chapter (as GitHub and the docs resolve it).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.render.scenarios import SECTION, scenarios, with_chapter_section
from loopspec.rules.catalogue import load_spec
from loopspec.specdoc.generate import render_all
from loopspec.specdoc.project import load_project

CHAPTERS = sorted((REPO / "spec").glob("[0-9][0-9]-*.md"))
IMAGE = re.compile(r"!\[[^\]]+\]\(([^)\s]+)\)")
SVG_ROOT = "{http://www.w3.org/2000/svg}svg"


def _expected(chapter: Path) -> set[str]:
    """The pictures (paths relative to ``spec/``) of the scenarios showing one of the chapter's rules."""
    ids = {rule.id for rule in load_spec(REPO / "spec").rules if Path(rule.file).name == chapter.name}
    return {f"../{s.picture}" for s in scenarios(REPO) if ids.intersection(s.rules)}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_a_chapter_shows_the_pictures_of_its_rules_inline(chapter: Path) -> None:
    text = chapter.read_text(encoding="utf-8")
    shown = IMAGE.findall(text[text.index(SECTION) :]) if SECTION in text else []
    assert set(shown) == _expected(chapter)
    assert len(shown) == len(set(shown)), "each picture once"
    assert IMAGE.findall(text[: text.index(SECTION)] if SECTION in text else text) == [], \
        "pictures belong to the Scenarios section"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_every_picture_a_chapter_shows_is_a_committed_svg(chapter: Path) -> None:
    for target in IMAGE.findall(chapter.read_text(encoding="utf-8")):
        path = (chapter.parent / target).resolve()
        assert path.is_file(), f"{chapter.name} shows {target}, which does not exist"
        assert path.parent == REPO / "docs" / "scenarios"
        assert ET.parse(path).getroot().tag == SVG_ROOT


def test_some_chapters_show_pictures() -> None:
    shown = {c.name: len(IMAGE.findall(c.read_text(encoding="utf-8"))) for c in CHAPTERS}
    assert shown["06-claim.md"] >= 5
    assert sum(shown.values()) >= len(scenarios(REPO))


def test_the_docs_generator_writes_the_chapters_sections() -> None:
    """``loopspec docs --write`` owns the sections: it renders every chapter, and puts back a lost section."""
    rendered = render_all(load_project(REPO))
    for chapter in CHAPTERS:
        text = chapter.read_text(encoding="utf-8")
        assert rendered[f"spec/{chapter.name}"] == text
        if SECTION in text:
            head = text[: text.index(SECTION)]
            section = text[text.index(SECTION) :]
            assert with_chapter_section(head, section) == text
            assert with_chapter_section(text + "\n## Scenarios\n\nstale\n", section) == text
