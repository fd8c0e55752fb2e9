"""Example logs with their expected verdicts: ``loopspec check --manifest FILE``.

A manifest is JSON ``{"logs": [entry, ...]}``; each entry names a log relative to the manifest,
its expected ``verdict`` (``valid`` / ``invalid``) and, for an invalid one, the ``rule`` of its
first violation and where it is (``seq`` or ``line``).  ``covers`` lists further rules the example
demonstrates that the checker reports under ``rule`` (e.g. an unknown target is DATA-3, reported
by the fold as FOLD-1); ``options`` may set ``allow_torn_tail``.  ``live`` names a live stream
(``NAME.live.jsonl``) checked with the log, as ``check LOG --live STREAM`` does; an invalid
example with a live stream is named after its rule by the stream's file name.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from loopspec.check.runner import check_file
from loopspec.check.verdict import CheckOptions, LogResult


class ManifestError(ValueError):
    """The manifest itself is unreadable or malformed."""


@attrs.frozen
class Expectation:
    path: Path
    verdict: str
    rule: str | None = None
    seq: int | None = None
    line: int | None = None
    covers: tuple[str, ...] = ()
    allow_torn_tail: bool = False
    live: Path | None = None

    @property
    def named(self) -> Path:
        """The file named after the example's rule: the live stream when there is one."""
        return self.live if self.live is not None else self.path

    def judge(self, result: LogResult) -> str | None:
        """None when ``result`` is what this entry expects, else what differs."""
        if result.status != self.verdict:
            got = f"{result.status}" + (f" ({result.rules[0]})" if result.violations else "")
            return f"expected {self.verdict}, got {got}" + (f": {result.problem}" if result.problem else "")
        if self.verdict != "invalid":
            return None
        first = result.violations[0]
        if first.rule != self.rule:
            return f"expected {self.rule}, got {first.rule}: {first.message}"
        if self.seq is not None and first.seq != self.seq:
            return f"expected {self.rule} at seq {self.seq}, got seq {first.seq}"
        if self.line is not None and first.line != self.line:
            return f"expected {self.rule} at line {self.line}, got line {first.line}"
        return None


def _entry(raw: object, base: Path, index: int) -> Expectation:
    if not isinstance(raw, dict) or not isinstance(raw.get("file"), str):
        raise ManifestError(f"entry {index}: needs a string 'file'")
    verdict = raw.get("verdict")
    if verdict not in ("valid", "invalid"):
        raise ManifestError(f"entry {index} ({raw['file']}): verdict must be 'valid' or 'invalid'")
    rule = raw.get("rule")
    if verdict == "invalid" and not isinstance(rule, str):
        raise ManifestError(f"entry {index} ({raw['file']}): an invalid example needs its 'rule'")
    options = raw.get("options", {})
    covers = raw.get("covers", [])
    if not isinstance(options, dict) or not isinstance(covers, list):
        raise ManifestError(f"entry {index} ({raw['file']}): 'options' must be an object and 'covers' a list")
    seq, line, live = raw.get("seq"), raw.get("line"), raw.get("live")
    if live is not None and not isinstance(live, str):
        raise ManifestError(f"entry {index} ({raw['file']}): 'live' must name a file")
    return Expectation(
        path=base / raw["file"],
        verdict=verdict,
        rule=rule if isinstance(rule, str) else None,
        seq=seq if isinstance(seq, int) else None,
        line=line if isinstance(line, int) else None,
        covers=tuple(str(c) for c in covers),
        allow_torn_tail=options.get("allow_torn_tail") is True,
        live=base / live if isinstance(live, str) else None,
    )


def load_manifest(path: Path) -> tuple[Expectation, ...]:
    if path.is_dir():
        raise ManifestError(f"{path} is a folder; --manifest takes the manifest file (e.g. {path}/manifest.json)")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ManifestError(f"{path}: cannot read the manifest ({err.strerror or err})") from None
    except ValueError as err:
        raise ManifestError(f"{path}: not a manifest: not JSON ({err})") from None
    entries = raw.get("logs") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise ManifestError(f"{path}: a manifest is an object with a 'logs' list")
    return tuple(_entry(e, path.parent, i) for i, e in enumerate(entries))


def verify(expectations: tuple[Expectation, ...]) -> list[tuple[Expectation, LogResult, str | None]]:
    """Check every example; per example its result and the mismatch (None when as expected)."""
    out: list[tuple[Expectation, LogResult, str | None]] = []
    for e in expectations:
        result = check_file(e.path, CheckOptions(allow_torn_tail=e.allow_torn_tail), live=e.live)
        out.append((e, result, e.judge(result)))
    return out
