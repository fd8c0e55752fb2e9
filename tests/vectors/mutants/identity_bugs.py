"""Mutants of identity and the reported inbox state (spec area DATA).

Each wraps one function of :mod:`loopspec.inbox.operations`, one lifecycle effect, how an event is
written out or how the state is reported; the originals are captured at import.
"""

from __future__ import annotations

import json

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxState, InboxTarget, MessageId, Messages, UserMessage
from loopspec.inbox import operations as ops
from loopspec.inbox.normalize import JsNumber
from loopspec.log.events import InboxSpliced
from loopspec.log.kinds import SPLICED
from loopspec.loop.effects import EFFECTS
from loopspec.loop.state import Agent
from loopspec.loop.work import Work
from loopspec.vectors.adapter import reference
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import state_of
from vectors.mutants import hallmarks as h
from vectors.mutants.edit_bugs import output_patch
from vectors.mutants.handler import Mutant, Patch, effect_patch
from vectors.mutants.witnesses import splices

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
model_mutate = ops.mutate
model_state_of = state_of
model_insert_redirected = EFFECTS["insert-redirected"]


def _locate_ignoring_case(state: InboxState, message_id: MessageId) -> tuple[InboxTarget, int] | None:
    """Bug: ids are compared case-insensitively, so 'msg' addresses 'Msg' (DATA-1)."""
    wanted = message_id.value.casefold()
    for target in (NT, NS):
        for index, message in enumerate(state.lane(target)):
            if message.id.value.casefold() == wanted:
                return target, index
    return None


def _strip(message: UserMessage) -> UserMessage:
    body = message.to_json()
    return UserMessage.from_json({k: body[k] for k in ("id", "role", "content", "source") if k in body})


def _mutate_drops_unknown_fields(
    state: InboxState, target: InboxTarget, start: JsNumber, delete_count: JsNumber, inserted: Messages,
    *, canceled: bool,
) -> ops.InboxOutcome:
    """Bug: messages are stored as a typed struct that has no room for unknown fields (DATA-2)."""
    return model_mutate(state, target, start, delete_count, tuple(_strip(m) for m in inserted), canceled=canceled)


def _unknown_field_lost(expected: Json, actual: Json) -> bool:
    return json.dumps(expected).count("unknown field") > json.dumps(actual).count("unknown field")


def _camel_case_targets(event: dict[str, object]) -> dict[str, object]:
    """Bug: the target enum is written by its member name in camelCase (DATA-3)."""
    payload = event.get("data")
    if event.get("type") == SPLICED and isinstance(payload, dict):
        names = {"next-turn": "nextTurn", "next-step": "nextStep"}
        event["data"] = {**payload, "target": names.get(str(payload.get("target")), payload.get("target"))}
    return event


def _foreign_target(expected: Json, actual: Json) -> bool:
    return any(s.get("target") not in ("next-turn", "next-step") for s in splices(actual))


def _state_in_insertion_order(agent: Agent) -> Json:
    """Bug: the inbox is a map id -> list, so each list is reported in insertion order (DATA-4)."""
    inserted_at: dict[object, int] = {}
    for event in agent.log.events:
        if event.type == SPLICED:
            for m in InboxSpliced.from_data(event.data).inserted:
                inserted_at[m.id] = event.seq
    out = model_state_of(agent)
    inbox = agent.inbox
    out["inbox"] = {
        lane.value: [m.to_json() for m in sorted(inbox.lane(lane), key=lambda m: inserted_at.get(m.id, -1))]
        for lane in (NT, NS)
    }
    return out


def _lanes_reordered(expected: Json, actual: Json) -> bool:
    return sorted(map(str, h.pending(expected))) == sorted(map(str, h.pending(actual))) and h.pending(
        expected) != h.pending(actual)


def _insert_redirected_unchecked(work: Work, arg: str) -> None:
    """Bug: the after-abort redirect into next-turn skips the walk over next-step (DATA-5)."""
    inbox = work.agent.inbox
    hidden = attrs.evolve(work.agent, inbox=inbox.with_lane(NS, ()))
    real, work.agent = work.agent, hidden
    try:
        model_insert_redirected(work, arg)
    except CommandRefused:
        work.agent = real
        raise
    work.agent = attrs.evolve(work.agent, inbox=work.agent.inbox.with_lane(NS, inbox.next_step))


def _duplicate_accepted(expected: Json, actual: Json) -> bool:
    return (h.refused(expected, "SPLICE-3") and h.accepted(actual)) or h.accepted_instead(expected, actual)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("ids-case-insensitive", "DATA-1", "replace and remove compare ids ignoring case",
           (Patch(ops, "locate", _locate_ignoring_case),),
           lambda e, a: e.get("value") is False and a.get("value") is True),
    Mutant("unknown-fields-dropped", "DATA-2", "messages lose the fields the implementation does not know",
           (Patch(ops, "mutate", _mutate_drops_unknown_fields),), _unknown_field_lost),
    Mutant("target-camel-case", "DATA-3", "records name the target nextTurn / nextStep",
           (output_patch(_camel_case_targets),), _foreign_target),
    Mutant("lanes-in-insertion-order", "DATA-4", "the state lists each inbox list in insertion order",
           (Patch(reference, "state_of", _state_in_insertion_order),), _lanes_reordered),
    Mutant("redirect-skips-duplicate-check", "DATA-5", "a redirected waking send is not checked against next-step",
           (effect_patch({"insert-redirected": _insert_redirected_unchecked}),), _duplicate_accepted),
)
