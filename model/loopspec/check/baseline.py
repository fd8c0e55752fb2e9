"""A fleet's known findings: ``loopspec check --expect FILE`` fails on a new one and on a stale one.

As ruff's and mypy's users keep a baseline while they fix what it lists, a team that adopts the
checker over logs it cannot fix at once lists each log's known finding: the log and the rule of its
first violation.  A run then passes only when its findings are exactly those: a log that breaks a
rule the file does not list for it is a new finding, and an entry whose log now passes, breaks
another rule first or no longer exists is stale (so the file shrinks as logs are fixed, the way
the conformance run's expectations file does); an entry of a log this run did not check is left
as it is, so a run over part of the fleet judges that part.  ``--update-expect`` writes the
file from the run.

The file is JSON: ``{"format": "loopspec-check-expect/1", "findings": [{"log": PATH, "rule":
RULE}, ...]}``, each path relative to the file's own folder, sorted, so it diffs well in review.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import attrs

from loopspec.check.verdict import LogResult

EXPECT_FORMAT = "loopspec-check-expect/1"

Finding = tuple[str, str]
"""``(log, rule)``: the log's path as the file writes it and the rule of its first violation."""


class ExpectError(ValueError):
    """The expectations file cannot be read as one (unusable input, exit 2)."""


@attrs.frozen
class Comparison:
    """What a run found against what the file expects."""

    new: tuple[Finding, ...]
    stale: tuple[Finding, ...]
    kept: int
    unchecked: int = 0

    @property
    def ok(self) -> bool:
        return not self.new and not self.stale

    def lines(self, file: Path) -> list[str]:
        out = [f"NEW finding, not in {file}: {log} [{rule}]" for log, rule in self.new]
        out += [f"STALE entry of {file}: {log} [{rule}] (the log passes now, breaks another rule first, or is "
                "gone): remove it" for log, rule in self.stale]
        said = "as expected" if self.ok else "do not match the expectations"
        unchecked = f", {self.unchecked} of logs not checked in this run" if self.unchecked else ""
        out.append(f"expectations {file}: {self.kept} known finding(s) found again, {len(self.new)} new, "
                   f"{len(self.stale)} stale{unchecked}: the findings {said}")
        return out


def _key(path: str, folder: Path) -> str:
    """A log's path relative to the expectations file's folder, with / as separator."""
    return Path(os.path.relpath(os.path.abspath(path), folder.absolute())).as_posix()


def findings(results: Sequence[LogResult], folder: Path) -> set[Finding]:
    """Each invalid log's first violation, keyed as the file keys it."""
    return {(_key(r.file, folder), r.violations[0].rule) for r in results if r.status == "invalid" and r.violations}


def load(file: Path) -> set[Finding]:
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExpectError(f"{file}: no such file (--update-expect writes it)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ExpectError(f"{file}: cannot read ({getattr(err, 'strerror', None) or err})") from None
    except ValueError as err:
        raise ExpectError(f"{file}: not JSON ({err})") from None
    entries = raw.get("findings") if isinstance(raw, dict) and raw.get("format") == EXPECT_FORMAT else None
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and set(e) == {"log", "rule"} and all(isinstance(e[k], str) for k in e)
            for e in entries):
        raise ExpectError(f"{file}: not an expectations file ({{\"format\": \"{EXPECT_FORMAT}\", \"findings\": "
                          "[{\"log\": PATH, \"rule\": RULE}, ...]})")
    return {(e["log"], e["rule"]) for e in entries}


def compare(expected: set[Finding], found: set[Finding], checked: set[str], folder: Path) -> Comparison:
    """``checked``: the keys of every log this run judged (valid, invalid or unusable)."""
    missed = expected - found
    unchecked = {(log, rule) for log, rule in missed if log not in checked and (folder / log).exists()}
    return Comparison(tuple(sorted(found - expected)), tuple(sorted(missed - unchecked)), len(found & expected),
                      len(unchecked))


def checked_keys(results: Sequence[LogResult], folder: Path) -> set[str]:
    return {_key(r.file, folder) for r in results}


def write(file: Path, found: set[Finding]) -> None:
    body = {"format": EXPECT_FORMAT, "findings": [{"log": log, "rule": rule} for log, rule in sorted(found)]}
    file.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
