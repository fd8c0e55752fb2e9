"""``loopspec check`` on the example logs and the real traces.

Every valid example (real-behaviour §10 scenarios S1–S19, S22–S24 as logs) and every real trace
is accepted; every invalid example fails with the rule in its name at the place the manifest
gives; and the invalid examples cover every rule the spec marks "Checkable from: log", except
the rules listed in :data:`NOT_SEPARATELY_VIOLABLE` with the reason no log can break them alone.

Rules proven by the examples: DATA-2, DATA-3, DATA-5, NORM-4, SPLICE-2, SPLICE-4, SPLICE-5,
SPLICE-6, FOLD-1, FOLD-2, FOLD-3, CLAIM-1, CLAIM-2, CLAIM-3, CLAIM-6, TURN-1, TURN-2, TURN-3,
TURN-4, TURN-5, STEP-1, STEP-2, STEP-3, STEP-4, DECIDE-5, DECIDE-6, DECIDE-8, RESULT-5, RESULT-6,
RESULT-7, CHAIN-2, CANCEL-3,
REPAIR-1, REPAIR-2, REPAIR-3, REPAIR-4, LOG-1, LOG-2, LOG-3, LOG-4, LOG-5, LOG-6, LOG-7, LOG-8,
END-1, VARIANT-1, VARIANT-2, VARIANT-3; the real traces also NOTIFY-1, NOTIFY-2, NOTIFY-4,
STATUS-1, CLAIM-4 (their live streams).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REAL_TRACES, REPO
from loopspec.check import CheckOptions, check_file
from loopspec.check.manifest import Expectation, load_manifest
from loopspec.rules.catalogue import load_spec

MANIFEST = REPO / "examples" / "logs" / "manifest.json"
EXAMPLES = load_manifest(MANIFEST)

# Log-checkable rules no log can break on its own, and why (each is still enforced: see the note).
NOT_SEPARATELY_VIOLABLE = {
    "DATA-1": "ids are opaque strings; any string is a legal id (a non-string id is DATA-2)",
    "DATA-4": "every log starts from the empty inbox by definition; there is no initial state to get wrong",
    "SPLICE-8": "clear()'s two records are indistinguishable from two public removals in the other order",
    "FOLD-4": "no record other than a splice can change the inbox: there is nothing for a log to break",
    "FOLD-5": "replay equals the live state by construction of the checker's fold (test_check_agreement)",
    "CLAIM-5": "a claimed id sent again later is a new message; a log cannot show an implicit requeue",
    "DECIDE-4": "input during a decision is an ordinary insertion; the fold keeps it pending (FOLD-*)",
    "DECIDE-7": "an error end is legal wherever no step is open; its live half is END-2",
    "CANCEL-1": "a keepInbox cancel writes no splice, so a missing clear is not visible in the log",
    "WORK-1": "consumed-work accounting is a fold over any valid log; it has no failing input",
    "WORK-2": "conservation of message fates follows from the fold (FOLD-2, FOLD-3) and claim shapes",
    "LOG-6": "foreign events pass through; the valid example S24 carries some",
}


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


def test_invalid_examples_cover_every_log_rule() -> None:
    """Every 'Checkable from: log' rule has an invalid example, or a reason no log breaks it alone."""
    log_rules = {r.id for r in load_spec().rules if "log" in r.checkable_from}
    shown = {e.rule for e in EXAMPLES if e.rule} | {c for e in EXAMPLES for c in e.covers}
    missing = log_rules - shown - NOT_SEPARATELY_VIOLABLE.keys()
    assert not missing, f"log rules with no invalid example: {sorted(missing)}"
    assert not (NOT_SEPARATELY_VIOLABLE.keys() - log_rules), "the exemption list names a rule that is not a log rule"
    assert not (shown & NOT_SEPARATELY_VIOLABLE.keys()), "a rule is both exempted and shown by an example"


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
