"""``loopspec vectors generate``: a versioned, deterministic suite of vector cases.

Four kinds of case, laid out as ``area/handler/case.json``:

* **rule** — hand-written cases (:mod:`.rule_cases`), at least one per rule an adapter's
  observations can show broken, each probed for its rule's hallmark when generated;
* **row** — for every row of the lifecycle table, the shortest seeded random walk whose last
  command fires it (``lifecycle/<input>/<phase>-<guard>``);
* **walk** — ``count`` further seeded random walks of the full profile (``random/walk/walk-NNNN``), and as many
  for each partial profile: walks of edits and claims for ``inbox`` (``random/inbox/walk-NNNN``),
  walks without public edits for ``loop`` (``random/loop/walk-NNNN``);
* **pair** — for every pair of consecutive table rows the model can produce and no case above
  produces, the shortest witness found (``pairs/<row>/<row>``, :mod:`.row_pairs`).

Each case lists the capability profiles that can run it.  Every case's observations are audited
(time policy, log and live checker, :mod:`.audit`) when it is generated, so the model never ships
a vector whose own log breaks a rule.  ``manifest.json`` records the suite format, protocol, spec
version and digest, counts (also per profile), which cases cover which rule and row, the coverage
of rules, rows and row pairs with what is left uncovered (:mod:`.coverage`), and a sha256 per case
file.  Same seed and count, same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from loopspec.data.errors import CommandRefused
from loopspec.loop.commands import Advance, Stopping
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.state import Agent
from loopspec.rules.shipped import package_version, spec_digest
from loopspec.vectors.adapter.client import PROTOCOL
from loopspec.vectors.audit import audit
from loopspec.vectors.case import CaseSpec, build_case, case_text
from loopspec.vectors.command_gen import RandomChooser
from loopspec.vectors.coverage import coverage, pair_cases, pairs_of
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe
from loopspec.vectors.profile_gen import ProfileGenerator
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import Claim, Model, VectorCommand, apply, initial
from loopspec.vectors.row_pairs import reachable_pairs
from loopspec.vectors.rule_cases import ALL_CASES
from loopspec.vectors.swarm import Swarm

SUITE_FORMAT = "loopspec-suite/2"
WALK_STEPS = 12
MIN_ROW_WALKS, MAX_ROW_WALKS = 300, 5000
ROW_WALK_STOPS = ("run", "hop")  # a row walk with stops: half its commands stop at a hop they pass


class SuiteError(Exception):
    """The suite cannot be generated: a row is unreachable or a case no longer does what it is for."""


class SuiteOutError(SuiteError):
    """The output directory is not one the suite may be written into (bad usage, not a finding)."""


def rule_cases() -> tuple[CaseSpec, ...]:
    return ALL_CASES


def _walk(seed: str, steps: int, swarmed: bool = False, stops: tuple[str, ...] = ()
          ) -> list[tuple[VectorCommand, tuple[str, ...]]]:
    """One seeded random walk: each command with the rows it fired (none if refused); ``swarmed``
    draws the walk's own command mix first (:mod:`.swarm`), as drive's examples do; ``stops`` says
    how often a command stops at a hop (never by default: every implementation runs such a walk)."""
    chooser = RandomChooser(random.Random(seed))
    gen = ProfileGenerator(chooser, "full", swarm=Swarm.draw(chooser) if swarmed else None, stops=stops)
    model: Model = Agent()
    out: list[tuple[VectorCommand, tuple[str, ...]]] = []
    for _ in range(steps):
        command = gen.next_command(model)
        model, fired = _applied(model, command)
        out.append((command, fired))
    return out


def _applied(model: Model, command: VectorCommand) -> tuple[Model, tuple[str, ...]]:
    """The model after ``command`` and the rows it fired (unchanged, none, if refused)."""
    try:
        applied = apply(model, command)
    except CommandRefused:
        return model, ()
    return applied.model, applied.fired


def _preferred(prefix: tuple[VectorCommand, ...]) -> tuple[bool, int]:
    """A row's witness: a walk without hop stops if there is one (an implementation without them
    runs it), then the shortest."""
    return any(isinstance(c, Stopping | Advance) for c in prefix), len(prefix)


def _fired(commands: tuple[VectorCommand, ...]) -> list[tuple[VectorCommand, tuple[str, ...]]]:
    """Each command of a sequence with the rows it fired (none if refused)."""
    model: Model = Agent()
    out: list[tuple[VectorCommand, tuple[str, ...]]] = []
    for command in commands:
        model, fired = _applied(model, command)
        out.append((command, fired))
    return out


def _witness(best: dict[str, tuple[VectorCommand, ...]], run: list[tuple[VectorCommand, tuple[str, ...]]]) -> None:
    """Keep, per row, the preferred prefix of ``run`` ending with a command that fires it."""
    for index, (_, fired) in enumerate(run):
        for key in fired:
            prefix = tuple(c for c, _ in run[: index + 1])
            if key not in best or _preferred(prefix) < _preferred(best[key]):
                best[key] = prefix


def row_cases(seed: int) -> tuple[CaseSpec, ...]:
    """For each table row, the shortest walk prefix (first found on ties) ending with a command firing it;
    one without hop stops where a row has such a witness (:func:`_preferred`)."""
    best: dict[str, tuple[VectorCommand, ...]] = {}
    keys = [row.key for row in TABLE]
    # The hand-written cases' prefixes are witnesses too: a call at a hop after a whole turn (the one
    # between a chaining end and the next turn) is rare in random walks, and a case names it.
    for spec in ALL_CASES:
        if not any(isinstance(c, Claim) for c in spec.commands):
            _witness(best, [(c, r) for c, r in _fired(spec.commands)])
    for n in range(MAX_ROW_WALKS):
        if n >= MIN_ROW_WALKS and len(best) == len(keys):
            break
        # Every other walk has a mix of its own: a row that needs several particular inputs in a row
        # (the drain: two tools started, then an abort, then one answered) is rare under the even mix.
        # Past the first few hundred walks, longer ones: a call at the hop between a chaining turn's
        # end and the next turn needs a whole turn with input queued behind it first.
        # Every third walk stops at the hops it passes half the time (the rows of calls landing there).
        steps = WALK_STEPS if n < MIN_ROW_WALKS else 3 * WALK_STEPS
        walk = _walk(f"{seed}-rows-{n}", steps, swarmed=n % 2 == 1, stops=ROW_WALK_STOPS if n % 3 == 2 else ())
        _witness(best, walk)
    missing = [k for k in keys if k not in best]
    if missing:
        raise SuiteError(f"no walk of {MAX_ROW_WALKS} reached lifecycle row(s) {missing}")
    cases = []
    for row in TABLE:
        cases.append(CaseSpec(
            f"lifecycle/{row.input}/{row.phase}-{row.guard}", "row", row.rules,
            f"The shortest command sequence found (a seeded walk's prefix, or a hand-written case's) whose last "
            f"command fires the lifecycle row {row.key}.",
            best[row.key], rows=(row.key,),
        ))
    return tuple(cases)


def walk_cases(seed: int, count: int, steps: int = 2 * WALK_STEPS) -> tuple[CaseSpec, ...]:
    return tuple(
        CaseSpec(f"random/walk/walk-{i:04d}", "walk", (), f"Seeded random walk {i} of {count} (seed {seed}).",
                 tuple(c for c, _ in _walk(f"{seed}-walk-{i}", steps)))
        for i in range(count)
    )


def _profile_walk(seed: str, profile: str, steps: int) -> tuple[VectorCommand, ...]:
    gen = ProfileGenerator(RandomChooser(random.Random(seed)), profile)
    model = initial(profile)
    out: list[VectorCommand] = []
    for _ in range(steps):
        command = gen.next_command(model)
        model, _ = observe(model, command)
        out.append(command)
    return tuple(out)


def profile_walk_cases(seed: int, count: int, steps: int = 2 * WALK_STEPS) -> tuple[CaseSpec, ...]:
    """``count`` seeded walks for each partial profile (inbox: edits and claims; loop: no public edits)."""
    return tuple(
        CaseSpec(f"random/{profile}/walk-{i:04d}", "walk", (),
                 f"Seeded random walk {i} of {count} for the {profile} profile (seed {seed}).",
                 _profile_walk(f"{seed}-{profile}-walk-{i}", profile, steps))
        for profile in ("inbox", "loop") for i in range(count)
    )


def _check_out(out: Path) -> None:
    if out.exists() and any(out.iterdir()) and not (out / "manifest.json").is_file():
        raise SuiteOutError(f"{out} is not empty and holds no manifest.json: refusing to write into it")


def _prepare(out: Path) -> None:
    manifest = out / "manifest.json"
    _check_out(out)
    if manifest.is_file():
        try:
            old = json.loads(manifest.read_text(encoding="utf-8"))
        except ValueError:
            raise SuiteOutError(f"{manifest} is not JSON: refusing to replace that suite") from None
        entries = old.get("cases") if isinstance(old, dict) else None
        root = out.resolve()
        for entry in entries if isinstance(entries, list) else []:
            path = (out / str(entry.get("path", ""))).resolve() if isinstance(entry, dict) else root
            if path != root and path.is_relative_to(root):  # never delete outside the suite
                path.unlink(missing_ok=True)
        manifest.unlink()
    out.mkdir(parents=True, exist_ok=True)


def _profiles(case: Json) -> list[str]:
    profiles = case.get("profiles")
    return [p for p in profiles if isinstance(p, str)] if isinstance(profiles, list) else []


def _case_rows(case: Json) -> list[str]:
    rows = case.get("rows")
    return [r for r in rows if isinstance(r, str)] if isinstance(rows, list) else []


def _last_step_rows(case: Json) -> list[str]:
    steps = case.get("steps")
    last = steps[-1] if isinstance(steps, list) and steps else {}
    return _case_rows(last) if isinstance(last, dict) else []


def _self_audit(path: str, case: Json) -> None:
    """The model's own observations must pass the audit every adapter's must pass."""
    steps = case["steps"]
    assert isinstance(steps, list)
    seen = [(str(s["command"]["op"]), s["expect"]) for s in steps]
    profile = PROFILES[_profiles(case)[0]]
    findings = audit(seen, profile)
    if findings:
        raise SuiteError(f"{path}: the model's own output breaks rules: " + "; ".join(f.render() for f in findings))


def generate(out: Path, seed: int = 0, count: int = 20) -> Json:
    """Write the suite into ``out`` and return its manifest."""
    _check_out(out)  # before the work, so a wrong --out fails at once
    specs = rule_cases() + row_cases(seed) + walk_cases(seed, count) + profile_walk_cases(seed, count)
    built = [(spec, build_case(spec)) for spec in specs]
    for spec, case in built:
        if spec.kind == "row" and spec.rows[0] not in _last_step_rows(case):
            raise SuiteError(f"{spec.path}: its last command no longer fires {spec.rows[0]}")
    reachable = reachable_pairs()
    for pair, spec in pair_cases([case for _, case in built], reachable):
        case = build_case(spec)
        if pair not in pairs_of(case):
            raise SuiteError(f"{spec.path}: its commands no longer fire {pair[0]} followed by {pair[1]}")
        built.append((spec, case))
    for spec, case in built:
        _self_audit(spec.path, case)
    _prepare(out)
    entries: list[Json] = []
    by_rule: dict[str, list[str]] = {}
    by_row: dict[str, list[str]] = {}
    for spec, case in built:
        text = case_text(case)
        rel = f"{spec.path}.json"
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        entries.append({"path": rel, "id": spec.path, "kind": spec.kind, "negative": case["negative"],
                        "profiles": case["profiles"], "sha256": hashlib.sha256(text.encode()).hexdigest()})
        for rule in spec.rules:
            by_rule.setdefault(rule, []).append(spec.path)
        for row in _case_rows(case):
            by_row.setdefault(row, []).append(spec.path)
    covers = coverage([spec for spec, _ in built], [case for _, case in built], reachable)
    manifest: Json = {
        "format": SUITE_FORMAT,
        "protocol": PROTOCOL,
        "specVersion": package_version(),
        "specDigest": spec_digest(),
        "seed": seed,
        "count": count,
        "counts": {
            "cases": len(built),
            "negative": sum(1 for _, c in built if c["negative"]),
            **{kind: sum(1 for s, _ in built if s.kind == kind) for kind in ("rule", "row", "walk", "pair")},
            "profiles": {name: sum(name in _profiles(c) for _, c in built) for name in PROFILES},
        },
        # Every rule ID of the catalogue that neither has a hand-written case nor a reason in coverage.
        "uncoveredRules": covers["rules"]["uncovered"],  # type: ignore[index]
        "coverage": covers,
        "rules": dict(sorted(by_rule.items())),
        "rows": {row.key: by_row.get(row.key, []) for row in TABLE},
        "cases": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def written(counts: Any, per_profile: int) -> str:
    """What a suite holds, each case counted once by kind; negatives and profiles are properties of them."""
    kinds = ", ".join(f"{counts[kind]:,} {name}" for kind, name in (
        ("rule", "hand-written"), ("row", "row"), ("walk", f"random walk ({per_profile} per profile)"),
        ("pair", "row-pair")))
    profiles = ", ".join(f"{name} {number:,}" for name, number in counts["profiles"].items())
    return (f"{counts['cases']:,} case(s): {kinds}; {counts['negative']:,} of them negative; runnable per "
            f"profile (a case runs under every profile it lists): {profiles}")
