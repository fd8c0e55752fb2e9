"""Benchmark of the real implementation's adapter (not a test): commands per second, beside the JS example.

    python benchmarks/dsh_adapter_bench.py [--repeat 3] [--conformance]

Both adapters are fed the same pipelined request stream, the one ``vectors run`` would send for
the whole generated suite (per case: ``reset``, then each command followed by ``state``), as one
process each, alternately, ``--repeat`` times: the real adapter (``bash scripts/dsh-adapter.sh``,
the published dsh packages) and the repository's JavaScript example
(``node examples/adapters/js/adapter.js``).  It prints commands/s by the wall clock for each, and
the ratio real / example per pair.  ``--conformance`` also times ``bash scripts/dsh-conformance.sh``
once (the whole run CI makes against the real packages).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from loopspec.vectors.adapter.handshake import PROTOCOL

ROOT = Path(__file__).resolve().parents[1]
REAL = ["bash", str(ROOT / "scripts" / "dsh-adapter.sh")]
EXAMPLE = ["node", str(ROOT / "examples" / "adapters" / "js" / "adapter.js")]


def request_stream(suite: Path) -> tuple[str, int]:
    """The requests of every full-profile case of ``suite``, and how many commands they hold."""
    lines = [json.dumps({"id": 0, "hello": {"protocol": PROTOCOL}})]
    commands = 0
    for path in sorted(suite.rglob("*.json")):
        if path.name == "manifest.json":
            continue
        case = json.loads(path.read_text())
        if "full" not in case["profiles"]:
            continue
        lines.append(json.dumps({"id": len(lines), "reset": {}}))
        for step in case["steps"]:
            lines.append(json.dumps({"id": len(lines), "command": step["command"]}))
            lines.append(json.dumps({"id": len(lines), "state": {}}))
            commands += 1
    return "\n".join(lines) + "\n", commands


def timed(argv: list[str], stream: str) -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stream, capture_output=True, text=True, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--conformance", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        suite = Path(scratch) / "suite"
        subprocess.run(["loopspec", "vectors", "generate", "--out", str(suite)], check=True, capture_output=True)
        stream, commands = request_stream(suite)
    timed(REAL, stream)  # installs on first use, and warms the disk cache for both
    print(f"{commands} commands (the whole suite's full-profile cases, each command with a state request)")
    for n in range(args.repeat):
        real, example = timed(REAL, stream), timed(EXAMPLE, stream)
        print(f"pair {n + 1}: real {commands / real:,.0f} commands/s ({real:.2f} s), "
              f"JS example {commands / example:,.0f} commands/s ({example:.2f} s), real / example {example / real:.2f}")
    if args.conformance:
        spent = timed(["bash", str(ROOT / "scripts" / "dsh-conformance.sh")], "")
        print(f"bash scripts/dsh-conformance.sh: {spent:.0f} s")


if __name__ == "__main__":
    main()
