"""``docs/exploration.md`` states what each scope proved, and the profile's own section is up to date.

Each profile regenerates its scope's section (``dev`` the tiny scope, ``ci`` the CI scope,
``thorough`` the large one) from the exploration it ran and compares it with the committed
document; ``loopspec explore --scope NAME --write-doc`` rewrites a section.
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO
from explore.profile_scope import SCOPE_NAME, SHARES_THE_EXPLORATION, profile_exploration
from loopspec.explore import exploration_doc
from loopspec.statespace.scope import SCOPES

DOC = REPO / "docs" / "exploration.md"


@SHARES_THE_EXPLORATION
def test_the_profile_scope_section_is_up_to_date() -> None:
    expected = exploration_doc.render_section(SCOPE_NAME, profile_exploration())
    sections = exploration_doc.read_sections(DOC.read_text(encoding="utf-8"))
    assert SCOPE_NAME in sections, f"docs/exploration.md has no section for scope {SCOPE_NAME}"
    assert sections[SCOPE_NAME] == expected, (
        f"run `loopspec explore --scope {SCOPE_NAME} --write-doc` to regenerate docs/exploration.md")


def test_every_named_scope_has_a_section_stating_what_it_proved() -> None:
    text = DOC.read_text(encoding="utf-8")
    sections = exploration_doc.read_sections(text)
    assert list(sections) == list(SCOPES)
    for name, scope in SCOPES.items():
        assert f"**{scope.describe()}: " in sections[name]
        assert "every invariant holds" in sections[name], f"scope {name} proved nothing"
    assert exploration_doc.render(sections) == text, "the document is not the rendering of its sections"


@SHARES_THE_EXPLORATION
def test_writing_one_section_keeps_the_others(tmp_path: Path) -> None:
    copy = tmp_path / "exploration.md"
    copy.write_text(DOC.read_text(encoding="utf-8"), encoding="utf-8")
    before = exploration_doc.read_sections(copy.read_text(encoding="utf-8"))
    after = exploration_doc.read_sections(exploration_doc.updated(copy, SCOPE_NAME, profile_exploration()))
    assert {k: v for k, v in after.items() if k != SCOPE_NAME} == {k: v for k, v in before.items() if k != SCOPE_NAME}
    assert list(after) == list(SCOPES)
