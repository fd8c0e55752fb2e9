"""Fresh recordings of the real implementation, judged by ``reproduce`` and ``check --live``.

The recorder (``conformance/dsh/recorder.mjs``) writes runs of the published packages in the
repository's recording format: every vectors case the format can carry (its calls, a listener's
included, are the format's; a listener of a notification the recorder does not listen to is not)
and the named scenarios of ``conformance/dsh/scenarios``.  Each recording is then reproduced by the model and
checked with its live stream; what does not pass is an outcome the expectations must list.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "conformance" / "dsh" / "scenarios"
RECORDER = ("bash", str(ROOT / "scripts" / "dsh-adapter.sh"), "--record")

Json = dict[str, Any]


def record(suite: Path, out: Path) -> tuple[int, list[str]]:
    """Record every case of ``suite`` the format can carry and every named scenario into ``out``.

    ``(recorded, skipped)``: how many were recorded, and each skipped scenario with its reason.
    """
    cases = sorted(p for p in suite.rglob("*.json") if p.name != "manifest.json")
    files = [str(p) for p in (*cases, *sorted(SCENARIOS.glob("*.json")))]
    done = subprocess.run([*RECORDER, str(out), *files], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"dsh-conformance: the recorder exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    said = done.stdout.splitlines()
    return sum(line.startswith("recorded ") for line in said), [line for line in said if line.startswith("skipped ")]


def _reproduced(out: Path) -> dict[str, str]:
    """``reproduce`` of every recording: name -> '' (reproduced), its first difference, or why it is unusable.

    Exit 2 (some recording unusable) is an outcome like a difference: the expectations list it."""
    done = subprocess.run(["loopspec", "reproduce", str(out), "--format", "json"], capture_output=True, text=True,
                          check=False)
    if done.returncode not in (0, 1, 2) or not done.stdout.strip():
        raise SystemExit(f"dsh-conformance: reproduce exited {done.returncode}: {done.stderr.strip()}")
    outcomes: dict[str, str] = {}
    for rec in json.loads(done.stdout)["recordings"]:
        diff = rec.get("difference")
        if rec["status"] == "reproduced":
            outcomes[rec["name"]] = ""
        elif diff is not None:
            where = f"{Path(diff['file']).name}:{diff['line']}"
            outcomes[rec["name"]] = f"reproduce: {where}: {diff['what']} [{diff['rule']}]"
        else:
            problem = rec["problem"]
            outcomes[rec["name"]] = f"reproduce: unusable: {Path(problem['file']).name}:{problem['line']}: " \
                                    f"{problem['message']}"
    return outcomes


def _live_of(events: Path) -> Path:
    return events.with_name(events.name.replace(".events.jsonl", ".live.jsonl"))


def _first_violation(file: str, line: int, message: str, rule: str) -> str:
    return f"check --live: {Path(file).name}:{line}: {message} [{rule}]"


def _unusable(events: Path, problem: str) -> str:
    # The problem names files by their paths: the recording's folder is a fresh scratch folder.
    return f"check --live: unusable: {problem.replace(f'{events.parent}/', '')}"


def _checked_here(events: Path) -> str:
    """``check --live`` of one recording by the function the command calls, in this process: ''
    (valid) or its first violation, in the words of :func:`_checked`.

    Some 750 recordings a run: a process each cost about 0.15 s of CPU (Python's start and the
    imports), a check here a few milliseconds."""
    from loopspec.check.runner import check_file
    from loopspec.check.verdict import CheckOptions

    result = check_file(events, CheckOptions(), live=_live_of(events))
    if result.status == "valid":
        return ""
    if result.status == "invalid" and result.violations:
        first = result.violations[0]
        return _first_violation(first.file, first.line, first.message, first.rule)
    if result.status == "unusable" and result.problem:
        return _unusable(events, result.problem)
    return _checked(events)


def _checked_share(logs: list[Path]) -> list[str]:
    """:func:`_checked_here` of each log, in a Python process of its own (this file run as a script):
    two shares check side by side, whatever started this process and whatever threads it runs."""
    if not logs:
        return []
    done = subprocess.run([sys.executable, __file__, *map(str, logs)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"dsh-conformance: checking the live streams exited {done.returncode}: "
                         f"{done.stderr.strip()[-2000:]}")
    words: list[str] = json.loads(done.stdout)
    return words


def _checked(events: Path) -> str:
    """``check --live`` of one recording, run as a user runs it: '' (valid) or its first violation."""
    live = _live_of(events)
    done = subprocess.run(["loopspec", "check", str(events), "--live", str(live), "--format", "json"],
                          capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return ""
    try:
        said = json.loads(done.stdout)["logs"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        said = {}
    if done.returncode == 2 and said.get("problem"):
        return _unusable(events, said["problem"])
    if done.returncode != 1 or not said.get("violations"):  # no report to read: the command's own words
        return f"check --live: exit {done.returncode}: {done.stderr.strip()[-300:]}"
    first = said["violations"][0]
    return _first_violation(first["file"], first["line"], first["message"], first["rule"])


def judged(out: Path) -> dict[str, Json]:
    """Every recording that ``reproduce`` or ``check --live`` does not pass: name -> {reproduce, check}."""
    reproduced = _reproduced(out)
    logs = sorted(out.glob("*.events.jsonl"))
    # Two processes, each checking a share of the logs in turn (see _checked_here).
    shares = [logs[i::2] for i in range(2)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(zip((p for share in shares for p in share),
                            (v for done in pool.map(_checked_share, shares) for v in done), strict=True))
    checked = {p.name.removesuffix(".events.jsonl"): verdicts[p] for p in logs}
    return {name: {"reproduce": reproduced.get(name, "reproduce: not read"), "check": checked[name]}
            for name in sorted(checked) if reproduced.get(name) != "" or checked[name] != ""}


if __name__ == "__main__":  # the words of check --live for each log given, as a JSON list (see _checked_share)
    print(json.dumps([_checked_here(Path(arg)) for arg in sys.argv[1:]]))
