"""The suite's manifest counts every rule, every lifecycle-table row and every reachable row pair.

* Every rule ID of the catalogue is either covered by hand-written cases or listed as not observable
  through the protocol with a reason; nothing is left uncovered (``uncoveredRules: []``).
* Every row of the lifecycle table, and every pair of consecutive rows the model can produce
  (:func:`loopspec.vectors.row_pairs.reachable_pairs`), is produced by some case of the suite; the
  manifest names one per pair, and a pair no case produces is reported (shown by removing the
  suite's pair cases).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loopspec.loop.lifecycle import TABLE
from loopspec.rules.catalogue import load_spec
from loopspec.vectors import row_pairs
from loopspec.vectors.case import build_case
from loopspec.vectors.coverage import coverage, pair_name, pairs_of
from loopspec.vectors.json_reading import Json
from loopspec.vectors.rule_cases.observability import AWAITING_V2, NOT_OBSERVABLE
from loopspec.vectors.suite import generate, rule_cases


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Json]:
    out = tmp_path_factory.mktemp("suite")
    return out, generate(out, seed=3, count=4)


def test_manifest_counts_every_rule(manifest: tuple[Path, Json]) -> None:
    found: Any = manifest[1]
    rules = found["coverage"]["rules"]
    ids = load_spec().ids()
    hand = {rule for spec in rule_cases() for rule in spec.rules}
    assert rules["total"] == len(ids)
    assert rules["uncovered"] == [] == found["uncoveredRules"]
    assert rules["covered"] == len(hand & set(ids)) == len(ids) - len(NOT_OBSERVABLE)
    assert set(NOT_OBSERVABLE) <= set(ids)
    assert not set(NOT_OBSERVABLE) & hand, "unobservable rules have no cases"
    assert all(len(reason) > 40 for reason in NOT_OBSERVABLE.values()), "each reason says why"
    assert set(AWAITING_V2) <= hand, "rules awaiting protocol v2 still have their cases"
    assert rules["notObservable"] == dict(NOT_OBSERVABLE)


def test_every_row_and_reachable_pair_has_a_case(manifest: tuple[Path, Json]) -> None:
    directory = manifest[0]
    found: Any = manifest[1]
    cover = found["coverage"]
    assert cover["rows"] == {"total": len(TABLE), "covered": len(TABLE), "uncovered": []}
    pairs = cover["pairs"]
    reachable = row_pairs.reachable_pairs()
    assert pairs["reachable"] == len(reachable) == pairs["covered"]
    assert pairs["uncovered"] == []
    assert pairs["unexpected"] == []
    paths = {e["id"]: e["path"] for e in found["cases"]}
    for pair in reachable:
        case_id = pairs["cases"][pair_name(pair)]
        case = json.loads((directory / paths[case_id]).read_text(encoding="utf-8"))
        assert pair in pairs_of(case), f"{case_id} does not produce {pair_name(pair)}"
    assert found["counts"]["pair"] == sum(1 for e in found["cases"] if e["kind"] == "pair") > 0


def test_a_pair_without_a_case_is_reported(manifest: tuple[Path, Json]) -> None:
    """Without its pair cases the same suite leaves pairs uncovered, and the manifest names them."""
    directory = manifest[0]
    found: Any = manifest[1]
    kept = [e for e in found["cases"] if e["kind"] != "pair"]
    assert len(kept) < len(found["cases"])
    cases = [json.loads((directory / e["path"]).read_text(encoding="utf-8")) for e in kept]
    specs = list(rule_cases())
    report: Any = coverage(specs, cases, row_pairs.reachable_pairs())
    missing = report["pairs"]["uncovered"]
    assert missing
    assert report["pairs"]["covered"] + len(missing) == len(row_pairs.reachable_pairs())
    one = rule_cases()[0]
    thin: Any = coverage([one], [build_case(one)], row_pairs.reachable_pairs())
    assert thin["rows"]["uncovered"]
    assert thin["rules"]["uncovered"]
