"""``loopspec vectors generate|run``, ``loopspec adapter`` and ``loopspec drive`` (conformance).

See spec/adapter-protocol.md for how an implementation is plugged in: everything after ``--``
is the adapter's command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from loopspec.cli import pack as pack_command
from loopspec.vectors.adapter.client import DEFAULT_TIMEOUT, AdapterError, AdapterFailure, SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler, serve
from loopspec.vectors.case import case_text
from loopspec.vectors.drive import drive
from loopspec.vectors.runner import SuiteUnreadable, run_suite
from loopspec.vectors.suite import SuiteError, generate


def _adapter_argv(args: argparse.Namespace) -> list[str] | None:
    argv = list(args.adapter)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("loopspec: give the adapter's command line after --, e.g. -- loopspec adapter", file=sys.stderr)
        return None
    return argv


def _generate(args: argparse.Namespace) -> int:
    out = args.out or args.out_dir
    if out is None or (args.out and args.out_dir and args.out != args.out_dir):
        print("loopspec vectors generate: give the suite directory once (--out DIR)", file=sys.stderr)
        return 2
    try:
        manifest = generate(out, seed=args.seed, count=args.count)
    except SuiteError as err:
        print(f"loopspec vectors generate: {err}", file=sys.stderr)
        return 1
    print(f"{out}: {json.dumps(manifest['counts'])}")
    uncovered = manifest["uncoveredRules"]
    if uncovered:
        print(f"rules checkable from commands without a hand-written case: {uncovered}", file=sys.stderr)
        return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    argv = _adapter_argv(args)
    if argv is None:
        return 2
    try:
        report = run_suite(args.suite, lambda: SubprocessAdapter(argv, timeout=args.timeout), sys.stdout)
    except SuiteUnreadable as err:
        print(f"loopspec vectors run: {err}", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


def _adapter(_: argparse.Namespace) -> int:
    stdin = open(sys.stdin.fileno(), encoding="utf-8", closefd=False)  # noqa: SIM115 — the process's own stdin
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    serve(ModelHandler(), stdin, stdout)
    return 0


def _drive(args: argparse.Namespace) -> int:
    argv = _adapter_argv(args)
    if argv is None:
        return 2
    try:
        adapter = SubprocessAdapter(argv, timeout=args.timeout)
    except (AdapterFailure, AdapterError) as err:
        print(f"cannot start the adapter:\n{err}", file=sys.stderr)
        return 1
    try:
        report = drive(adapter, examples=args.examples, steps=args.steps, seed=args.seed,
                       time_budget=args.time_budget, shrink_budget=args.shrink_budget)
    finally:
        adapter.close()
    if report.ok:
        print(f"no disagreement in {report.examples} example(s) against {adapter.implementation}", file=sys.stderr)
        return 0
    what = report.disagreement or report.adapter_failure
    print(f"disagreement after {report.examples} example(s) against {adapter.implementation}:\n{what}\n"
          f"minimal sequence: {len(report.commands)} command(s); vector case on stdout", file=sys.stderr)
    sys.stdout.write(case_text(report.case(args.seed)))
    return 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    vectors = subparsers.add_parser(
        "vectors", help="generate, run or pack conformance vector suites",
        description="The language-neutral conformance suite: generate it, run it against an adapter "
        "(spec/adapter-protocol.md), or pack it as a versioned archive.")
    sub = vectors.add_subparsers(dest="vectors_command", required=True, metavar="COMMAND")
    gen = sub.add_parser(
        "generate", help="write a deterministic vector suite",
        description="Write the suite: one JSON case per file (a hand-written case per rule checkable from "
        "commands, a shortest walk per lifecycle-table row, COUNT random walks) and manifest.json with the "
        "formats, the package version, the spec digest and a sha256 per case. Same seed and count, same bytes. "
        "Exit 0: written; 1: a rule checkable from commands has no case, or a row is unreachable; 2: usage.")
    gen.add_argument("out_dir", type=Path, nargs="?", help="same as --out")
    gen.add_argument("--out", type=Path, help="suite directory (created; an old suite there is replaced)")
    gen.add_argument("--seed", type=int, default=0, help="seed of the generated walks")
    gen.add_argument("--count", type=int, default=20, help="number of extra random-walk cases")
    gen.set_defaults(func=_generate)
    run = sub.add_parser("run", help="run a suite (or one case file) against an adapter: run DIR -- COMMAND...",
                         description="Run every case of a suite (or one case file) against an adapter started "
                         "with the command line after --; see spec/adapter-protocol.md.")
    run.add_argument("suite", type=Path, help="suite directory (with manifest.json) or one case file")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each response")
    run.add_argument("adapter", nargs=argparse.REMAINDER, help="-- then the adapter's command line")
    run.set_defaults(func=_run)

    pack_command.register(sub)

    adapter = subparsers.add_parser(
        "adapter", help="serve the model over the adapter protocol (stdin/stdout)",
        description="Serve the model itself over the adapter protocol (spec/adapter-protocol.md) on standard "
        "input and output: the reference adapter, e.g. `loopspec vectors run SUITE -- loopspec adapter`.")
    adapter.set_defaults(func=_adapter)

    drv = subparsers.add_parser(
        "drive", help="differential testing of an adapter against the model",
        description="Hypothesis generates command sequences, sends each to the adapter started with the command "
        "line after -- and to the model, and shrinks the first disagreement to a minimal vector case "
        "(printed on stdout). Exit 0: no disagreement; 1: a disagreement or an adapter failure; 2: usage.")
    drv.add_argument("--examples", type=int, default=200, help="command sequences to try")
    drv.add_argument("--steps", type=int, default=30, help="most commands per example")
    drv.add_argument("--seed", type=int, default=0, help="seed of the search (same seed, same sequences)")
    drv.add_argument("--time-budget", type=float, default=120.0, help="seconds (generation and shrinking)")
    drv.add_argument("--shrink-budget", type=float, default=20.0, help="seconds for Hypothesis' shrinking")
    drv.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each response")
    drv.add_argument("adapter", nargs=argparse.REMAINDER, help="-- then the adapter's command line")
    drv.set_defaults(func=_drive)
