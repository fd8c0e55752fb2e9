"""An exploration as text and as vector cases: the summary, the counterexample, the witnesses.

A counterexample is written as a ``regression`` vector case (``loopspec vectors run`` replays it
against any adapter); each row pair's shortest witness as a ``row`` case naming both rows, so a
conformance suite's transition coverage can come from exhaustion.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from loopspec.explore.conformance import CONFORMS
from loopspec.explore.result import Counterexample, Exploration, TourResult
from loopspec.loop.lifecycle import TABLE
from loopspec.statespace.pairs import Commands, Pair
from loopspec.vectors.case import CaseSpec, build_case, case_text, rules_of_last_step
from loopspec.vectors.codec import encode_command
from loopspec.vectors.json_reading import Json


def summary(result: Exploration) -> str:
    scope = result.scope
    wall, cpu = result.rates
    lines = [
        f"scope: {scope.describe()} ({scope.label()})",
        f"distinct states: {result.states}   transitions: {result.transitions} "
        f"(standing for {result.commands} commands)   depth reached: {result.depth}",
        _levels(result),
        f"time: {result.seconds:.1f} s wall, {result.cpu_seconds:.1f} s CPU over {result.workers} process(es): "
        f"{wall:,.0f} states/s wall, {cpu:,.0f} states/s per CPU-second",
        f"lifecycle rows reached: {len(result.rows)} of {len(TABLE)}" + _missing(result.missing_rows()),
        f"row pairs reached: {len(result.pairs)}",
    ]
    if result.counterexample is not None:
        lines += _violation(result.counterexample, "shortest counterexample")
    elif result.complete:
        closed = " (no new state at the last level: the depth bound was not needed)" if result.closed else ""
        lines.append(f"exhausted: {scope.describe()}: {result.states} distinct states, every invariant holds{closed}")
    else:
        lines.append("NOT exhausted: the state or time budget ran out before the depth bound")
    return "\n".join(lines)


def _missing(rows: list[str], shown: int = 12) -> str:
    """The rows not reached, the first few by name: a scope too small for most rows is said in one line."""
    if not rows:
        return ""
    more = f", and {len(rows) - shown} more" if len(rows) > shown else ""
    return f" (missing: {', '.join(rows[:shown])}{more})"


def _levels(result: Exploration) -> str:
    """The states of each completed level; a budget may cut the next level short after finding some of it."""
    cut = result.states - sum(result.levels)
    partly = f" and {cut} found at level {len(result.levels)} before the budget ran out" if cut > 0 else ""
    return f"states per level: {list(result.levels)}{partly}"


def tour_summary(result: TourResult) -> str:
    lines = [
        f"scope: {result.scope.describe()} ({result.scope.label()}), as a tour",
        f"model states: {result.states:,} ({result.expanded:,} within the depth bound, each with every class of "
        f"command)   classes of command at them: {result.classes:,}",
        f"sent: {result.sent_classes:,} classes in {result.cases:,} cases of {result.commands:,} commands"
        + (f"; {result.skipped:,} classes skipped (outside the adapter's profile or capabilities)"
           if result.skipped else ""),
        f"time: {result.seconds:.1f} s wall, {result.cpu_seconds:.1f} s CPU over {result.workers} process(es)",
    ]
    if result.counterexample is not None:
        lines += _violation(result.counterexample, "counterexample")
    elif result.complete:
        lines.append(f"toured: every class of command at every state of {result.scope.describe()}")
    else:
        lines.append("NOT toured: the time budget ran out before every class was sent")
    return "\n".join(lines)


def _violation(ce: Counterexample, title: str) -> list[str]:
    problem = ce.problem
    rule = f" [{problem.rule}]" if problem.rule else ""
    # The invariant is what should hold; the heading says which one broke, then what happened instead.
    heading = (f"DISAGREEMENT{rule}: {problem.message}" if problem.invariant == CONFORMS
               else f"VIOLATION of the invariant '{problem.invariant}'{rule}: {problem.message}")
    return [heading, f"{title} ({len(ce.commands)} command(s)):",
            *(f"  {i}. {json.dumps(encode_command(c))}" for i, c in enumerate(ce.commands, start=1))]


def slug(row: str) -> str:
    return row.replace("/", "-")


def counterexample_case(result: Exploration | TourResult) -> Json:
    ce = result.counterexample
    assert ce is not None
    name = ce.problem.rule.lower() or "raises"
    rules = (ce.problem.rule,) if ce.problem.rule else ()
    spec = CaseSpec(f"explore/counterexample/{name}", "regression", rules,
                    f"{'Shortest execution' if isinstance(result, Exploration) else 'A tour'} breaking "
                    f"'{ce.problem.invariant}' in {result.scope.describe()}: "
                    f"{ce.problem.message}", ce.commands)
    case = build_case(spec)
    if rules:
        return case
    # No invariant's rule (an implementation's disagreement): the rules of the rows the model fires
    # at the last command, where the shortest execution parts from the implementation.
    fired = rules_of_last_step(case)
    return build_case(attrs.evolve(spec, rules=fired)) if fired else case


def write_counterexample(result: Exploration | TourResult, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case_text(counterexample_case(result)), encoding="utf-8")


def witness_case(pair: Pair, commands: Commands) -> Json:
    rules = tuple(dict.fromkeys(r for row in TABLE if row.key in pair for r in row.rules))
    spec = CaseSpec(f"pair/{slug(pair[0])}/{slug(pair[1])}", "row", rules,
                    f"A shortest execution firing lifecycle row {pair[1]} right after {pair[0]} (exhaustive "
                    "exploration).", commands, rows=pair)
    return build_case(spec)


def write_witnesses(pairs: dict[Pair, Commands], out: Path) -> int:
    """One vector case per row pair under ``out``; the number written."""
    for pair, commands in sorted(pairs.items()):
        case = witness_case(pair, commands)
        path = out / f"{case['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(case_text(case), encoding="utf-8")
    return len(pairs)
