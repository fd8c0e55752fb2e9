"""Benchmark (not a test): ``check`` / bare orjson parse on a chunk-heavy log, like a real session's.

    python benchmarks/check_chunks.py [--events 1000000] [--repeat 5] [--keep DIR]

Figure 2 of docs/performance.md.  Every step streams 40 to 80 ``assistant/chunk`` deltas between
``request/header`` and ``assistant/message``, with tool calls, steering, cancels and crashes around
them (bench_common.py); the chunks take the typed fast path (loopspec.check.fastpath).
"""

from __future__ import annotations

from bench_common import parse_ratio

if __name__ == "__main__":
    parse_ratio("chunks", goal=1.3)
