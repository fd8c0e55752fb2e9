"""The fixtures the vectors tests take by name: pytest finds a fixture here, never through an import
that a linter would see as unused and drop."""

from __future__ import annotations

from vectors.fixtures import fake

__all__ = ["fake"]
