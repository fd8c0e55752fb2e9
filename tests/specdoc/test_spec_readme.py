"""spec/README.md opens with one turn, told, under a picture that is generated, and maps every file (issue 26)."""

from __future__ import annotations

import re

from conftest import REPO
from loopspec.specdoc.generate import documents

README = REPO / "spec" / "README.md"
_IMAGE = re.compile(r"!\[[^\]]*\]\((?P<target>[^)]+)\)")
_MAP_ROW = re.compile(r"^\| \[(?P<label>[^\]]+)\]\((?P<target>[^)#]+)\)", re.MULTILINE)


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_story_comes_first_and_its_picture_is_a_generated_document() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.split("\n## ", 2)[1].startswith("One turn, told\n")
    story = _section(text, "One turn, told")
    (picture,) = (m["target"] for m in _IMAGE.finditer(story))
    generated = {doc.path for doc in documents(REPO)}
    assert (README.parent / picture).resolve().relative_to(REPO).as_posix() in generated
    for part in ("A follow-up wakes the loop", "The claim", "The pre-step decision", "The step",
                 "A steer during the tool call", "The turn's end"):
        assert f"**{part}" in story, part


def test_the_map_names_every_file_of_spec() -> None:
    text = _section(README.read_text(encoding="utf-8"), "The map")
    mapped = {m["target"].rstrip("/") for m in _MAP_ROW.finditer(text)}
    present = {p.name for p in (REPO / "spec").iterdir() if p.name != "README.md"}
    assert mapped == present
