"""Every source citation in spec/ and docs/ resolves inside the repository (spec/sources.md)."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO
from loopspec.rules.catalogue import SPEC_DIR, load_spec
from loopspec.rules.citations import CITATION, scan
from rules.fixtures import checkout_documents

SOURCES = SPEC_DIR / "sources.md"


def test_every_citation_resolves_to_an_anchor_of_sources_md() -> None:
    found, bad = scan(checkout_documents(REPO), SOURCES, REPO)
    report = "\n".join(f"  {b.file}:{b.line}: {b.text!r}: {b.why}" for b in bad)
    assert not bad, f"citations that resolve to nothing in the repository:\n{report}"
    assert len(found) > 300  # the spec cites its sources hundreds of times: a scan that finds none is broken


def test_every_rule_names_a_resolvable_source() -> None:
    missing = [rule.id for rule in load_spec().rules if not CITATION.search(rule.source)]
    assert not missing, f"rules whose Source cites nothing spec/sources.md defines: {missing}"


def test_the_check_can_fail(tmp_path: Path) -> None:
    """An unknown section and a stray § are both reported, with their file and line."""
    (tmp_path / "spec").mkdir()
    sources = tmp_path / "spec" / "sources.md"
    sources.write_text('# S\n<a id="precedence"></a>\n<a id="seed000"></a>\n<a id="real-6.6"></a>\n', encoding="utf-8")
    doc = tmp_path / "spec" / "01-toy.md"
    doc.write_text("- **Source:** seed000; real §6.6.\n- **Source:** real §9.9; §4 alone.\n", encoding="utf-8")
    found, bad = scan(checkout_documents(tmp_path), sources, tmp_path)
    assert [c.anchor for c in found] == ["seed000", "real-6.6", "real-9.9"]
    assert [(b.file, b.line, b.why.split(" ")[0]) for b in bad] == [
        ("spec/01-toy.md", 2, "no"),
        ("spec/01-toy.md", 2, "a"),
    ]
