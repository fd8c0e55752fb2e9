"""``loopspec check --exhaustive``: small logs judged by searching the model for a run that writes them.

The fast checker reads each log first: what it calls unusable (no event at all, a live recording)
is reported so here too, never judged; where the search finds a log invalid, the checker's rule
is named beside the search's place when the two agree on it.
"""

from __future__ import annotations

import argparse
import sys

from loopspec.check.reader import discover
from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult


def run_exhaustive(args: argparse.Namespace) -> int:
    """``--exhaustive``: the search judge (a run of the model that writes the log), one verdict per log."""
    from loopspec.explore.judge import MAX_EVENTS, judge_file

    if args.live is not None:
        print("loopspec check: --exhaustive judges durable logs only, not --live", file=sys.stderr)
        return 2
    # Options the search's report has no use for are refused, never silently dropped.
    ignored = [flag for flag, given in (("--all", args.all), ("--max-violations", args.max_violations is not None),
                                        ("--format", args.format != "text"), ("--out", args.out is not None),
                                        ("--jobs", args.jobs != 1), ("--expect", args.expect is not None))
               if given]
    if ignored:
        print(f"loopspec check: --exhaustive reports one verdict per log as text; it takes no {', '.join(ignored)}",
              file=sys.stderr)
        return 2
    files, problems = discover(args.paths)
    for problem in problems:
        print(f"loopspec check: {problem}", file=sys.stderr)
    verdicts = []
    for path in files:
        # What the fast checker calls unusable (no event, a live recording) the search does not judge.
        checked = check_file(path, CheckOptions(allow_torn_tail=args.allow_torn_tail))
        if checked.status == "unusable":
            print(f"{path}: UNUSABLE ({checked.problem})")
            verdicts.append("unusable")
            continue
        try:
            verdict = judge_file(path, allow_torn_tail=args.allow_torn_tail)
        except OSError as err:
            print(f"{path}: UNUSABLE (cannot read: {err.strerror or err})")
            verdicts.append("unusable")
            continue
        verdicts.append(verdict.status)
        print(f"{path}: {verdict.status.upper()} ({verdict.reason}; {verdict.states} states searched)")
        if verdict.status == "invalid" and verdict.seq is not None:
            print(f"  {_fast_checker_says(checked, verdict.seq)}")
        if verdict.status == "valid" and not args.quiet:
            print(f"  shortest run: {len(verdict.run)} command(s)")
    print(f"judged {len(files)} log(s) by search (logs of at most {MAX_EVENTS} events)")
    if problems or any(v in ("unsupported", "unknown", "unusable") for v in verdicts):
        return 2
    return 1 if "invalid" in verdicts else 0


def _fast_checker_says(result: LogResult, seq: int) -> str:
    """The rule the fast checker names at the search's place (labelled as its), or where it differs."""
    if not result.violations:
        return "the fast checker (loopspec check) finds no violation"
    first = result.violations[0]
    if first.line - 1 == seq:
        return f"rule (from the fast checker, which agrees on the place): [{first.rule}] {first.message}"
    return f"the fast checker (loopspec check) places its first violation elsewhere: line {first.line} [{first.rule}]"
