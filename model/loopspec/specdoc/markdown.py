"""Small Markdown builders shared by the generated documents (links, anchors, table cells)."""

from __future__ import annotations

from loopspec.rules.catalogue import Rule, heading_anchor


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading (the rule catalogue's own slug, for any heading)."""
    return heading_anchor(heading)


def rule_link(rule: Rule, from_dir: str = "docs") -> str:
    """``[ID](../spec/file.md#anchor)`` for a document in ``from_dir``."""
    up = "../" * len([p for p in from_dir.split("/") if p])
    return f"[{rule.id}]({up}{rule.section})"


def file_link(label: str, repo_path: str, line: int | None = None, from_dir: str = "docs") -> str:
    up = "../" * len([p for p in from_dir.split("/") if p])
    suffix = f"#L{line}" if line is not None else ""
    return f"[{label}]({up}{repo_path}{suffix})"


def cell(text: str) -> str:
    """Text safe inside a table cell (pipes escaped, newlines flattened)."""
    return text.replace("|", "\\|").replace("\n", " ")
