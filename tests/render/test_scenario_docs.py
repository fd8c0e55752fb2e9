"""The scenario pictures in the docs: every scenario described, every spec chapter shows its rules' pictures.

``docs/scenarios/*.svg`` and ``docs/scenarios.md`` are generated documents (checked up to date by
``tests/specdoc/test_generated_docs.py``); here: the table of scenarios agrees with the manifest and
the spec, each chapter's final *Scenarios* section is the one :func:`chapter_section` gives, and the
pictures stand alone.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO
from loopspec.render.scenarios import MANIFEST, SCENARIO_ID, SCENARIOS, SECTION, chapter_section, picture, scenarios
from loopspec.render.svg import SVG_NAMESPACE
from loopspec.rules.catalogue import load_spec
from render.drawing import SVG

CHAPTERS = sorted((REPO / "spec").glob("[0-9][0-9]-*.md"))


def test_every_scenario_of_the_manifest_is_described_with_rules_the_spec_defines() -> None:
    manifest = json.loads((REPO / MANIFEST).read_text(encoding="utf-8"))
    named = {e["scenario"] for e in manifest["logs"] if SCENARIO_ID.fullmatch(str(e.get("scenario")))}
    assert named == set(SCENARIOS)
    spec = load_spec(REPO / "spec")
    for sid, (_, rules) in SCENARIOS.items():
        assert rules, sid
        assert all(spec.get(rule) is not None for rule in rules), sid
    assert {s.log for s in scenarios(REPO)} == {f"examples/logs/{e['file']}" for e in manifest["logs"]
                                                 if e.get("scenario") in SCENARIOS}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_each_chapter_ends_with_the_pictures_of_its_rules(chapter: Path) -> None:
    expected = chapter_section(REPO, load_spec(REPO / "spec"), chapter.name)
    text = chapter.read_text(encoding="utf-8")
    if expected is None:
        assert SECTION not in text
        return
    assert text.count(SECTION) == 1
    assert text[text.index(SECTION) :] == expected, "regenerate with `loopspec docs --write`"
    for link in expected.split("](../")[1:]:
        assert (REPO / link.split(")")[0]).is_file()


def test_the_pictures_stand_alone() -> None:
    for scenario in scenarios(REPO)[:4]:
        svg = picture(REPO, scenario)
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg"
        assert svg.count("http") == 1
        assert SVG_NAMESPACE in svg
        assert str(REPO) not in svg, "nothing machine-specific in a committed picture"
        assert (REPO / scenario.picture).read_text(encoding="utf-8") == svg
