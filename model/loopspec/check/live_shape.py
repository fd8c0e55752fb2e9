"""The shape of one live-stream record (``spec/schemas/live-record.schema.json``), as a table.

``loopspec check --live`` reads a stream a conformance user recorded from their implementation;
before the live checker reasons about a record (:mod:`loopspec.check.live`), the record must be
one the format describes (examples/recordings/README.md): a ``durable`` marker, a ``live``
notification or an observation of a listener hook (pre-step, turn-stopping), an
``op-begin``/``op-end`` of the scenario's calls (``within`` names the listener a call was made
from), or a ``note``.  A record of another kind, a missing or mistyped field or an unknown one is reported
(:func:`live_record_problem`) instead of being skipped or half-read.

Each problem carries the rule that judges the field: unknown fields of an inbox notification are
NOTIFY-1's (inbox notifications carry only the message, and claimed its turn); an inbox
notification's message is compared with the durable record's (NOTIFY-2; claimed: CLAIM-4, also for
its turn); a status value is STATUS-1's; everything else about the record's form is LOG-1's.  The
live checker reports LOG-1 problems here and leaves the others to the checks that own them, which
report them with the context (what was expected) a shape alone cannot give.

An ``agent/error``'s ``error`` is the error's text in a recording and the notification's
``{message, code}`` in a stream built from an adapter's observations (decisions.md G4); both are
accepted.  ``tests/specdoc/test_schema_decoders.py`` proves the table and the schema agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from loopspec.check.json_shape import (
    BOOLEAN,
    NON_NEGATIVE,
    OBJECT,
    POSITIVE,
    STRING,
    STRINGS,
    Shape,
    anything,
    closed,
    either,
    one_of,
    open_object,
    user_message,
)
from loopspec.log.kinds import (
    AGENT_ERROR,
    AGENT_STATUS,
    CLAIMED,
    DISCARDED,
    INSERTED,
    PRE_STEP_HOOK,
    TURN_STOPPING_HOOK,
)

FORM = "LOG-1"


@attrs.frozen
class LiveShapeProblem:
    rule: str
    message: str


@attrs.frozen
class Fields:
    """The fields of one record form: required and optional, each a shape; ``rules`` names the
    rule judging a field when it is not LOG-1; ``unknown_rule`` judges fields the form lacks."""

    required: Mapping[str, Shape]
    optional: Mapping[str, Shape] = MappingProxyType({})
    rules: Mapping[str, str] = MappingProxyType({})
    unknown_rule: str = FORM
    one_required: tuple[str, ...] = ()


_ANY_KIND = MappingProxyType({"kind": anything})
_LIVE = MappingProxyType({"kind": anything, "type": anything, "nextSeq": NON_NEGATIVE})
_FAILURE = open_object({"message": STRING}, {"code": STRING})  # defs.schema.json failure: open
_DECISION = either("a decision ({kind: reject} or {kind: enter, messageIds})",
                   closed({"kind": one_of("reject")}), closed({"kind": one_of("enter"), "messageIds": STRINGS}))
_PRE_STEP = MappingProxyType({**_LIVE, "phase": anything, "turn": POSITIVE, "step": POSITIVE})
_TURN_STOPPING = MappingProxyType({**_LIVE, "phase": anything, "turn": POSITIVE})
# The listeners a call can be made from (decisions.md E5): the hooks whose windows the stream records.
LISTENER_HOOKS = (PRE_STEP_HOOK, TURN_STOPPING_HOOK)
# The notifications whose listeners' calls the stream records, nested in the notification (E5).
NOTIFYING = (AGENT_STATUS, CLAIMED, INSERTED, DISCARDED, AGENT_ERROR)
_WITHIN = MappingProxyType({"within": one_of(*LISTENER_HOOKS, *NOTIFYING)})


def _inbox(rule: str, extra: Mapping[str, Shape] = MappingProxyType({})) -> Fields:
    """An inbox notification: its message (and claimed's turn) are compared with what the durable
    record says by ``rule``, which therefore also judges their form."""
    fields = MappingProxyType({**_LIVE, "message": user_message, **extra})
    return Fields(fields, rules=MappingProxyType(dict.fromkeys(("message", *extra), rule)), unknown_rule="NOTIFY-1")


# One entry per `live` type; `agent/pre-step` is split by phase (each phase has its own fields).
LIVE_TYPES: Mapping[str, Fields] = MappingProxyType({
    INSERTED: _inbox("NOTIFY-2"),
    DISCARDED: _inbox("NOTIFY-2"),
    CLAIMED: _inbox("CLAIM-4", {"turn": POSITIVE}),
    AGENT_STATUS: Fields(MappingProxyType({**_LIVE, "status": one_of("idle", "running")}),
                           rules=MappingProxyType({"status": "STATUS-1"})),
    AGENT_ERROR: Fields(MappingProxyType({**_LIVE, "turn": POSITIVE, "step": NON_NEGATIVE,
                                            "error": either("the error's text or {message, code}", STRING, _FAILURE)})),
})
PRE_STEP_PHASES: Mapping[str, Fields] = MappingProxyType({
    "invoked": Fields(MappingProxyType({**_PRE_STEP, "messageIds": STRINGS})),
    "decided": Fields(MappingProxyType({**_PRE_STEP, "decision": _DECISION})),
    "threw": Fields(MappingProxyType({**_PRE_STEP, "error": STRING})),
})
TURN_STOPPING_PHASES: Mapping[str, Fields] = MappingProxyType({
    "invoked": Fields(_TURN_STOPPING),
    "returned": Fields(_TURN_STOPPING),
    "threw": Fields(MappingProxyType({**_TURN_STOPPING, "error": STRING})),
})
# The observed listener hooks, each split by phase (each phase has its own fields).
LISTENER_PHASES: Mapping[str, Mapping[str, Fields]] = MappingProxyType({
    PRE_STEP_HOOK: PRE_STEP_PHASES, TURN_STOPPING_HOOK: TURN_STOPPING_PHASES,
})
KINDS: Mapping[str, Fields] = MappingProxyType({
    "durable": Fields(MappingProxyType({**_ANY_KIND, "seq": NON_NEGATIVE, "type": STRING})),
    "op-begin": Fields(MappingProxyType({**_ANY_KIND, "op": STRING, "args": OBJECT, "nextSeq": NON_NEGATIVE}),
                       _WITHIN),
    "op-end": Fields(MappingProxyType({**_ANY_KIND, "op": STRING, "args": OBJECT, "nextSeqBefore": NON_NEGATIVE,
                                       "nextSeqAfter": NON_NEGATIVE}),
                     MappingProxyType({"result": anything, "threw": STRING, **_WITHIN}),
                     one_required=("result", "threw")),
    "note": Fields(MappingProxyType({**_ANY_KIND, "text": STRING}), MappingProxyType({
        "nextSeq": NON_NEGATIVE, "nextTurn": STRINGS, "nextStep": STRINGS,
        "status": one_of("idle", "running"), "eventCount": NON_NEGATIVE, "crash": BOOLEAN})),
})


def _fields_of(rec: dict[str, object]) -> Fields | LiveShapeProblem:
    """The form ``rec`` claims to have (by ``kind``, then ``type``, then ``phase``)."""
    kind = rec.get("kind")
    if kind != "live":
        found = KINDS.get(kind) if isinstance(kind, str) else None
        return found or LiveShapeProblem(FORM, f"unknown record kind {kind!r} (known: live, {', '.join(KINDS)})")
    rtype = rec.get("type")
    phases = LISTENER_PHASES.get(rtype) if isinstance(rtype, str) else None
    if phases is not None:
        phase = rec.get("phase")
        found = phases.get(phase) if isinstance(phase, str) else None
        return found or LiveShapeProblem(FORM, f"unknown {rtype} phase {phase!r} (known: {', '.join(phases)})")
    found = LIVE_TYPES.get(rtype) if isinstance(rtype, str) else None
    return found or LiveShapeProblem(FORM, f"unknown live record type {rtype!r} "
                                           f"(known: {', '.join((*LIVE_TYPES, *LISTENER_PHASES))})")


def _problems(rec: dict[str, object], form: Fields) -> list[LiveShapeProblem]:
    out = [LiveShapeProblem(FORM, f"'{k}' is missing") for k in form.required if k not in rec]
    present = [k for k in form.one_required if k in rec]
    if form.one_required and len(present) != 1:
        out.append(LiveShapeProblem(FORM, f"needs exactly one of {list(form.one_required)}, has {present}"))
    unknown = sorted(set(rec) - set(form.required) - set(form.optional), key=str)
    if unknown:
        out.append(LiveShapeProblem(form.unknown_rule, f"unknown field(s) {unknown}"))
    shapes = {**form.required, **form.optional}
    for key, shape in shapes.items():
        problem = shape(rec[key], f"'{key}'") if key in rec else None
        if problem is not None:
            out.append(LiveShapeProblem(form.rules.get(key, FORM), problem))
    return out


def live_record_problem(rec: object) -> LiveShapeProblem | None:
    """What is wrong with the form of one live record, a LOG-1 problem before any other; None if nothing."""
    if not isinstance(rec, dict):
        return LiveShapeProblem(FORM, f"a {type(rec).__name__}, not an object")
    form = _fields_of(rec)
    if isinstance(form, LiveShapeProblem):
        return form
    problems = _problems(rec, form)
    return next((p for p in problems if p.rule == FORM), problems[0] if problems else None)
