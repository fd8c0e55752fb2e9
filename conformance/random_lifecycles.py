"""Seeded random lifecycles of the real implementation, recorded and judged.

``conformance/dsh/lifecycles.mjs`` walks the published packages through random command sequences
whose calls land at settled points, after a timer tick or "now" (after a few microtask hops, inside
the loop's own promise chains), with listener behaviours, graceful shutdowns and crashes; each seed
is one recording in the repository's format.  Every recording is then judged as a user of the real
implementation would: ``check --live`` (the log and its live stream) and ``reproduce``.

A refusal by ``check`` is a false verdict: the recording is a history the real system wrote.  A
recording ``reproduce`` cannot follow (or a walk that never ended) must be a triaged finding of
``conformance/dsh/expectations.json``: each is matched against the findings' patterns, and one no
finding owns is reported by its seed.  Exit 1 on a false verdict or an untriaged seed.

    python conformance/random_lifecycles.py --first 100000 --count 2000   # by hand: fresh seeds
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from recorded_runs import judged

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "conformance" / "dsh" / "node_modules" / ".bin" / "node"
WALKER = ROOT / "conformance" / "dsh" / "lifecycles.mjs"
EXPECTATIONS = ROOT / "conformance" / "dsh" / "expectations.json"
INSTALL = ("bash", str(ROOT / "scripts" / "dsh-adapter.sh"), "--install")

Json = dict[str, Any]


def record(out: Path, first: int, count: int, workers: int = 2) -> list[str]:
    """Record seeds ``first`` … ``first + count - 1`` into ``out``, split over ``workers`` processes.

    The recorder's lines (one per seed, ``recorded seed-N …``), in seed order."""
    subprocess.run(INSTALL, check=True, stdout=subprocess.DEVNULL)
    out.mkdir(parents=True, exist_ok=True)
    share = -(-count // workers)
    chunks = [(start, min(share, first + count - start)) for start in range(first, first + count, share)]

    def walk(chunk: tuple[int, int]) -> list[str]:
        done = subprocess.run([str(NODE), str(WALKER), str(out), str(chunk[0]), str(chunk[1])], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"random-lifecycles: the walker exited {done.returncode} on seeds from {chunk[0]}: "
                             f"{(done.stdout + done.stderr).strip()[-2000:]}")
        return done.stdout.splitlines()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [line for lines in pool.map(walk, chunks) for line in lines]


def seed_of(name: str) -> int:
    return int(name.removeprefix("seed-"))


def run(first: int, count: int, scratch: Path) -> Json:
    """Record and judge the seeds: what ``check`` refused (false verdicts) and what ``reproduce`` could not follow."""
    out = scratch / "lifecycles"
    lines = record(out, first, count)
    failed = judged(out)
    refused = {name: outcome["check"] for name, outcome in failed.items() if outcome["check"]}
    unfollowed = {name: outcome["reproduce"] for name, outcome in failed.items() if outcome["reproduce"]}
    late = [line for line in lines if "teardown did not finish" in line]
    for line in lines:  # a walk that never ended left no recording: an outcome of its own
        if line.startswith("stuck "):
            name, _, why = line.removeprefix("stuck ").partition(": ")
            unfollowed[name] = f"stuck: {why}"
    return {"first": first, "count": count, "recorded": sum(line.startswith("recorded ") for line in lines),
            "refused": refused, "unfollowed": unfollowed, "late-teardowns": late}


def finding_of(findings: list[Json], text: str) -> str | None:
    """The id of the one finding whose ``match`` pattern fits ``text``."""
    hits = [f["id"] for f in findings if any(re.search(p, text) for p in f.get("match", ()))]
    return hits[0] if len(hits) == 1 else None


def _shape(text: str) -> str:
    """A difference with its particulars (lines, seqs, ids, numbers) taken out: its family's shape."""
    text = re.sub(r"seed-\d+", "S", text)
    text = re.sub(r"'[a-z][a-z.]*'", "'…'", text)  # call names
    text = re.sub(r"\(next: \{.*?\}\)", "(next: …)", text)
    text = re.sub(r"\{.*\}", "{…}", text)
    return re.sub(r"\d+", "N", text)[:160]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="random-lifecycles", description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=int, default=100000, help="the first seed (default: 100000)")
    parser.add_argument("--count", type=int, default=2000, help="how many seeds (default: 2000)")
    parser.add_argument("--keep", type=Path, help="keep the recordings in this folder")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        result = run(args.first, args.count, where)
    took = time.monotonic() - started
    print(f"random-lifecycles: seeds {args.first}-{args.first + args.count - 1}: {result['recorded']} recorded in "
          f"{took:.0f} s; check --live refused {len(result['refused'])}; reproduce could not follow "
          f"{len(result['unfollowed'])}; {len(result['late-teardowns'])} teardown(s) did not finish")
    for name, said in sorted(result["refused"].items(), key=lambda kv: seed_of(kv[0])):
        print(f"  FALSE VERDICT {name}: {said}")
    findings = json.loads(EXPECTATIONS.read_text(encoding="utf-8"))["findings"]
    owner = {name: finding_of(findings, said) for name, said in result["unfollowed"].items()}
    shapes = collections.Counter((owner[name] or "untriaged", _shape(said))
                                 for name, said in result["unfollowed"].items())
    for (finding, shape), n in sorted(shapes.items(), key=lambda kv: (kv[0][0] == "untriaged", -kv[1])):
        print(f"  {n:5d}  {finding}: {shape}")
    untriaged = sorted((name for name, found in owner.items() if found is None), key=seed_of)
    for name in untriaged:
        print(f"  UNTRIAGED {name}: {result['unfollowed'][name]}")
    return 1 if result["refused"] or untriaged else 0


if __name__ == "__main__":
    sys.exit(main())
