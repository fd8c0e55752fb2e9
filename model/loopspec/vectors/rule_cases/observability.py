"""Which rules the adapter protocol cannot show broken, and why; which need protocol v2 to be seen.

The suite's manifest counts every rule of the catalogue: a rule is *covered* by the hand-written
cases that carry its ID, or listed here with the reason no case can fail when only it is broken.
``tests/vectors/test_mutants.py`` proves the covered ones with deliberately wrong implementations.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_FOREIGN_READS = (
    "a rule for reading logs other writers produced: an adapter only ever folds the records its own writer "
    "wrote, which the writer-side rules (NORM-4, SPLICE-3 … SPLICE-6, DATA-2) already pin in every case"
)
_NO_MODEL_SIDE_EVENTS = (
    "the command language has no model-side events (assistant, tool, request): an adapter never writes them, "
    "so only logs of real runs, read by `loopspec check`, can break this rule"
)

NOT_OBSERVABLE: Mapping[str, str] = MappingProxyType({
    "CLAIM-7": "a rule about what an implementation offers publicly: the protocol sends only public commands "
               "(the inbox profile's claim is an adapter's door to the private one), so no answer can show a claim "
               "offered elsewhere; a claim written outside a boundary shows in the log as CLAIM-3",
    "FOLD-1": _FOREIGN_READS,
    "FOLD-2": _FOREIGN_READS,
    "FOLD-3": _FOREIGN_READS,
    "LOG-3": _NO_MODEL_SIDE_EVENTS,
    "LOG-4": _NO_MODEL_SIDE_EVENTS,
    "LOG-12": "it judges surface replacements and the surfaceOp of model-side events: the command language has "
              "no plugin append that could write a replacement and no model-side events, so only logs of real "
              "runs, read by `loopspec check`, can break this rule",
    "LOG-13": "it judges how a live recording's calls, listener windows and notifications nest, and the adapter "
              "protocol carries no live stream: each command is answered whole, so no answer can misplace a "
              "listener's return; only recordings, read by `loopspec check --live` and `reproduce`, can break it",
    "LOG-5": "a rule for readers of logs and live streams (the checker must consume all of them), not for the "
             "writer an adapter is",
    "LOG-6": "the command language cannot put a foreign event into an adapter's log, so there is nothing to "
             "pass through",
    "RESULT-6": "it judges a step by its text answer (an assistant/message calling no tool), which the command "
                "language never writes: the model's step results write tool calls only",
    "RESULT-7": "a step closes with a call still open only when it was aborted or failed, and what may follow "
                "then is already pinned by CANCEL-3 and RESULT-3 (the turn ends at once); no command sequence "
                "breaks RESULT-7 alone",
    "VARIANT-1": "it permits a placement (system/message before user/message, none after an abort during "
                 "request preparation) that the command language cannot produce; the placement it can "
                 "produce is STEP-3's and DECIDE-8's",
})
"""Rule ID -> why no vector case can fail when only that rule is broken."""

AWAITING_V2: Mapping[str, str] = MappingProxyType({
    "NOTIFY-4": "the interleaving of a clear's records and notifications shows only in protocol v2's nextSeq",
    "REPAIR-3": "closer times are compared only from protocol v2 on",
})
"""Covered rules whose cases can fail on their violation only once observations carry order and times."""
