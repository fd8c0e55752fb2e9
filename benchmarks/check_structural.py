"""Benchmark (not a test): ``check`` / bare orjson parse on a log of inbox and turn/step records only.

    python benchmarks/check_structural.py [--events 1000000] [--repeat 5] [--keep DIR]

Figure 1 of docs/performance.md.  The log holds ``agent/inbox/spliced``, ``turn/*``, ``step/*``,
``user/message`` and ``session/end-seed`` records of a valid session keeping 3 follow-ups pending
(bench_common.py); every line goes through the checker's general path and its rule handlers.
"""

from __future__ import annotations

from bench_common import parse_ratio

if __name__ == "__main__":
    parse_ratio("structural", goal=2.0)
