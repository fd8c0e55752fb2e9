"""Not a test: an older tree's verdicts against this one's, over the same logs, file by file.

    python benchmarks/verdict_diff.py OLD_REV [--new REV] [--mutants 6000] [--seed 7] [--keep DIR]

A restructuring of the checker (issue 24) is meant to change no verdict, and the tests only see
the cases someone wrote down.  This runs ``loopspec check --all --format json`` with both trees
over the same inputs and compares the reports.  ``OLD_REV`` (and ``--new``, by default the working
tree) is unpacked with ``git archive`` into a scratch folder; each side is a child process
``python -m loopspec check ...`` with ``PYTHONPATH`` at that tree's ``model/`` and the tree as its
working folder, so this script never imports either checker.

The inputs are taken from the new tree's files, and both sides are given the same absolute paths,
so they judge the same bytes:

* ``examples``: every log of ``examples/logs/`` (``valid-with-allow-torn-tail/`` with
  ``--allow-torn-tail``, as its name says);
* ``live``: every live recording under ``examples/`` and ``tests/`` with its session log, checked
  with ``--live``; the log is the one ``examples/logs/manifest.json`` names for the recording,
  else ``NAME.events.jsonl`` or ``NAME.jsonl`` beside ``NAME.live.jsonl``;
* ``mutants``: ``--mutants`` logs made from the session logs under ``examples/`` and ``tests/``
  (those whose every line is a JSON object) by one to three seeded edits each
  (:mod:`mutated_logs` says which).  They are checked 500 to a process.

Each log's entry is compared whole (status, counts, problem, every violation with its state,
context and rule text) except for what varies from run to run: the ``seconds`` of each log and of
the summary and the summary's ``events_per_second``.  The ``tool`` block (package version, spec
digest) is not compared: it is printed once when the trees differ in it, since a changed spec
changes the digest without changing a verdict (a changed rule sentence still shows, in the
violations' ``rule_text``).  Each process's exit status is compared too.  An exit status of 3
(internal error) on either side is printed with the process's error output and counts as a
difference, since that side gave no verdict to compare.

Prints a line per input group, and for a group that differs the number of differing logs and, for
the first five, the violations only one side reported (rule, seq, line, message) or else the
fields that differ.  Exit 0: every verdict the same; 1: some differ; 2: usage error (an unknown
revision, say).  ``--keep DIR`` keeps the corpus (``DIR/mutants``) and every run's exit status,
report and error output (``DIR/reports/old``, ``DIR/reports/new``).  A default run takes about a
minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs
from mutated_logs import JSON, logs_under, mutation_sources, write_mutants

ROOT = Path(__file__).resolve().parents[1]


BATCH = 500  # mutants per process: start-up (0.2 s) is then a small part of each batch's time
SHOWN = 5  # differing logs described per group
MAX_LINES = 12  # lines describing one of them
TRIM = 100  # characters of a value shown
SPEC_TEXT = frozenset({"rule_text", "rule_why", "spec_section"})  # the spec's words, long; named only
TIMING_KEYS = frozenset({"seconds", "events_per_second"})
INTERNAL_ERROR = 3

# --- the trees -------------------------------------------------------------------------------

def _unpack(rev: str, scratch: Path, side: str) -> Path:
    """``rev``'s files in a folder of ``scratch`` (tree_compare's way; not imported from there,
    since its module loads this tree's checker, which may be in the middle of an edit)."""
    tree = scratch / f"{side}-{rev.replace('/', '_')}"  # the side in the name: OLD_REV may equal --new
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True)
    if archive.returncode != 0:
        print(f"verdict_diff: cannot unpack {rev!r}: {archive.stderr.decode(errors='replace').strip()}",
              file=sys.stderr)
        raise SystemExit(2)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


@attrs.frozen
class Outcome:
    """One side's run of one batch: its exit status, its JSON report if it printed one, and the end
    of its error output."""

    code: int
    report: dict[str, JSON] | None
    stderr: str


def _check(tree: Path, argv: Sequence[str]) -> Outcome:
    env = dict(os.environ, PYTHONPATH=str(tree / "model"))
    done = subprocess.run([sys.executable, "-m", "loopspec", "check", "--all", "--format", "json", *argv],
                          cwd=tree, env=env, capture_output=True)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    if not isinstance(report, dict):
        report = None
    return Outcome(done.returncode, report, done.stderr.decode(errors="replace")[-2000:])


# --- the inputs ------------------------------------------------------------------------------

@attrs.frozen
class Batch:
    """One ``check`` run, the same on both sides: its arguments after ``check --all --format json``."""

    group: str
    argv: tuple[str, ...]


def example_batches(tree: Path) -> list[Batch]:
    logs = tree / "examples" / "logs"
    torn = logs / "valid-with-allow-torn-tail"
    plain = [p for p in logs_under(logs) if torn not in p.parents]
    return [Batch("examples", tuple(map(str, plain))),
            Batch("examples", ("--allow-torn-tail", *map(str, logs_under(torn))))]


def live_pairs(tree: Path) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """Every live recording with its log, and the recordings without one."""
    logs = tree / "examples" / "logs"
    named: dict[Path, Path] = {}
    manifest = json.loads((logs / "manifest.json").read_text())
    for entry in manifest["logs"]:
        if "live" in entry:
            named[(logs / entry["live"]).resolve()] = (logs / entry["file"]).resolve()
    pairs, alone = [], []
    for live in sorted(p for top in ("examples", "tests") for p in (tree / top).rglob("*.live.jsonl")):
        stem = live.name.removesuffix(".live.jsonl")
        beside = [live.with_name(stem + ".events.jsonl"), live.with_name(stem + ".jsonl")]
        log = named.get(live.resolve()) or next((p for p in beside if p.is_file()), None)
        if log is None:
            alone.append(live)
        else:
            pairs.append((live, log))
    return pairs, alone


# --- the comparison --------------------------------------------------------------------------

def _untimed(value: JSON) -> JSON:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _entries(outcome: Outcome) -> dict[str, dict[str, JSON]]:
    """A report's logs by name, without their timing."""
    logs = outcome.report.get("logs") if outcome.report is not None else None
    entries: dict[str, dict[str, JSON]] = {}
    for entry in logs if isinstance(logs, list) else []:
        if isinstance(entry, dict):
            clean = _untimed(entry)
            assert isinstance(clean, dict)
            entries[str(entry.get("file"))] = clean
    return entries


def _key(v: dict[str, JSON]) -> tuple[str, str, str, str]:
    """What names a violation to a reader: rule, place and message."""
    return (str(v.get("rule")), str(v.get("seq")), str(v.get("line")), str(v.get("message")))


def _place(v: dict[str, JSON]) -> str:
    seq = v.get("seq")
    return f"{v.get('rule')} " + (f"seq {seq} " if seq is not None else "") + f"line {v.get('line')}"


def _trim(value: JSON) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= TRIM else text[:TRIM - 3] + "..."


def _violations(entry: dict[str, JSON] | None) -> list[dict[str, JSON]]:
    found = entry.get("violations") if entry is not None else None
    return [v for v in found if isinstance(v, dict)] if isinstance(found, list) else []


def _unmatched(mine: list[dict[str, JSON]], theirs: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """``mine`` less those ``theirs`` also names (as often as it names them), in report order."""
    left = Counter(map(_key, theirs))
    out = []
    for v in mine:
        if left[_key(v)] > 0:
            left[_key(v)] -= 1
        else:
            out.append(v)
    return out


def describe(old: dict[str, JSON] | None, new: dict[str, JSON] | None) -> list[str]:
    """What differs between two entries of one log, in lines for a reader: the log's own fields, the
    violations only one side reports, and those both report that differ in some other field (a
    short field's two values are shown; the state, context and the spec's text only by name)."""
    if old is None or new is None:
        return [f"    only the {'new' if old is None else 'old'} side reports this log"]
    lines = [f"    {key}: old {_trim(old.get(key))}, new {_trim(new.get(key))}"
             for key in sorted(old.keys() | new.keys()) if key != "violations" and old.get(key) != new.get(key)]
    old_v, new_v = _violations(old), _violations(new)
    for side, mine, theirs in (("old", old_v, new_v), ("new", new_v, old_v)):
        lines.extend(f"    {side} only: {_place(v)}: {v.get('message')}" for v in _unmatched(mine, theirs))
    old_by = {_key(v): v for v in old_v}
    for v in new_v:
        twin = old_by.get(_key(v))
        if twin is None or twin == v:
            continue
        keys = sorted(k for k in twin.keys() | v.keys() if twin.get(k) != v.get(k))
        shown = [f"{k} old {_trim(twin.get(k))} new {_trim(v.get(k))}" for k in keys
                 if isinstance(v.get(k), str | None) and k not in SPEC_TEXT]
        named = [k for k in keys if not (isinstance(v.get(k), str | None) and k not in SPEC_TEXT)]
        if named:
            shown.append(("also " if shown else "differing in ") + ", ".join(named))
        lines.append(f"    both: {_place(v)}: " + "; ".join(shown))
    if not lines:
        return ["    the same violations in another order"]
    if len(lines) > MAX_LINES:
        lines[MAX_LINES - 1:] = [f"    ... and {len(lines) - MAX_LINES + 1} more lines"]
    return lines


@attrs.define
class GroupResult:
    name: str
    unit: str  # "logs" or "pairs"
    inputs: int = 0
    violations: int = 0
    rules: set[str] = attrs.Factory(set)
    differing: list[tuple[str, list[str]]] = attrs.Factory(list)
    failures: list[str] = attrs.Factory(list)  # internal errors and missing reports: always printed
    exits: list[str] = attrs.Factory(list)  # runs whose exit statuses differ

    def add(self, batch: Batch, old: Outcome, new: Outcome, shown: Shown) -> None:
        live = batch.argv[:1] == ("--live",)
        logs = 1 if live else sum(1 for a in batch.argv if not a.startswith("--"))
        what = f"{shown(batch.argv[1])} with {shown(batch.argv[2])}" if live else f"a batch of {logs} logs"
        for side, outcome in (("old", old), ("new", new)):
            if outcome.code == INTERNAL_ERROR:
                self.failures.append(f"  INTERNAL ERROR (exit 3) on the {side} side, {what}:\n"
                                     + "\n".join("    " + line for line in outcome.stderr.splitlines()[-15:]))
            elif outcome.report is None:
                self.failures.append(f"  the {side} side printed no report (exit {outcome.code}), {what}: "
                                     + (outcome.stderr.strip().splitlines() or [""])[-1])
        if old.code != new.code:
            self.exits.append(f"  exit status old {old.code}, new {new.code}: {what}")
        old_e, new_e = _entries(old), _entries(new)
        self.inputs += logs
        for entry in new_e.values():
            found = _violations(entry)
            self.violations += len(found)
            self.rules.update(str(v.get("rule")) for v in found)
        for name in sorted(old_e.keys() | new_e.keys()):
            if old_e.get(name) != new_e.get(name):
                self.differing.append((what if live else shown(name), describe(old_e.get(name), new_e.get(name))))

    def lines(self) -> list[str]:
        head = (f"{self.name}: {self.inputs} {self.unit}, {_count(self.violations, 'violation')} "
                f"of {_count(len(self.rules), 'rule')}")
        if not (self.differing or self.failures or self.exits):
            return [head + ", same"]
        counts = [_differ(_count(len(self.differing), self.unit.removesuffix("s")), len(self.differing))]
        if self.failures:
            counts.append(f"{_count(len(self.failures), 'run')} failed")
        if self.exits:
            counts.append(_differ(_count(len(self.exits), "exit status", "exit statuses"), len(self.exits)))
        out = [f"{head}, DIFFERENT: {', '.join(counts)}", *self.failures, *self.exits[:SHOWN]]
        if len(self.exits) > SHOWN:
            out.append(f"  ... and {len(self.exits) - SHOWN} more exit statuses")
        for label, details in self.differing[:SHOWN]:
            out.append(f"  {label}")
            out.extend(details)
        if len(self.differing) > SHOWN:
            out.append(f"  ... and {len(self.differing) - SHOWN} more")
        return out


def _differ(subject: str, n: int) -> str:
    return subject + (" differs" if n == 1 else " differ")


def _count(n: int, noun: str, nouns: str = "") -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


class Shown:
    """Names paths as a reader knows them: relative to the new tree or the corpus folder."""

    def __init__(self, *bases: Path) -> None:
        self.bases = bases

    def __call__(self, name: str) -> str:
        for base in self.bases:
            if name.startswith(str(base) + os.sep):
                return name[len(str(base)) + 1:]
        return name


def _run_all(old: Path, new: Path, batches: Sequence[Batch], keep: Path | None) -> Iterable[tuple[Outcome, Outcome]]:
    """Both sides of every batch, two processes at a time (one batch's old and new side together)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        running = [(pool.submit(_check, old, b.argv), pool.submit(_check, new, b.argv)) for b in batches]
        outcomes = [(a.result(), b.result()) for a, b in running]
    if keep is not None:
        for side, index in (("old", 0), ("new", 1)):
            folder = keep / "reports" / side
            folder.mkdir(parents=True, exist_ok=True)
            for i, (batch, pair) in enumerate(zip(batches, outcomes, strict=True)):
                outcome = pair[index]
                (folder / f"{i:03}-{batch.group}.json").write_text(
                    json.dumps({"exit": outcome.code, "report": outcome.report, "stderr": outcome.stderr}, indent=1))
    return outcomes


def _tools(old: Outcome, new: Outcome) -> str | None:
    a = old.report.get("tool") if old.report is not None else None
    b = new.report.get("tool") if new.report is not None else None
    if a == b:
        return None
    return f"tool: old {json.dumps(a)}, new {json.dumps(b)} (not compared)"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("old", help="the older revision (a commit, tag or branch)")
    parser.add_argument("--new", help="the newer revision (default: the working tree)")
    parser.add_argument("--mutants", type=int, default=6000, help="mutated logs to check (default: 6000)")
    parser.add_argument("--seed", type=int, default=7, help="the mutations' seed (default: 7)")
    parser.add_argument("--keep", type=Path, help="keep the mutated logs and both reports in this folder")
    args = parser.parse_args()
    if args.mutants < 0:
        parser.error("--mutants must be 0 or more")
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder).resolve()
        old = _unpack(args.old, scratch, "old")
        new = _unpack(args.new, scratch, "new") if args.new else ROOT
        keep = args.keep.resolve() if args.keep else None
        corpus = (keep or scratch) / "mutants"
        pairs, alone = live_pairs(new)
        sources = mutation_sources(new)
        mutants = write_mutants(sources, corpus, args.mutants, args.seed)
        batches = [*example_batches(new),
                   *(Batch("live", ("--live", str(live), str(log))) for live, log in pairs),
                   *(Batch("mutants", tuple(map(str, mutants[i:i + BATCH]))) for i in range(0, len(mutants), BATCH))]
        print(f"old: {args.old}   new: {args.new or 'the working tree'}   "
              f"{args.mutants} mutants of {len(sources)} logs, seed {args.seed}", flush=True)
        outcomes = _run_all(old, new, batches, keep)
        shown = Shown(new, corpus)
        groups = {"examples": GroupResult("examples", "logs"), "live": GroupResult("live", "pairs"),
                  "mutants": GroupResult("mutants", "logs")}
        tools = set()
        for batch, (o, n) in zip(batches, outcomes, strict=True):
            groups[batch.group].add(batch, o, n, shown)
            tools.add(_tools(o, n))
        for line in sorted(t for t in tools if t is not None):
            print(line)
        for group in groups.values():
            print("\n".join(group.lines()))
        if alone:
            print(f"live recordings without a log, not checked: {', '.join(shown(str(p)) for p in alone)}")
    print(f"{time.monotonic() - started:.0f} s")
    raise SystemExit(1 if any(g.differing or g.failures or g.exits for g in groups.values()) else 0)


if __name__ == "__main__":
    main()
