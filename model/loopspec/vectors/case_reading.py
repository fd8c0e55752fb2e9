"""Reading a vector case file strictly: the shape ``spec/schemas/vector.schema.json`` gives it.

``loopspec vectors run`` reads case files a conformance user may have edited, copied or
produced with an older tool.  Before a case is run its whole shape is checked, so that a
malformed file is reported as such — the file, the JSON path of the offending value and what is
wrong (``$.steps[2].expect.events[0]: 'seq' must be ...``) — instead of failing deep in a
comparison with a traceback, or running with a default standing in for a typo.

The format is a table of :mod:`loopspec.check.json_shape` shapes, next to the decoders the
command language already has (commands, messages) and the log checker's envelope check.
``tests/specdoc/test_schema_decoders.py`` proves :func:`read_case` and the schema agree.
"""

from __future__ import annotations

from loopspec.check.json_shape import (
    BOOLEAN,
    MESSAGES,
    NON_NEGATIVE,
    STRING,
    STRINGS,
    array,
    closed,
    either,
    matching,
    one_of,
    open_object,
)
from loopspec.check.machine import envelope_problem
from loopspec.log.kinds import AGENT_ERROR, AGENT_STATUS, CLAIMED, DISCARDED, INSERTED
from loopspec.loop.phase_names import HOPS, PHASES
from loopspec.rules.catalogue import RULE_ID_PATTERN
from loopspec.vectors.case import CASE_FORMAT
from loopspec.vectors.codec import decode_command
from loopspec.vectors.json_reading import CodecError, Json

RULE_ID = matching(f"^{RULE_ID_PATTERN}$")
NOTIFICATION_TYPES = (INSERTED, DISCARDED, CLAIMED, AGENT_STATUS,
                      AGENT_ERROR)


def command(raw: object, where: str) -> str | None:
    try:
        decode_command(raw, where)
    except CodecError as err:
        return str(err)
    return None


def event(raw: object, where: str) -> str | None:
    """A durable event envelope, judged as the log checker judges one (LOG-1)."""
    problem = envelope_problem(raw)
    return None if problem is None else f"{where}: {problem}"


# spec/schemas/command.schema.json: $defs observation, notification and state; its numbers have
# no upper bound there, so neither do they here.
NOTIFICATION = open_object({"type": one_of(*NOTIFICATION_TYPES), "nextSeq": NON_NEGATIVE})
ACCEPTED = closed({"ok": one_of(True), "events": array(event), "notifications": array(NOTIFICATION),
                   "value": either("null, a boolean or messages", one_of(None), BOOLEAN, MESSAGES)})
REFUSED = closed({"ok": one_of(False), "code": RULE_ID, "message": STRING})
OBSERVATION = either("an observation ({ok: true, events, notifications, value} or {ok: false, code, message})",
                     ACCEPTED, REFUSED)
INBOX = closed({"next-turn": MESSAGES, "next-step": MESSAGES})
STATE = either("a state ({inbox, phase, status, lastTurn} or {inbox})",
               closed({"inbox": INBOX, "phase": one_of(*PHASES, *HOPS),
                       "status": one_of("idle", "running"), "lastTurn": NON_NEGATIVE}),
               closed({"inbox": INBOX}))
STEP = closed({"command": command, "expect": OBSERVATION}, {"rows": STRINGS})
CASE = closed({
    "format": one_of(CASE_FORMAT),
    "id": matching("^[a-z0-9-]+/[a-z0-9-]+/[a-z0-9-]+$"),
    "kind": one_of("rule", "row", "walk", "pair", "regression"),
    "rules": array(RULE_ID),
    "rows": array(matching("^[a-z-]+/[a-z-]+/[a-z-]+$")),
    "negative": BOOLEAN,
    "profiles": array(one_of("inbox", "loop", "full"), min_items=1, unique=True),
    "description": STRING,
    "steps": array(STEP, min_items=1),
    "final": STATE,
})


def read_case(raw: object) -> Json:
    """``raw`` as a vector case, or :class:`CodecError` naming the first value that is not as
    ``vector.schema.json`` says (``$`` is the case's root)."""
    problem = CASE(raw, "$")
    if problem is not None:
        raise CodecError(problem)
    assert isinstance(raw, dict)
    return raw
