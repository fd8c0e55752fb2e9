"""Hand-written conformance cases, one table per group of rules (see :data:`ALL_CASES`).

Every rule a violation of which an adapter's observations can show has at least one case here;
:mod:`.observability` names the rules that cannot be observed through the protocol and why.
"""

from __future__ import annotations

from loopspec.vectors.case import CaseSpec
from loopspec.vectors.rule_cases import (
    cancel,
    claim,
    decide,
    decision,
    hops,
    inbox,
    loop,
    notify,
    records,
    restart,
    splices,
    turns,
)

ALL_CASES: tuple[CaseSpec, ...] = (
    inbox.CASES + splices.CASES + notify.CASES + loop.CASES + decide.CASES + turns.CASES + cancel.CASES
    + restart.CASES + records.CASES + decision.CASES + claim.CASES + hops.CASES
)
