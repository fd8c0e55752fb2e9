"""``loopspec vectors generate|run``, ``loopspec adapter`` and ``loopspec drive`` (conformance).

See spec/adapter-protocol.md for how an implementation is plugged in: everything after ``--``
is the adapter's command line.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from loopspec.cli import pack as pack_command
from loopspec.cli.option_types import any_whole_number, positive_int, whole_number
from loopspec.cli.option_types import seconds as positive_float
from loopspec.vectors.adapter.client import DEFAULT_TIMEOUT, AdapterError, AdapterFailure
from loopspec.vectors.adapter.process import SubprocessAdapter
from loopspec.vectors.adapter.reference import ModelHandler, serve
from loopspec.vectors.case import case_text
from loopspec.vectors.drive import ProfileMismatch, drive
from loopspec.vectors.profiles import DEFAULT_PROFILE, PROFILE_NAMES, PROFILES
from loopspec.vectors.run_report import FORMATS
from loopspec.vectors.runner import AdapterUnavailable, SuiteUnreadable, run_suite, start_problem
from loopspec.vectors.suite import SuiteError, SuiteOutError, generate, written


def _adapter_argv(args: argparse.Namespace) -> list[str] | None:
    """The adapter's command line (after ``--``); options written between the suite and ``--`` are parsed here.

    argparse hands everything after ``run``'s positional suite to the REMAINDER argument, so
    ``vectors run SUITE --format json -- ADAPTER`` arrives as ``[--format, json, --, ADAPTER...]``.
    """
    argv = list(args.adapter)
    options: argparse.ArgumentParser | None = getattr(args, "options", None)
    if options is not None and "--" in argv:
        cut = argv.index("--")
        options.parse_args(argv[:cut], namespace=args)  # exits 2 with a usage message on a bad value
        argv = argv[cut:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print(f"loopspec {args.command if args.command == 'drive' else 'vectors run'}: give the adapter's command "
              "line after --, e.g. -- loopspec adapter", file=sys.stderr)
        return None
    return argv


def _generate(args: argparse.Namespace) -> int:
    out = args.out or args.out_dir
    if out is None or (args.out and args.out_dir and args.out != args.out_dir):
        print("loopspec vectors generate: give the suite directory once (--out DIR)", file=sys.stderr)
        return 2
    try:
        manifest = generate(out, seed=args.seed, count=args.count)
    except SuiteOutError as err:
        print(f"loopspec vectors generate: {err}", file=sys.stderr)
        return 2
    except SuiteError as err:
        print(f"loopspec vectors generate: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"loopspec vectors generate: cannot write the suite into {out} ({err.strerror or err})",
              file=sys.stderr)
        return 2
    print(f"{out}: wrote {written(manifest['counts'], args.count)}")
    uncovered = manifest["uncoveredRules"]
    if uncovered:
        print(f"rules checkable from commands without a hand-written case: {uncovered}", file=sys.stderr)
        return 1
    return 0


def _closed_stdout() -> int:
    """stdout was closed by its reader (``| head``): stop quietly, as command-line tools do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail again
    return 1


def _run(args: argparse.Namespace) -> int:
    argv = _adapter_argv(args)
    if argv is None:
        return 2
    progress = sys.stderr if sys.stderr.isatty() else None
    try:
        report = run_suite(args.suite, lambda: SubprocessAdapter(argv, timeout=args.timeout), sys.stdout,
                           select=args.select, fmt=args.format, progress=progress, quiet=args.quiet)
    except BrokenPipeError:
        return _closed_stdout()
    except SuiteUnreadable as err:
        print(f"loopspec vectors run: {err}", file=sys.stderr)
        return 2
    except AdapterUnavailable as err:
        head, *rest = str(err).splitlines()
        print("\n".join([f"loopspec vectors run: {head}; nothing was tested", *rest]), file=sys.stderr)
        return 2
    return 0 if report.ok else 1


def _adapter(args: argparse.Namespace) -> int:
    stdin = open(sys.stdin.fileno(), encoding="utf-8", closefd=False)  # noqa: SIM115 — the process's own stdin
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    serve(ModelHandler(args.profile), stdin, stdout)
    return 0


def _drive(args: argparse.Namespace) -> int:
    argv = _adapter_argv(args)
    if argv is None:
        return 2
    try:
        adapter = SubprocessAdapter(argv, timeout=args.timeout)
    except (AdapterFailure, AdapterError) as err:
        print(f"loopspec drive: {start_problem(err)}", file=sys.stderr)
        return 2
    progress = sys.stderr if sys.stderr.isatty() else None
    try:
        report = drive(adapter, examples=args.examples, steps=args.steps, seed=args.seed,
                       time_budget=args.time_budget, shrink_budget=args.shrink_budget, profile=args.profile,
                       progress=progress, restart=lambda: SubprocessAdapter(argv, timeout=args.timeout))
    except ProfileMismatch as err:
        print(f"loopspec drive: --profile {args.profile}: {err}", file=sys.stderr)
        return 2
    finally:
        adapter.close()
    if not report.ok:
        what = report.disagreement or report.adapter_failure
        print(f"{what}\nminimal sequence: {len(report.commands)} command(s); vector case on stdout", file=sys.stderr)
        sys.stdout.write(case_text(report.case(args.seed)))
    print(report.summary(adapter.implementation), file=sys.stderr)
    # One policy with explore and vectors run: a search that did not finish what was asked passes nothing.
    return 0 if report.ok and not report.stopped_by_budget else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    vectors = subparsers.add_parser(
        "vectors", help="generate, run or pack conformance vector suites",
        description="The language-neutral conformance suite: generate it, run it against an adapter "
        "(spec/adapter-protocol.md), or pack it as a versioned archive.")
    sub = vectors.add_subparsers(dest="vectors_command", required=True, metavar="COMMAND")
    gen = sub.add_parser(
        "generate", help="write a deterministic vector suite",
        description="Write the suite: one JSON case per file (a hand-written case per rule checkable from "
        "commands, a shortest walk per lifecycle-table row, COUNT random walks per profile, a witness per row pair "
        "no other case fires) and manifest.json with the "
        "formats, the package version, the spec digest and a sha256 per case. Same seed and count, same bytes. "
        "Exit 0: written; 1: a rule checkable from commands has no case, or a row is unreachable; 2: usage (also "
        "an --out folder that is neither empty nor a suite).")
    gen.add_argument("out_dir", type=Path, nargs="?", help="same as --out")
    gen.add_argument("--out", type=Path, help="suite directory (created; an old suite there is replaced)")
    gen.add_argument("--seed", type=any_whole_number, default=0, help="seed of the generated walks")
    gen.add_argument("--count", type=whole_number(0), default=20,
                     help="seeded random walks per profile (full, inbox, loop: 3 x COUNT walk cases). Row-pair "
                     "cases are written only for pairs no other case fires, so more walks can mean fewer cases "
                     "in all (default: 20)")
    gen.set_defaults(func=_generate)
    run_options = argparse.ArgumentParser(prog="loopspec vectors run", add_help=False)
    run_options.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT,
                             help="seconds to wait for each response (the hello at start-up waits at least "
                             "30 s: starting an adapter may take longer than answering it)")
    run_options.add_argument("--quiet", "-q", action="store_true",
                             help="text report: leave out the cases that passed or were skipped (the failures, "
                             "the cases not run, the per-area counts and the verdict stay)")
    run_options.add_argument("--format", choices=FORMATS, default="text",
                             help="report format on stdout: text (a line per case), json, or junit (XML)")
    run_options.add_argument("--select", action="append", default=[], metavar="PATTERN",
                             help="run only matching cases (repeatable): a rule ID (SPLICE-3), an area (splice) or "
                                  "a glob over case ids ('lifecycle/*'); a selection proves no conformance")
    run = sub.add_parser("run", parents=[run_options],
                         help="run a suite (or one case file) against an adapter: run DIR -- COMMAND...",
                         description="Run every case of a suite (or one case file) that the adapter's capability "
                         "profile can run against the adapter started with the command line after --; see "
                         "spec/adapter-protocol.md. Exit 0: every case run of the adapter's profile passed (the "
                         "adapter conforms to its profile when no --select chose them); 1: a case of its profile "
                         "failed or was not run (a case of other profiles only is skipped and never counts); "
                         "2: usage error, unreadable or broken suite, empty selection or an "
                         "adapter that cannot be started.")
    run.add_argument("suite", type=Path, help="suite directory (with manifest.json), a packed suite "
                     "(loopspec-vectors-VERSION.tar.gz, read as it is) or one case file")
    run.add_argument("adapter", nargs=argparse.REMAINDER, help="-- then the adapter's command line")
    run.set_defaults(func=_run, options=run_options)

    pack_command.register(sub)

    adapter = subparsers.add_parser(
        "adapter", help="serve the model over the adapter protocol (stdin/stdout)",
        description="Serve the model itself over the adapter protocol (spec/adapter-protocol.md) on standard "
        "input and output: the reference adapter, e.g. loopspec vectors run SUITE -- loopspec adapter.")
    adapter.add_argument("--profile", choices=PROFILE_NAMES, default=DEFAULT_PROFILE,
                         help="capability profile to serve: " + "; ".join(
                             f"{p.name}: {p.summary}" for p in PROFILES.values()))
    adapter.set_defaults(func=_adapter)

    drv = subparsers.add_parser(
        "drive", help="differential testing of an adapter against the model",
        description="Hypothesis generates command sequences of the adapter's capability profile, sends each to "
        "the adapter started with the command line after -- and to the model, and shrinks the first disagreement "
        "to a minimal vector case (printed on stdout); the last line on stderr says how many examples ran and "
        "how fast. Exit 0: no disagreement in all the examples asked for; 1: a disagreement, an adapter failure, or "
        "a search the time budget cut short (not a pass, as with explore's --seconds); 2: usage, or an adapter "
        "that cannot be started.")
    drv.add_argument("--examples", type=positive_int, default=300, help="command sequences to try")
    drv.add_argument("--steps", type=positive_int, default=30, help="commands per example")
    drv.add_argument("--seed", type=any_whole_number, default=0, help="seed of the search (same seed, same sequences)")
    drv.add_argument("--time-budget", type=positive_float, default=120.0,
                     help="seconds for the whole run (generation and shrinking)")
    drv.add_argument("--shrink-budget", type=positive_float, default=20.0, help="seconds for Hypothesis' shrinking")
    drv.add_argument("--timeout", type=positive_float, default=DEFAULT_TIMEOUT,
                     help="seconds to wait for each response (the hello at start-up waits at least 30 s: starting an "
                             "adapter may take longer than answering it)")
    drv.add_argument("--profile", choices=PROFILE_NAMES, default=None,
                     help="generate only this profile's commands (default: the profile the adapter declares)")
    drv.add_argument("adapter", nargs=argparse.REMAINDER, help="-- then the adapter's command line")
    drv.set_defaults(func=_drive)
