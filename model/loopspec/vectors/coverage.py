"""What a generated suite covers: rules, lifecycle-table rows and pairs of consecutive rows.

* **rules** — every rule ID of the catalogue: covered by the hand-written cases carrying it, or
  listed as not observable through the protocol with the reason (:mod:`.rule_cases.observability`);
* **rows** — every row of the lifecycle table fired by some case;
* **pairs** — every pair of consecutive rows the model can produce (:func:`.row_pairs.reachable_pairs`)
  produced by some case; pairs no earlier case produces get a ``pair`` case of their own, the
  walk's witness.

The manifest reports each with what is left uncovered; ``tests/vectors/test_coverage.py`` fails when
anything is.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import TABLE
from loopspec.rules.catalogue import SpecFormatError, load_spec
from loopspec.vectors.case import CaseSpec
from loopspec.vectors.json_reading import Json
from loopspec.vectors.row_pairs import Pair
from loopspec.vectors.rule_cases.observability import AWAITING_V2, NOT_OBSERVABLE

Reachable = Mapping[Pair, tuple[cmd.LoopCommand, ...]]
PAIR_METHOD = (
    "breadth-first walk over abstract agent states (what the table's guards read) with a fixed command "
    "alphabet, exhaustive for that alphabet (loopspec.vectors.row_pairs)"
)


def fired_rows(case: Json) -> list[str]:
    """The rows a case's commands fire, in order, over all its steps."""
    steps = case.get("steps")
    out: list[str] = []
    for step in steps if isinstance(steps, list) else []:
        rows = step.get("rows") if isinstance(step, dict) else None
        if isinstance(rows, list):
            out.extend(r for r in rows if isinstance(r, str))
    return out


def pairs_of(case: Json) -> list[Pair]:
    rows = fired_rows(case)
    return list(itertools.pairwise(rows))


def pair_name(pair: Pair) -> str:
    return f"{pair[0]} -> {pair[1]}"


def _slug(key: str) -> str:
    """A row key as one segment of a case id (the schema allows letters, digits and hyphens)."""
    return key.replace("/", "-")


def pair_cases(built: Iterable[Json], reachable: Reachable) -> tuple[tuple[Pair, CaseSpec], ...]:
    """A case per reachable pair that no case of ``built`` produces: the walk's shortest witness."""
    produced = {pair for case in built for pair in pairs_of(case)}
    slugs = {_slug(row) for pair in reachable for row in pair}
    assert len(slugs) == len({row for pair in reachable for row in pair}), "two rows share a case-id segment"
    return tuple(
        ((first, second), CaseSpec(
            f"pairs/{_slug(first)}/{_slug(second)}", "pair", (),
            f"A shortest command sequence found whose rows include {first} followed by {second}.", commands))
        for (first, second), commands in reachable.items()
        if (first, second) not in produced
    )


def _rule_ids() -> tuple[str, ...] | None:
    try:
        return load_spec().ids()
    except SpecFormatError:
        return None


def coverage(specs: Sequence[CaseSpec], built: Sequence[Json], reachable: Reachable) -> Json:
    """The manifest's coverage section for a suite of ``specs`` and the cases built from them.

    Per reachable pair it names the first case producing it (cases list their rows step by step).
    """
    by_rule: dict[str, list[str]] = {}
    for spec in specs:
        if spec.kind == "rule":
            for rule in spec.rules:
                by_rule.setdefault(rule, []).append(spec.path)
    ids = _rule_ids()
    rules: Json = {"total": None, "covered": None, "uncovered": None} if ids is None else {
        "total": len(ids),
        "covered": sum(1 for r in ids if r in by_rule),
        "uncovered": [r for r in ids if r not in by_rule and r not in NOT_OBSERVABLE],
    }
    rules["notObservable"] = dict(NOT_OBSERVABLE)
    rules["awaitingProtocolV2"] = dict(AWAITING_V2)
    fired = {row for case in built for row in fired_rows(case)}
    produced: dict[Pair, str] = {}
    for case in built:
        for pair in pairs_of(case):
            produced.setdefault(pair, str(case["id"]))
    return {
        "rules": rules,
        "rows": {"total": len(TABLE), "covered": sum(1 for r in TABLE if r.key in fired),
                 "uncovered": [r.key for r in TABLE if r.key not in fired]},
        "pairs": {
            "method": PAIR_METHOD,
            "reachable": len(reachable),
            "covered": sum(1 for p in reachable if p in produced),
            "uncovered": [pair_name(p) for p in reachable if p not in produced],
            "unexpected": sorted(pair_name(p) for p in produced if p not in reachable),
            "cases": {pair_name(p): produced.get(p) for p in reachable},
        },
    }
