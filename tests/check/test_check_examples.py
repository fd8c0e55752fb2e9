"""``loopspec check`` on the example logs and the real traces.

Every valid example (real-behaviour §10 scenarios S1–S19, S22–S24 as logs) and every real trace
is accepted; every invalid example fails with the rule in its name at the place the manifest
gives.  That the invalid examples cover every rule the spec marks "Checkable from: log" (and the
live streams every "live" rule) is test_checkability's.

Rules proven by the examples: DATA-2, DATA-3, DATA-5, NORM-4, SPLICE-2, SPLICE-4, SPLICE-5,
SPLICE-6, FOLD-1, FOLD-2, FOLD-3, CLAIM-1, CLAIM-2, CLAIM-3, CLAIM-6, TURN-1, TURN-2, TURN-3,
TURN-4, TURN-5, STEP-1, STEP-2, STEP-3, STEP-4, DECIDE-5, DECIDE-6, DECIDE-8, RESULT-5, RESULT-6,
RESULT-7, CHAIN-2, CANCEL-3,
REPAIR-1, REPAIR-2, REPAIR-3, REPAIR-4, LOG-1, LOG-2, LOG-3, LOG-4, LOG-5, LOG-6, LOG-7, LOG-8,
END-1, VARIANT-1, VARIANT-2, VARIANT-3; the live streams (the recordings' and the invalid ones
paired with them) NOTIFY-1, NOTIFY-2, NOTIFY-3, NOTIFY-4, STATUS-1, CLAIM-4, END-2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions, check_file
from loopspec.check.manifest import Expectation, load_manifest

MANIFEST = REPO / "examples" / "logs" / "manifest.json"
EXAMPLES = load_manifest(MANIFEST)

def _id(e: Expectation) -> str:
    return e.named.name


@pytest.mark.rule("LOG-5")
@pytest.mark.parametrize("expectation", EXAMPLES, ids=_id)
def test_example_gets_its_verdict(expectation: Expectation) -> None:
    """Each example's first violation is the rule (and place) its manifest entry names."""
    options = CheckOptions(allow_torn_tail=expectation.allow_torn_tail)
    result = check_file(expectation.path, options, live=expectation.live)
    assert expectation.judge(result) is None, (expectation.judge(result), result.violations[:1])
    if expectation.verdict == "invalid":
        assert expectation.named.name.startswith(f"{expectation.rule}-"), "invalid examples are named after the rule"


def test_valid_examples_cover_the_scenarios() -> None:
    """The §10 scenarios the brief names are all among the valid examples."""
    names = " ".join(e.path.name for e in EXAMPLES if e.verdict == "valid")
    for n in (1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 23):
        assert f"S{n:02d}-" in names, f"scenario S{n} has no valid example"
    assert "v0.1.1" in names, "both S18 variants (VARIANT-1)"
    assert "v0.1.5" in names, "both S18 variants (VARIANT-1)"


REAL_LOGS = sorted(REAL_TRACES.glob("*.events.jsonl"))


@pytest.mark.rule("FOLD-5", "LOG-6", "REPAIR-1", "REPAIR-2", "REPAIR-3", "VARIANT-1")
@pytest.mark.parametrize("log", REAL_LOGS, ids=lambda p: p.name)
def test_real_trace_is_valid(log: Path) -> None:
    result = check_file(log, CheckOptions(all=True))
    assert result.status == "valid", result.violations
    assert result.events == sum(1 for _ in log.open("rb"))


@pytest.mark.rule("NOTIFY-1", "NOTIFY-2", "NOTIFY-4", "STATUS-1", "CLAIM-4", "END-2", "LOG-5")
@pytest.mark.parametrize("log", REAL_LOGS, ids=lambda p: p.name)
def test_real_trace_with_its_live_stream_is_valid(log: Path) -> None:
    """Also resume_crash_mid_turn, whose dead process reports splices the persisted log lacks."""
    live = log.with_name(log.name.replace(".events.", ".live."))
    result = check_file(log, CheckOptions(all=True), live=live)
    assert result.status == "valid", result.violations


def test_there_are_eight_real_traces() -> None:
    assert len(REAL_LOGS) == 8


# Hand-made recordings the model reproduces (examples/recordings-synthetic/README.md): also a
# graceful disposal and a killed process followed by a disposal (process boundaries, LOG-5).
SYNTHETIC_LOGS = sorted((REPO / "examples" / "recordings-synthetic" / "reproduces").glob("*.events.jsonl"))


@pytest.mark.rule("LOG-5", "REPAIR-2", "CANCEL-4")
@pytest.mark.parametrize("live", [False, True], ids=["log", "log+live"])
@pytest.mark.parametrize("log", SYNTHETIC_LOGS, ids=lambda p: p.name)
def test_reproducing_synthetic_recording_is_valid(log: Path, live: bool) -> None:
    stream = log.with_name(log.name.replace(".events.", ".live.")) if live else None
    result = check_file(log, CheckOptions(all=True), live=stream)
    assert result.status == "valid", result.violations
