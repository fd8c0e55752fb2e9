"""What the conformance searches' tests share: which scope catches each mutant, the command line, a case's verdict.

Exhaustive conformance (``test_conformance.py``) and the tour (``test_tour.py``) both explore a
mutant's scope against it and must find a disagreement: :data:`SCOPE` unless :data:`OWN_SCOPE`
names a larger or narrower one.  ``ci`` runs :data:`QUICK`, ``thorough`` :data:`SLOWER` too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from explore.profile_scope import PROFILE
from loopspec.statespace.scope import CANCELS, DECISIONS, HOP_STOPS, KINDS, RESULTS, SENDS, STOPPING_ANSWERS, Scope
from loopspec.vectors.adapter.client import InProcessAdapter
from loopspec.vectors.run_report import PASS
from loopspec.vectors.runner import run_case

ROOT = Path(__file__).resolve().parents[2]

SCOPE = Scope(1, 3)
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
    # Every family but the hops: a tour sends one member of each class of listener chains, in turn,
    # and with the hops' classes in the rotation the member that shows this bug comes at another state.
    "transforms-outermost-first": Scope(1, 3, tuple(k for k in KINDS if k != HOP_STOPS)),
    # The same for a replacement of a missing id since a clear stops between its lists (G23): with
    # those stops in the rotation no walk of this scope sends it where the id is missing (depth 4 does).
    "replace-missing-upserts": Scope(1, 3, tuple(k for k in KINDS if k != HOP_STOPS)),
    # A call at a hop: a throwing listener's turn stopped at failing, a cancel there, the loop going on.
    "failure-ends-aborted-after-a-cancel": Scope(1, 4, (SENDS, CANCELS, DECISIONS, HOP_STOPS)),
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
    "failure-ends-aborted-after-a-cancel",
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


def passes(case: dict[str, object], adapter: InProcessAdapter) -> bool:
    """The case as ``loopspec vectors run`` runs it: every answer, the final state and the log audit."""
    return run_case(adapter, str(case["id"]), case).status == PASS


def explore_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``loopspec explore`` as a user runs it, from the checkout."""
    return subprocess.run([sys.executable, "-m", "loopspec", "explore", *args], capture_output=True, text=True,
                          timeout=600, check=False, cwd=ROOT)
