"""``loopspec vectors generate``: a versioned, deterministic suite of vector cases.

Four kinds of case, laid out as ``area/handler/case.json``:

* **rule** — hand-written cases (:mod:`.rule_cases`), at least one per rule an adapter's
  observations can show broken, each probed for its rule's hallmark when generated;
* **row** — for every row of the lifecycle table, the shortest seeded random walk whose last
  command fires it (``lifecycle/<input>/<phase>-<guard>``);
* **walk** — ``count`` further seeded random walks (``random/walk/walk-NNNN``), and as many
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

from loopspec.data.errors import CommandRefused
from loopspec.loop import commands as cmd
from loopspec.loop.lifecycle import ROWS_ONLY_AT_HOPS, TABLE, step
from loopspec.loop.state import Agent
from loopspec.rules.shipped import package_version, spec_digest
from loopspec.vectors.adapter.client import PROTOCOL
from loopspec.vectors.audit import audit
from loopspec.vectors.case import CaseSpec, build_case, case_text
from loopspec.vectors.command_gen import Generator, RandomChooser
from loopspec.vectors.coverage import coverage, pair_cases, pairs_of
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe
from loopspec.vectors.profile_gen import ProfileGenerator
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.reference_model import VectorCommand, initial
from loopspec.vectors.row_pairs import reachable_pairs
from loopspec.vectors.rule_cases import ALL_CASES
from loopspec.vectors.swarm import Swarm

SUITE_FORMAT = "loopspec-suite/2"
WALK_STEPS = 12
MIN_ROW_WALKS, MAX_ROW_WALKS = 300, 5000


class SuiteError(Exception):
    """The suite cannot be generated (a row is unreachable, the output directory is not ours)."""


def rule_cases() -> tuple[CaseSpec, ...]:
    return ALL_CASES


def _walk(seed: str, steps: int, swarmed: bool = False) -> list[tuple[cmd.Command, tuple[str, ...]]]:
    """One seeded random walk: each command with the rows it fired (none if refused); ``swarmed``
    draws the walk's own command mix first (:mod:`.swarm`), as drive's examples do."""
    chooser = RandomChooser(random.Random(seed))
    gen = Generator(chooser, swarm=Swarm.draw(chooser) if swarmed else None)
    agent = Agent()
    out: list[tuple[cmd.Command, tuple[str, ...]]] = []
    for _ in range(steps):
        command = gen.next_command(agent)
        try:
            transition = step(agent, command)
        except CommandRefused:
            out.append((command, ()))
            continue
        agent = transition.agent
        out.append((command, transition.fired))
    return out


def row_cases(seed: int) -> tuple[CaseSpec, ...]:
    """For each table row, the shortest walk prefix (first found on ties) ending with a command firing it."""
    best: dict[str, tuple[cmd.Command, ...]] = {}
    keys = [row.key for row in TABLE if row.key not in ROWS_ONLY_AT_HOPS]
    for n in range(MAX_ROW_WALKS):
        if n >= MIN_ROW_WALKS and len(best) == len(keys):
            break
        # Every other walk has a mix of its own: a row that needs several particular inputs in a row
        # (the drain: two tools started, then an abort, then one answered) is rare under the even mix.
        walk = _walk(f"{seed}-rows-{n}", WALK_STEPS, swarmed=n % 2 == 1)
        for index, (_, fired) in enumerate(walk):
            for key in fired:
                if key not in best or index + 1 < len(best[key]):
                    best[key] = tuple(c for c, _ in walk[: index + 1])
    missing = [k for k in keys if k not in best]
    if missing:
        raise SuiteError(f"no walk of {MAX_ROW_WALKS} reached lifecycle row(s) {missing}")
    cases = []
    for row in TABLE:
        if row.key in ROWS_ONLY_AT_HOPS:
            continue
        cases.append(CaseSpec(
            f"lifecycle/{row.input}/{row.phase}-{row.guard}", "row", row.rules,
            f"The shortest seeded walk found whose last command fires the lifecycle row {row.key}.",
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
        raise SuiteError(f"{out} is not empty and holds no manifest.json: refusing to write into it")


def _prepare(out: Path) -> None:
    manifest = out / "manifest.json"
    _check_out(out)
    if manifest.is_file():
        try:
            old = json.loads(manifest.read_text(encoding="utf-8"))
        except ValueError:
            raise SuiteError(f"{manifest} is not JSON: refusing to replace that suite") from None
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
