"""The kinds of reason a ``turn/end`` gives, spelled once (END-1, REPAIR-1, VARIANT-2).

The model writes them (:mod:`loopspec.loop.records`), the checker, the judge and the pictures read
them; every module names a reason kind through these constants.
"""

from __future__ import annotations

# END-1: the reasons the released loop writes.
COMPLETED = "completed"
MAX_TOKENS = "max-tokens"
BLOCKED = "blocked"
ABORTED = "aborted"
ERROR = "error"
# REPAIR-1: crash repair's reason for a turn a killed process left open; v0.1.7's fork cut.
INTERRUPTED = "interrupted"
FORKED = "forked"

# Tuples, not sets: readers test a log's raw ``reason.kind`` against them, and a JSON list or object
# there must read as "not one of these", never raise (a set hashes its probe: TypeError).
# A turn that ran to its answer (the only ends after which a queued follow-up chains, CHAIN-1).
NORMAL_ENDS = (COMPLETED, MAX_TOKENS)
# The ends the next process writes for the last one, not the loop that ran the turn.
REPAIR_ENDS = (INTERRUPTED, FORKED)
END_KINDS = (COMPLETED, MAX_TOKENS, BLOCKED, ABORTED, ERROR, *REPAIR_ENDS)
