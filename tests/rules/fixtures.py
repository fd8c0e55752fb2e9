"""Shared helpers of the rule-catalogue tests."""

from __future__ import annotations

from pathlib import Path


def checkout_documents(root: Path) -> tuple[Path, ...]:
    """The Markdown files whose citations must resolve: ``spec/`` and ``docs/`` of a checkout."""
    return tuple(sorted((*(root / "spec").glob("*.md"), *(root / "docs").rglob("*.md"))))
