"""Mutants of the loop's lifecycle (spec areas TURN, DECIDE, CLAIM, CHAIN).

Each swaps one named effect of the model's lifecycle table (:mod:`loopspec.loop.effects`) for a
wrapper around the model's own effect; the table's rows and guards stay the model's.
"""

from __future__ import annotations

import contextlib

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxTarget
from loopspec.inbox import operations as model_inbox
from loopspec.loop import records as rec
from loopspec.loop.effects import EFFECTS
from loopspec.loop.state import RunningTurn
from loopspec.loop.work import Work
from vectors.mutants.handler import Patch, effect_patch

model_end_turn = EFFECTS["end-turn"]
model_claim_turn = EFFECTS["claim-turn"]
model_step_start = EFFECTS["step-start"]
model_step_end = EFFECTS["step-end"]


def _end_turn_requeues_on_reject(work: Work, kind: str) -> None:
    """Bug: a reject gives the claimed batch back to the front of next-turn (CLAIM-5)."""
    batch = work.run.batch
    if kind == "blocked" and batch:
        # An id that is pending again in the meantime cannot be given back; the rest is moot.
        with contextlib.suppress(CommandRefused):
            work.commit(model_inbox.splice(work.agent.inbox, InboxTarget.NEXT_TURN, 0, 0, batch))
    model_end_turn(work, kind)


def _end_turn_opens_step_on_reject(work: Work, kind: str) -> None:
    """Bug: the step is opened before the decision is looked at, so a reject closes one (DECIDE-5)."""
    if kind == "blocked":
        model_step_start(work, "")
        model_step_end(work, "")
    model_end_turn(work, kind)


def _end_turn_chains_blocked(work: Work, kind: str) -> None:
    """Bug: a blocked turn counts as a normal exit, so pending input starts the next turn (CHAIN-2)."""
    model_end_turn(work, kind)
    if kind == "blocked":
        work.run = attrs.evolve(work.run, normal_exit=True)


def _turn_start_unwritten(work: Work, _: str) -> None:
    """Half of the TURN-4 bug: the turn is opened in memory but its record waits for the claim."""
    turn = work.agent.last_turn + 1
    work.agent = attrs.evolve(work.agent, last_turn=turn, running=RunningTurn(turn))


def _claim_then_turn_start(work: Work, arg: str) -> None:
    """Other half: the first boundary's claim is written, then ``turn/start`` (TURN-4)."""
    model_claim_turn(work, arg)
    work.write(rec.turn_start(work.run.turn))


PATCHES: dict[str, Patch] = {
    "reject-requeues-batch": effect_patch({"end-turn": _end_turn_requeues_on_reject}),
    "step-opened-on-reject": effect_patch({"end-turn": _end_turn_opens_step_on_reject}),
    "blocked-turn-chains": effect_patch({"end-turn": _end_turn_chains_blocked}),
    "turn-start-after-claim": effect_patch({"turn-start": _turn_start_unwritten, "claim-turn": _claim_then_turn_start}),
}
"""Patch per mutant name; :mod:`mutants.catalogue` pairs each with its rule and witness."""
