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


def _checked(events: Path) -> str:
    """``check --live`` of one recording: '' (valid) or its first violation."""
    live = events.with_name(events.name.replace(".events.jsonl", ".live.jsonl"))
    done = subprocess.run(["loopspec", "check", str(events), "--live", str(live), "--format", "json"],
                          capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return ""
    if done.returncode != 1:
        return f"check --live: unusable: {done.stdout.strip()[-300:]} {done.stderr.strip()[-300:]}"
    first = json.loads(done.stdout)["logs"][0]["violations"][0]
    return f"check --live: {Path(first['file']).name}:{first['line']}: {first['message']} [{first['rule']}]"


def judged(out: Path) -> dict[str, Json]:
    """Every recording that ``reproduce`` or ``check --live`` does not pass: name -> {reproduce, check}."""
    reproduced = _reproduced(out)
    logs = sorted(out.glob("*.events.jsonl"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        checked = dict(zip((p.name.removesuffix(".events.jsonl") for p in logs), pool.map(_checked, logs),
                           strict=True))
    return {name: {"reproduce": reproduced.get(name, "reproduce: not read"), "check": checked[name]}
            for name in sorted(checked) if reproduced.get(name) != "" or checked[name] != ""}
