"""What the generated documents are made from: the parsed spec, the rule citations, the schemas.

Its own module so that every document module imports :class:`Project` from below, and
:mod:`loopspec.specdoc.generate`, which lists the documents, imports them without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from loopspec.rules.catalogue import REPO_ROOT, SPEC_DIR, Spec, load_spec
from loopspec.specdoc.schema_catalog import SchemaCatalog, load_catalog
from loopspec.specdoc.traceability import Traceability, collect


@attrs.frozen
class Project:
    """Everything the generated documents are made from."""

    root: Path
    spec: Spec
    traceability: Traceability
    schemas: SchemaCatalog


Section = Callable[[Project], str]


@attrs.frozen
class GeneratedDoc:
    """One generated file: its repo-relative path and how to render it from the project."""

    path: str
    render: Callable[[Project], str]


def load_project(root: Path = REPO_ROOT) -> Project:
    spec = load_spec(SPEC_DIR if root == REPO_ROOT else root / "spec")
    return Project(root, spec, collect(spec, root), load_catalog(root / "spec" / "schemas"))
