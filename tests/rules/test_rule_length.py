"""Each rule states its norm briefly; how a log shows it belongs to its Checkable-from paragraph (issue 26).

A ``**Rule:**`` statement aims at about 60 words; over 80 it fails here.  The catalogue reads
what follows `` — `` in ``**Checkable from:**`` as the rule's evidence, apart from the
classification the tools hold every rule to.
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO
from loopspec.rules.catalogue import load_spec, parse_file

MOST_WORDS = 80


def words(text: str) -> int:
    return len(text.split())


def test_no_rule_statement_is_over_80_words() -> None:
    long = [f"{rule.id} ({rule.file}:{rule.line}): {words(rule.rule)} words"
            for rule in load_spec(REPO / "spec").rules if words(rule.rule) > MOST_WORDS]
    assert not long, "\n".join(long)


def test_the_checkable_from_paragraph_keeps_the_classification_apart(tmp_path: Path) -> None:
    chapter = tmp_path / "99-x.md"
    chapter.write_text(
        "# X\n\n## ZED-1 — A rule\n- **Rule:** A thing MUST hold.\n- **Why:** Because.\n- **Source:** none.\n"
        "- **Checkable from:** commands, log — The log shows it as a record, here, that follows another.\n\n"
        "## ZED-2 — Another\n- **Rule:** B.\n- **Why:** C.\n- **Source:** D.\n- **Checkable from:** live\n"
    )
    first, second = parse_file(chapter)
    assert first.checkable_from == ("commands", "log")
    assert first.evidence == "The log shows it as a record, here, that follows another."
    assert (second.checkable_from, second.evidence) == (("live",), "")


def test_a_long_statement_would_be_counted() -> None:
    assert words(" ".join(["word"] * (MOST_WORDS + 1))) > MOST_WORDS
