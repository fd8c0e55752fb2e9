"""The layer picture of docs/architecture.md is the import contract of pyproject.toml (issue 9)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from conftest import REPO
from loopspec.specdoc.layers_page import Layer, layer_contract, layers_block, mermaid, page_with_layers, parse_layer
from loopspec.specdoc.project import load_project


def test_layer_syntax_of_import_linter() -> None:
    assert parse_layer("cli") == Layer(("cli",), True, frozenset())
    assert parse_layer("check | specdoc") == Layer(("check", "specdoc"), True, frozenset())
    assert parse_layer("(explore) | (render)") == Layer(("explore", "render"), True, frozenset({"explore", "render"}))
    assert parse_layer("a : b") == Layer(("a", "b"), False, frozenset())


def test_picture_draws_every_layer_of_the_contract_in_order() -> None:
    container, layers = layer_contract(REPO)
    assert container == "loopspec"
    names = [name for layer in layers for name in layer.packages]
    assert names[:2] == ["__main__", "cli"]
    assert names[-2:] == ["data", "rules"]
    block = layers_block(REPO)
    for name in names:
        assert f'["loopspec.{name}' in block, name
    assert "pkg_loop --> pkg_inbox" in block
    assert "pkg_cli --> pkg_specdoc" in block  # the docs draw the scenarios with loopspec.render
    assert "pkg_check & pkg_statespace --> pkg_loop" in block


def test_siblings_that_may_import_each_other_are_joined() -> None:
    picture = mermaid("p", (Layer(("a",), True, frozenset()), Layer(("b", "c"), False, frozenset({"c"}))))
    assert "pkg_a --> pkg_b & pkg_c" in picture
    assert "pkg_b <--> pkg_c" in picture
    assert 'pkg_c["p.c (optional)"]:::optional' in picture


def test_page_without_markers_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("# no markers\n")
    with pytest.raises(ValueError, match="lacks the layer markers"):
        page_with_layers(attrs.evolve(load_project(REPO), root=tmp_path))
