"""``loopspec explore``: every execution of a bounded scope, every invariant at every state.

With an adapter's command line after ``--`` it also compares every transition with the
implementation's answers (exhaustive conformance, :mod:`loopspec.explore.conformance`).

Exit codes: 0 the scope was exhausted and every invariant holds (or the document is up to date;
with an adapter: and it answered every explored command as the model does); 1 an invariant broke
or the adapter disagreed or failed (the shortest counterexample is printed, and written as a vector
case with ``--counterexample FILE``), the budget ran out before the scope was exhausted, or the
document is out of date; 2 bad usage or an adapter that cannot be started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from loopspec.cli.option_types import seconds, whole_number
from loopspec.data.terminal_text import write_meter
from loopspec.explore import exploration_doc, report
from loopspec.explore.run import explore
from loopspec.statespace.scope import KINDS, MAX_IDS, SCOPES, Scope

if TYPE_CHECKING:
    from loopspec.explore.adapter_pool import Checks
    from loopspec.explore.result import Exploration, TourResult


DEFAULT_IDS, DEFAULT_DEPTH = 2, 5


def _scope(args: argparse.Namespace) -> Scope:
    if args.scope is not None:
        return SCOPES[args.scope]
    kinds = tuple(k.strip() for k in args.commands.split(",")) if args.commands is not None else KINDS
    ids = DEFAULT_IDS if args.ids is None else args.ids
    return Scope(ids, DEFAULT_DEPTH if args.depth is None else args.depth, kinds)


def _output_problem(args: argparse.Namespace) -> str:
    """Why an output path cannot be written, found before the run (which can take long), or ""."""
    out: Path | None = args.counterexample
    if out is not None and out.is_dir():
        return f"--counterexample {out} is a folder; give the file to write"
    if out is not None and not out.absolute().parent.is_dir():
        return f"--counterexample {out}: its folder {out.absolute().parent} does not exist"
    folder: Path | None = args.witnesses
    if folder is not None and folder.exists() and not folder.is_dir():
        return f"--witnesses {folder} is a file; give a folder to write the witnesses under"
    if folder is not None and not folder.absolute().parent.is_dir():
        return f"--witnesses {folder}: its parent folder {folder.absolute().parent} does not exist"
    return ""


def run(args: argparse.Namespace) -> int:
    if problem := _output_problem(args):
        print(f"loopspec explore: {problem}", file=sys.stderr)
        return 2
    given = [flag for flag, value in (("--ids", args.ids), ("--depth", args.depth), ("--commands", args.commands))
             if value is not None]
    if args.scope is not None and given:
        print(f"loopspec explore: --scope {args.scope} names the whole scope; it takes no {', '.join(given)}",
              file=sys.stderr)
        return 2
    if (args.write_doc or args.check_doc) and args.scope is None:
        print("loopspec explore: --write-doc and --check-doc need --scope NAME", file=sys.stderr)
        return 2
    try:
        scope = _scope(args)
    except (ValueError, TypeError) as err:
        print(f"loopspec explore: {err}", file=sys.stderr)
        return 2
    workers = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    argv = [a for i, a in enumerate(args.adapter) if i or a != "--"]
    if argv and (args.write_doc or args.check_doc or args.witnesses is not None):
        print("loopspec explore: an adapter is explored without --witnesses or the document options "
              "(they describe the model's exploration)", file=sys.stderr)
        return 2
    if args.tour and args.max_states is not None:
        print("loopspec explore: --tour sends every state of the scope; bound it with --seconds, not --max-states",
              file=sys.stderr)
        return 2
    if args.tour and not argv:
        print("loopspec explore: --tour walks an implementation through the scope; give its adapter after --",
              file=sys.stderr)
        return 2
    if argv:
        return _against(scope, argv, args, workers)
    document = _document(args) if args.write_doc or args.check_doc else None
    if isinstance(document, str):  # read before exploring, which can take long
        print(f"loopspec explore: {document}", file=sys.stderr)
        return 2
    result = explore(scope, workers=workers, max_states=args.max_states, seconds=args.seconds)
    print(report.summary(result))
    code = 0 if result.complete and result.counterexample is None else 1
    if result.counterexample is not None:
        _counterexample(result, args.counterexample, "")
    if args.witnesses is not None:
        try:
            count = report.write_witnesses(result.pairs, args.witnesses)
        except OSError as err:
            print(f"loopspec explore: cannot write the witnesses under {args.witnesses} ({err.strerror or err})",
                  file=sys.stderr)
            return 2
        print(f"{count} row-pair witnesses written under {args.witnesses}")
    if document is not None:
        path, current = document
        text = exploration_doc.updated(path, args.scope, result)
        if args.write_doc:
            if text != current:
                try:
                    path.write_text(text, encoding="utf-8")
                except OSError as err:
                    print(f"loopspec explore: cannot write {path} ({err.strerror or err})", file=sys.stderr)
                    return 2
                print(f"wrote {path}")
        elif text != current:
            print(f"{path}: the section of scope {args.scope} is out of date; run `loopspec explore --scope "
                  f"{args.scope} --write-doc`")
            code = max(code, 1)
    return code


def _document(args: argparse.Namespace) -> tuple[Path, str] | str:
    """The exploration document and its text ("" when --write-doc will create it), or why it cannot be used."""
    path = args.doc or exploration_doc.doc_path()
    if path is None:
        return ("--write-doc and --check-doc keep docs/exploration.md of a source checkout, and this loopspec is "
                "an installed package with none around it: name the document with --doc FILE")
    if path.is_dir():
        return f"--doc {path} is a folder; give the document's file"
    if not path.exists():
        if args.check_doc:
            return f"{path} does not exist: nothing to check (--write-doc writes it)"
        if not path.parent.is_dir():
            return f"cannot write {path}: its folder {path.parent} does not exist"
        return path, ""
    try:
        return path, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return f"cannot read the exploration document {path} ({getattr(err, 'strerror', None) or err})"


def _counterexample(result: Exploration | TourResult, out: Path | None, answers: str) -> None:
    """Write the counterexample where --counterexample asks; nothing lands in the working folder unasked."""
    if out is None:
        print("write it as a vector case with --counterexample FILE")
        return
    try:
        report.write_counterexample(result, out)
    except OSError as err:
        print(f"loopspec explore: cannot write the counterexample to {out} ({err.strerror or err})", file=sys.stderr)
        return
    print(f"counterexample written as a vector case{answers}: {out}")


def _against(scope: Scope, argv: list[str], args: argparse.Namespace, workers: int) -> int:
    """Explore ``scope`` comparing every transition with the adapter started by ``argv``.

    With ``workers`` > 1 the adapter started here only says who it is; each worker process
    starts its own (:mod:`loopspec.explore.adapter_pool`).
    """
    from loopspec.explore.adapter_pool import InlineChecks, PooledChecks
    from loopspec.vectors.adapter.client import AdapterError, AdapterFailure
    from loopspec.vectors.adapter.process import SubprocessAdapter
    from loopspec.vectors.drive_check import Checker
    from loopspec.vectors.profiles import PROFILES
    from loopspec.vectors.runner import start_problem

    try:
        adapter = SubprocessAdapter(argv)
    except (AdapterFailure, AdapterError) as err:
        print(f"loopspec explore: {start_problem(err)}", file=sys.stderr)
        return 2
    profile, name = PROFILES[adapter.profile], f"{adapter.implementation} (profile {adapter.profile})"
    checker = Checker(adapter, profile, restart=lambda: SubprocessAdapter(argv))
    checks: Checks = InlineChecks(checker)
    try:
        if workers > 1:
            lacks = tuple(adapter.lacks)
            checker.close()
            adapter.close()
            try:
                checks = PooledChecks(argv, workers, profile, lacks)
            except AdapterFailure as err:
                print(f"loopspec explore: {start_problem(err)}", file=sys.stderr)
                return 2
        return _conformance(scope, checks, args, name)
    except (AdapterFailure, AdapterError) as err:
        print(f"the adapter failed before any disagreement:\n{err}", file=sys.stderr)
        return 1
    finally:
        if isinstance(checks, PooledChecks):
            checks.close()
        checker.close()
        adapter.close()


@contextlib.contextmanager
def _progress(checks: Checks) -> Iterator[None]:
    """On a terminal, a line that counts the commands sent while an adapter is explored (minutes)."""
    stream = sys.stderr
    if not stream.isatty():
        yield
        return
    done = threading.Event()
    started = time.monotonic()

    def show() -> None:
        while not done.wait(1.0):
            write_meter(stream, f"\rexplore: {checks.sent:,} commands sent, {time.monotonic() - started:.0f} s ")
            stream.flush()

    meter = threading.Thread(target=show, daemon=True)
    meter.start()
    try:
        yield
    finally:
        done.set()
        meter.join()
        write_meter(stream, "\r" + " " * 60 + "\r")
        stream.flush()


def _conformance(scope: Scope, checks: Checks, args: argparse.Namespace, name: str) -> int:
    with _progress(checks):
        return _compared(scope, checks, args, name)


def _compared(scope: Scope, checks: Checks, args: argparse.Namespace, name: str) -> int:
    if args.tour:
        from loopspec.explore.tour import tour

        toured = tour(scope, checks, seconds=args.seconds)
        print(report.tour_summary(toured))
        print(f"compared with {name}: {checks.sent:,} commands sent"
              + ("" if toured.counterexample else ", each answered as the model answers it"))
        if toured.counterexample is not None:
            _counterexample(toured, args.counterexample, " (the model's answers)")
            return 1
        return 0 if toured.complete else 1
    result = explore(scope, max_states=args.max_states, seconds=args.seconds, against=checks)
    print(report.summary(result))
    if result.counterexample is None:
        print(f"compared with {name}: {checks.sent:,} commands sent, each answered as the model answers it")
    else:
        print(f"compared with {name}: {checks.sent:,} commands sent")
        _counterexample(result, args.counterexample, " (the model's answers)")
        return 1
    return 0 if result.complete else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explore", help="exhaust every execution of a bounded scope, checking every invariant at every state",
        description="Every execution of a bounded scope, every invariant at every state. Exit 0: the scope was "
        "exhausted and every invariant holds (with an adapter: it answered every explored command as the model "
        "does); 1: an invariant broke, the adapter disagreed or failed (the shortest counterexample is printed), "
        "the budget ran out, or the document is out of date; 2: usage, or an adapter that cannot be started.")
    parser.add_argument("--ids", type=whole_number(1, MAX_IDS),
                        help=f"how many message ids the commands use, 1 to {MAX_IDS} (default: {DEFAULT_IDS})")
    parser.add_argument("--depth", type=whole_number(0),
                        help=f"the longest command sequence, 0 or more (default: {DEFAULT_DEPTH})")
    parser.add_argument("--commands", metavar="KINDS",
                        help=f"comma-separated command families (default: all of {', '.join(KINDS)})")
    parser.add_argument("--scope", choices=sorted(SCOPES), help="a named scope instead of --ids/--depth/--commands")
    parser.add_argument("--jobs", type=whole_number(0), default=1,
                        help="worker processes (0: one per core); with an adapter, each runs its own")
    parser.add_argument("--max-states", type=whole_number(1),
                        help="stop after this many distinct states (not exhausted)")
    parser.add_argument("--seconds", type=seconds, help="stop after this many seconds (not exhausted)")
    parser.add_argument("--tour", action="store_true",
                        help="with an adapter: send every class of command at every state of the scope in long "
                        "walks (a transition tour) instead of one fresh case per explored path; affordable for "
                        "the ci scope against a real implementation")
    parser.add_argument("--counterexample", type=Path, metavar="FILE",
                        help="write a counterexample (if one is found) as a vector case to FILE; without it the "
                        "counterexample is only printed")
    parser.add_argument("--witnesses", type=Path, metavar="DIR",
                        help="write a shortest witness per row pair as a vector case under DIR")
    doc = parser.add_mutually_exclusive_group()
    doc.add_argument("--write-doc", action="store_true", help="rewrite the scope's section of docs/exploration.md")
    doc.add_argument("--check-doc", action="store_true", help="exit 1 if the scope's section is out of date")
    parser.add_argument("--doc", type=Path, help="the exploration document --write-doc and --check-doc use "
                        "(none: docs/exploration.md of the checkout)")
    parser.add_argument("adapter", nargs=argparse.REMAINDER, metavar="-- ADAPTER ...",
                        help="an adapter's command line: every explored command is also sent to it and its answers "
                        "compared with the model's (spec/adapter-protocol.md)")
    parser.set_defaults(func=run)
