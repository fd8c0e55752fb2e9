"""``loopspec check``: check session logs (and a live stream) against the rule catalogue.

Exit codes: 0 every log is valid (or every manifest example got its expected verdict); 1 some
log violates a rule (or an example did not get its verdict); 2 unusable input (unreadable or
missing file, a symlink loop, a folder with no log, a file that is not a session log, corrupt
compression, malformed or empty manifest) or bad usage; 3 an internal error (cli.main).
``-`` reads a log from standard input (plain or gzip).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

# Only what a plain check needs is imported here: the live checker, the manifest, the JSON and
# JUnit reports and the temporary folder for standard input come when asked for (start-up time,
# docs/performance.md; tests/cli/test_startup.py keeps them out).
from loopspec.check.parallel import check_files
from loopspec.check.reader import discover, path_text
from loopspec.check.report_text import FORMAT_NAMES, HTML, Summary, render_text
from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult
from loopspec.cli.option_types import positive_int
from loopspec.data.terminal_text import write_meter
from loopspec.log.stdin import STDIN, spool

if TYPE_CHECKING:
    from typing import TextIO

STDIN_NAME = "<stdin>"
# The html report draws with loopspec.render, imported only when asked for (start-up stays small).

PROGRESS_MIN_FILES = 20


class _Progress:
    """A one-line counter on stderr, only for a terminal and many files."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.enabled = stream.isatty() and total >= PROGRESS_MIN_FILES
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.1 or done == total):
            self.last = now
            write_meter(self.stream, f"\rchecking logs: {done}/{total}")
            if done == total:
                self.stream.write("\n")
            self.stream.flush()


def _options(args: argparse.Namespace) -> CheckOptions:
    return CheckOptions(
        all=args.all or args.max_violations is not None,
        max_violations=args.max_violations or 100,
        allow_torn_tail=args.allow_torn_tail,
    )


def _render(fmt: str, results: list[LogResult], summary: Summary, quiet: bool) -> str:
    # A text report of valid logs cites no rule: reading the spec would only cost start-up time.
    if fmt == "text" and not any(r.violations for r in results):
        return render_text(results, summary, quiet)
    from loopspec.check.report import render

    return render(fmt, results, summary, quiet)


def _run_manifest(args: argparse.Namespace) -> int:
    from pathlib import Path  # the manifest's paths are resolved against its folder

    from loopspec.check.manifest import ManifestError, load_manifest, verify
    from loopspec.check.report import render_manifest

    try:
        expectations = load_manifest(Path(args.manifest))
    except ManifestError as err:
        print(f"loopspec check: {err}", file=sys.stderr)
        return 2
    if not expectations:
        print(f"loopspec check: {args.manifest} lists no example logs: nothing to check", file=sys.stderr)
        return 2
    started = time.perf_counter()
    outcomes = verify(expectations)
    summary = Summary.of([r for _, r, _ in outcomes], time.perf_counter() - started)
    sys.stdout.write(render_manifest(args.format, str(args.manifest), outcomes, summary, quiet=args.quiet))
    return 0 if all(mismatch is None for *_, mismatch in outcomes) else 1


def _renamed(result: LogResult, copy: str | None) -> LogResult:
    """The spooled copy of standard input (the log or the live stream) reported as ``<stdin>``."""
    if copy is None:
        return result
    spooled = str(copy)
    return result._replace(
        file=STDIN_NAME if result.file == spooled else result.file,
        violations=tuple(v._replace(file=STDIN_NAME) if v.file == spooled else v for v in result.violations))


@contextmanager
def _stdin_spooled(paths: list[str], live: str | None) -> Iterator[tuple[list[str], str | None, str | None]]:
    """``-`` among the logs or as ``--live``, copied to a temporary file; yields the paths to read
    and the copy (None when standard input is not read)."""
    if not any(str(p) == STDIN for p in paths) and str(live) != STDIN:
        yield paths, live, None
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="loopspec-stdin-") as folder:
        copy = spool(sys.stdin.buffer, folder)
        yield ([copy if str(p) == STDIN else p for p in paths], copy if str(live) == STDIN else live, copy)


def run(args: argparse.Namespace) -> int:
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # garbage input may hold lone surrogates, which UTF-8 cannot print
        reconfigure(errors="backslashreplace")
    if args.manifest is not None:
        given = (("log paths", bool(args.paths)), ("--live", args.live is not None),
                 ("--expect", args.expect is not None), ("--format html", args.format == HTML), ("--all", args.all),
                 ("--max-violations", args.max_violations is not None), ("--jobs", args.jobs != 1),
                 ("--out", args.out is not None))
        ignored = [flag for flag, named in given if named]
        if ignored:
            print(f"loopspec check: --manifest judges the examples it lists; it takes no {', '.join(ignored)}",
                  file=sys.stderr)
            return 2
        return _run_manifest(args)
    if not args.paths:
        print("loopspec check: give log files or directories (or --manifest FILE)", file=sys.stderr)
        return 2
    if args.exhaustive:
        from loopspec.cli.check_exhaustive import run_exhaustive  # the search's imports only when asked

        return run_exhaustive(args)
    reads_stdin = [p for p in [*args.paths, args.live] if str(p) == STDIN]
    if len(reads_stdin) > 1:
        print("loopspec check: standard input (-) can be read once only", file=sys.stderr)
        return 2
    files, problems = discover(args.paths)
    for problem in problems:
        print(f"loopspec check: {problem}", file=sys.stderr)
    # A path that holds no log is in the report too (UNUSABLE), so a machine reading it sees what the
    # run could not judge, not only a human reading stderr.
    missing = [LogResult(problem.path, "unusable", 0, 0, problem=problem.why) for problem in problems]
    if not files and not (missing and args.format in ("json", "junit")):
        print("loopspec check: no session log to check", file=sys.stderr)
        return 2
    if args.format == HTML or args.out is not None:
        from loopspec.render.violation import usage_problem

        if (usage := usage_problem(args.format, args.out, len(files))) is not None:
            print(f"loopspec check: {usage}", file=sys.stderr)
            return 2
    if args.live is not None and (len(files) != 1 or problems):
        print("loopspec check: --live needs exactly one log", file=sys.stderr)
        return 2
    if args.live is not None and args.jobs != 1:
        print("loopspec check: --live checks one log in this process; it takes no --jobs", file=sys.stderr)
        return 2
    if (refused := _expect_problem(args)) is not None:
        print(f"loopspec check: {refused}", file=sys.stderr)
        return 2
    options = _options(args)
    started = time.perf_counter()
    results: list[LogResult]
    with _stdin_spooled(files, args.live) as (files, live, copy):
        if live is not None:
            results = [check_file(files[0], options, live=live)]
        else:
            results = check_files(files, options, max(1, args.jobs), _Progress(sys.stderr, len(files)))
        results = [_renamed(r, copy) for r in results]
    if args.format in ("json", "junit"):
        results = [*missing, *results]  # text says it once, on stderr above
    summary = Summary.of(results, time.perf_counter() - started)
    if args.format == HTML:
        from loopspec.render.violation import write_html

        if (failed := write_html(results, args.out, args.live, sys.stdout)) is not None:
            print(f"loopspec check: {failed}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(_render(args.format, results, summary, args.quiet))
    if args.expect is not None:
        return _against_expectations(args, results, problems)
    if problems or any(r.status == "unusable" for r in results):
        return 2
    return 1 if any(r.status == "invalid" for r in results) else 0


def _expect_problem(args: argparse.Namespace) -> str | None:
    """Why --expect / --update-expect cannot be used as given, found before the logs are checked."""
    if args.expect is None:
        return "--update-expect writes the file --expect FILE names; give it" if args.update_expect else None
    if args.format == HTML or args.live is not None:
        return "--expect judges a fleet's logs by their findings; it takes no --format html or --live"
    if args.update_expect:
        return None
    from pathlib import Path

    from loopspec.check.baseline import ExpectError, load

    try:
        load(Path(args.expect))
    except ExpectError as err:
        return str(err)
    return None


def _against_expectations(args: argparse.Namespace, results: list[LogResult], problems: Sequence[object]) -> int:
    """``--expect FILE``: pass when the findings are the file's (``--update-expect``: write them there)."""
    from pathlib import Path

    from loopspec.check import baseline

    file = Path(args.expect)
    folder = file.absolute().parent
    found = baseline.findings(results, folder)
    if args.update_expect:
        try:
            baseline.write(file, found)
        except OSError as err:
            print(f"loopspec check: cannot write {file} ({err.strerror or err})", file=sys.stderr)
            return 2
        print(f"wrote {file}: {len(found)} finding(s)", file=sys.stderr)
        return 2 if problems or any(r.status == "unusable" for r in results) else 0
    comparison = baseline.compare(baseline.load(file), found, baseline.checked_keys(results, folder), folder)
    for line in comparison.lines(file):
        print(line, file=sys.stderr)
    if problems or any(r.status == "unusable" for r in results):
        return 2  # what could not be judged is never a pass, whatever the file lists
    return 0 if comparison.ok else 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check session logs against the spec's rules",
        description="Check JSONL session logs (plain or .gz; - reads standard input; directories are searched "
        "for *.jsonl and *.jsonl.gz, except *.live.jsonl) and report each violation with its rule ID, where it "
        "happened and the section of the spec that states the rule. Every file given is judged as a session log, "
        "except a file with content none of which is a JSON object (random bytes, another format): that is not "
        "a session log (exit 2). So an empty file is a valid empty log, and a file of blank lines breaks LOG-1 at "
        "line 1 as a blank line does in any log. A live recording (NAME.live.jsonl) is checked with --live "
        "next to its log. Exit 0: all valid (with --expect: the findings are the file's); 1: a rule "
        "is violated (with --expect: a new finding or a stale entry); 2: unusable input or usage (missing or "
        "unreadable path, symlink loop, folder without logs, not a session log, corrupt compression); 3: "
        "internal error.",
    )
    parser.add_argument("paths", nargs="*", type=path_text,
                        help="session logs (*.jsonl, *.jsonl.gz, or - for standard input) or folders of them")
    parser.add_argument("--live", type=path_text, metavar="FILE",
                        help="also check this live.jsonl stream against the (single) log")
    parser.add_argument("--all", action="store_true", help="report every violation, not only the first")
    parser.add_argument("--max-violations", type=positive_int, metavar="N",
                        help="report at most N per log (implies --all; without it --all stops at 100)")
    parser.add_argument("--allow-torn-tail", action="store_true",
                        help="accept a cut-off last line without newline (a crash mid-append), minus that line")
    parser.add_argument("--format", choices=(*FORMAT_NAMES, HTML), default="text",
                        help="report format; json and junit name the tool version, the spec digest and each "
                        "violated rule's spec section; html draws each log's timeline around its first "
                        "violation: one log's page is printed, several need --out DIR")
    parser.add_argument("--out", type=path_text, metavar="DIR",
                        help="with --format html: write DIR/NNN-NAME.html per log and DIR/index.html")
    parser.add_argument("--jobs", "-j", type=positive_int, default=1, metavar="N", help="check logs in N processes")
    parser.add_argument("--quiet", "-q", action="store_true", help="only report invalid logs and the summary")
    parser.add_argument("--manifest", type=path_text, metavar="FILE",
                        help="check the example logs a manifest lists against their expected verdicts "
                        "(honours --format and --quiet)")
    parser.add_argument("--exhaustive", action="store_true",
                        help="judge small logs by searching the model for a run that writes them (exit 2: outside "
                        "the judge's scope; see docs/exploration.md)")
    parser.add_argument("--expect", type=path_text, metavar="FILE",
                        help="a fleet's known findings (each log and the rule of its first violation, JSON): exit "
                        "0 when the findings are exactly those, 1 on a new finding or a stale entry, each named "
                        "on stderr; entries of logs not checked in this run are left alone")
    parser.add_argument("--update-expect", action="store_true",
                        help="with --expect FILE: write this run's findings to FILE instead of comparing")
    parser.set_defaults(func=run)
