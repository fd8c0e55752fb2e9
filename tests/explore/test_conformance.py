"""Exhaustive conformance (``loopspec explore -- ADAPTER``) catches wrong implementations with a shortest case.

Every mutant of ``tests/vectors/mutants`` is an implementation that answers one behaviour wrongly,
served in-process (its bug is installed only while it answers, so the model it is compared with
runs unpatched).  Exploring its scope (:data:`SCOPE`, or the one :data:`OWN_SCOPE` names) against
it must stop at a disagreement after a shortest sequence (breadth first: no shorter explored
sequence disagrees), and the counterexample's vector case, whose expectations are the model's,
passes ``vectors run`` against the model and fails it against the mutant.  Every mutant is in one
of the two lists: each is caught.
This catches the mutants whose bug breaks no invariant of one model (a refusal's wording, a
notification's order), which ``test_mutants_explored.py`` cannot.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from explore.profile_scope import PROFILE
from loopspec.explore.conformance import CONFORMS
from loopspec.explore.report import counterexample_case
from loopspec.explore.run import explore
from loopspec.statespace.scope import CANCELS, DECISIONS, RESULTS, SENDS, STOPPING_ANSWERS, Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.drive_check import Checker
from loopspec.vectors.profiles import PROFILES
from loopspec.vectors.run_report import PASS
from loopspec.vectors.runner import run_case
from vectors.mutants.catalogue import BY_NAME, MUTANTS, handler
from vectors.mutants.handler import Mutant

SCOPE = Scope(1, 3)
ROOT = Path(__file__).resolve().parents[2]
# Every mutant is caught, each within the scope below (SCOPE unless OWN_SCOPE names another): the
# smallest found, measured 2026-12-01 (docs/performance.md, "Against an implementation").  `ci`
# runs QUICK (each within about 2 s of CPU here: CI's time is bounded), `thorough` SLOWER too (each
# up to about 2.5 min).
# Scopes beyond SCOPE keep to the command families the bug needs, which makes them affordable.
LIFECYCLE = (SENDS, CANCELS, DECISIONS, RESULTS, STOPPING_ANSWERS)
OWN_SCOPE = {
    # Two ids: a second message to confuse, reorder or claim alongside the first.
    **dict.fromkeys(("ids-case-insensitive", "claim-every-next-turn", "negative-start-from-zero",
                     "clear-next-turn-first", "lanes-in-insertion-order", "discarded-backwards",
                     "clear-notifies-after-both-records", "claim-one-record-per-message",
                     "claimed-after-each-record", "entered-backwards", "tool-context-prepended"), Scope(2, 3)),
    # A fourth command: an answer after a step's end, a second boundary, a stop after an abort.
    **dict.fromkeys(("status-per-turn", "empty-entry-always-completes", "later-reject-keeps-step-reason",
                     "turn-end-before-step-end-on-abort", "max-tokens-does-not-chain", "stopping-ignores-abort",
                     "snake-case-reasons", "no-agent-error-at-stopping"), Scope(1, 4, LIFECYCLE)),
    # A fifth: a second step after steering (max-tokens, a chained turn's numbering), two calls.
    "max-tokens-not-sticky": Scope(1, 5, (SENDS, DECISIONS, RESULTS, STOPPING_ANSWERS)),
    "step-numbers-continue-across-turns": Scope(1, 5, (SENDS, DECISIONS, RESULTS, STOPPING_ANSWERS)),
    "results-out-of-call-order": Scope(1, 5, (SENDS, DECISIONS, RESULTS)),
    "abort-leaves-calls-unanswered": Scope(1, 5, (SENDS, CANCELS, DECISIONS, RESULTS)),
    # A sixth over two ids: latch a wake, clear the inbox, park a message, decide.
    "clearing-cancel-keeps-latch": Scope(2, 6, (SENDS, CANCELS, DECISIONS)),
}
QUICK = (
    "reject-requeues-batch", "turn-start-after-claim", "step-opened-on-reject", "noop-edits-written",
    "dup-check-target-only", "removed-count-zero", "claim-marked-canceled", "claim-discards",
    "inserted-before-discarded", "start-floors", "delete-count-int32", "records-raw-start", "minus-zero-as-zero",
    "splice-returns-null", "inserted-omitted-when-empty", "replace-missing-upserts", "replace-same-id-refused",
    "target-camel-case", "discarded-carries-outcome", "claim-deferred-to-decision", "inject-wakes",
    "status-after-claim", "refused-followup-still-wakes", "turn-numbers-restart-after-reload",
    "wake-while-running-starts-turn", "error-turn-chains", "user-message-before-step-start",
    "empty-first-entry-opens-step", "enter-ignores-messages", "listeners-innermost-first",
    "listener-input-joins-batch", "agent-error-proposed-step", "idle-cancel-ignores-keep", "latch-never-replays",
    "non-waking-send-redirected", "aborted-without-cause", "end-seed-after-repair-only", "closers-stamped-now",
    "restart-resumes-pending", "fold-default-resets", "reload-skips-claims", "clear-writes-claim-shaped-removals",
    "ignorable-false-written", "seq-from-one", "user-message-without-surface-op", "turn-start-trigger",
    "inbox-records-ignorable", "agent-error-after-turn-end", "end-seed-inherited-false",
    # Caught since the alphabet writes ids that differ only in case, an edited body with a field the
    # model does not know, an insertion at -0 inside a listener, and two non-commuting transforms.
    "ids-case-insensitive", "unknown-fields-dropped", "minus-zero-message", "transforms-outermost-first",
    # Two ids (OWN_SCOPE), found within a level or two.
    "claim-every-next-turn", "lanes-in-insertion-order", "claim-one-record-per-message", "claimed-after-each-record",
)
SLOWER = (
    "claim-next-turn-always", "blocked-turn-chains", "duplicate-message-text", "redirect-skips-duplicate-check",
    "claim-before-step-end", "decide-while-stepping-ignored", "failed-step-left-open",
    "continuation-skips-decision", "listener-refusal-swallowed", "reject-drops-staged-input",
    "retry-opens-new-step", "no-turn-stopping", "stop-ignores-step-input", "abort-keeps-next-step",
    "restart-skips-step-end", "abort-drops-next-step-unrecorded", "tool-call-counted-from-zero",
    "tool-context-prepended", "max-tokens-not-sticky", "abort-leaves-calls-unanswered", "clearing-cancel-keeps-latch",
    "negative-start-from-zero", "clear-next-turn-first", "discarded-backwards", "clear-notifies-after-both-records",
    "entered-backwards", "status-per-turn", "empty-entry-always-completes", "later-reject-keeps-step-reason",
    "turn-end-before-step-end-on-abort", "max-tokens-does-not-chain", "stopping-ignores-abort", "snake-case-reasons",
    "no-agent-error-at-stopping", "step-numbers-continue-across-turns", "results-out-of-call-order",
)
CAUGHT = QUICK + (SLOWER if PROFILE == "thorough" else ())


def _passes(case: dict[str, object], adapter: InProcessAdapter) -> bool:
    """The case as ``loopspec vectors run`` runs it: every answer, the final state and the log audit."""
    return run_case(adapter, str(case["id"]), case).status == PASS


def test_every_mutant_is_in_exactly_one_list() -> None:
    assert set(QUICK + SLOWER) == set(BY_NAME)
    assert len(set(QUICK + SLOWER)) == len(QUICK + SLOWER)
    assert set(OWN_SCOPE) <= set(BY_NAME)


def test_the_model_conforms_to_itself_over_a_whole_scope() -> None:
    checker = Checker(InProcessAdapter(ModelHandler().handle), PROFILES["full"])
    result = explore(Scope(1, 2), against=checker)
    assert result.counterexample is None
    assert result.complete
    assert checker.sent > result.transitions  # every transition was sent, with the commands before it


@pytest.mark.parametrize("mutant", [pytest.param(m, id=m.name, marks=pytest.mark.rule(m.rule))
                                    for m in MUTANTS if m.name in CAUGHT])
def test_exhaustive_conformance_catches_the_mutant_with_a_shortest_case(mutant: Mutant) -> None:
    name = mutant.name
    adapter = InProcessAdapter(handler(name).handle, name=name)
    scope = OWN_SCOPE.get(name, SCOPE)
    result = explore(scope, against=Checker(adapter, PROFILES["full"]))
    found = result.counterexample
    assert found is not None, f"{name}: {scope.describe()} explored with no disagreement"
    assert found.problem.invariant == CONFORMS or found.problem.rule, found.problem.render()
    assert len(found.commands) == result.depth  # breadth first: no shorter explored sequence disagrees
    case = counterexample_case(result)
    assert _passes(case, InProcessAdapter(ModelHandler().handle))
    assert not _passes(case, InProcessAdapter(handler(name).handle, name=name))


def _explore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "loopspec", "explore", *args], capture_output=True, text=True,
                          timeout=600, check=False, cwd=ROOT)


def test_the_cli_compares_an_adapter_and_writes_the_shortest_case(tmp_path: Path) -> None:
    out = tmp_path / "case.json"
    mutant = [sys.executable, str(ROOT / "tests" / "vectors" / "mutants" / "run.py"), "seq-from-one"]
    failed = _explore("--ids", "1", "--depth", "2", "--counterexample", str(out), "--", *mutant)
    assert failed.returncode == 1, failed.stderr
    assert CONFORMS in failed.stdout
    assert "shortest counterexample (1 command(s))" in failed.stdout
    assert out.is_file()
    passed = _explore("--ids", "1", "--depth", "1", "--", sys.executable, "-m", "loopspec", "adapter")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "each answered as the model answers it" in passed.stdout


@pytest.mark.parametrize("extra", [["--scope", "dev", "--write-doc"], ["--witnesses", "w"]])
def test_the_cli_refuses_options_an_adapter_run_cannot_honour(extra: list[str]) -> None:
    result = _explore(*extra, "--", sys.executable, "-m", "loopspec", "adapter")
    assert result.returncode == 2
    assert "an adapter is explored without --witnesses or the document options" in result.stderr
    assert "Traceback" not in result.stderr
