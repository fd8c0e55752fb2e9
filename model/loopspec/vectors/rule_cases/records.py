"""Hand-written vector cases for the shape of what the loop writes and emits (LOG, END).

The log's envelope and record shapes are compared key by key (only ``time`` is left out), so each
rule has a case whose probe pins the keys it fixes.
"""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.vectors.case import (
    CaseSpec,
    all_of,
    envelope,
    event_data,
    event_keys,
    event_payload,
    event_types,
    note_data,
    note_types,
)
from loopspec.vectors.rule_cases.common import (
    ENTER,
    ERR,
    REJECT,
    SE,
    SPL,
    SS,
    STAT,
    STOP,
    STOPPING,
    TE,
    TS,
    UM,
    case,
    error_reason,
    m,
)

ENVELOPE = ("type", "seq", "time", "data")

CASES: tuple[CaseSpec, ...] = (
    case("log/followup/log-1-envelope", ("LOG-1",),
         "The model's events carry type, seq, time and data; user/message adds surfaceOp; nothing else.",
         (cmd.followup(m("a")), ENTER),
         all_of(event_keys(0, 0, *ENVELOPE), event_keys(0, 1, *ENVELOPE), event_keys(1, 0, *ENVELOPE),
                event_keys(1, 1, *ENVELOPE, "surfaceOp"))),
    case("log/followup/log-2-seq-is-the-index", ("LOG-2",),
         "seq counts the log's events from 0, across commands.",
         (cmd.followup(m("a")), ENTER, STOP),
         all_of(envelope(0, 0, "seq", 0), envelope(0, 2, "seq", 2), envelope(1, 0, "seq", 3),
                envelope(1, 1, "seq", 4), envelope(2, 0, "seq", 5))),
    case("log/decide/log-7-user-message-record", ("LOG-7", "DATA-2"),
         "A user/message event's data is the entered message itself, with surfaceOp append and no "
         "sourceEventSeqs.",
         (cmd.followup(m("a")), ENTER),
         all_of(event_types(1, SS, UM), event_payload(1, 1, m("a").to_json()), envelope(1, 1, "surfaceOp", "append"),
                envelope(1, 1, "sourceEventSeqs", "<absent>"))),
    case("log/turn-stopping/log-8-record-shapes", ("LOG-8",),
         "turn/start is {turn}, step/start and step/end are {turn, step}, turn/end is {turn, reason}.",
         (cmd.followup(m("a")), ENTER, STOP, STOPPING),
         all_of(event_types(0, SPL, TS, SPL), event_payload(0, 1, {"turn": 1}),
                event_payload(1, 0, {"turn": 1, "step": 1}), event_types(2, SE),
                event_payload(2, 0, {"turn": 1, "step": 1}),
                event_types(3, TE), event_payload(3, 0, {"turn": 1, "reason": {"kind": "completed"}}))),
    case("end/step-result/end-1-reason-kinds", ("END-1",),
         "The model's end reasons, spelled as the released loop spells them: max-tokens, then blocked.",
         (cmd.followup(m("a")), ENTER, cmd.MaxTokens(), STOPPING, cmd.followup(m("b")),
          REJECT),
         all_of(event_data(3, 0, "reason", {"kind": "max-tokens"}), event_data(5, 0, "reason", {"kind": "blocked"}))),
    case("end/turn-stopping/end-2-agent-error-first", ("END-2",),
         "A throwing turn-stopping listener: agent/error {turn, step, error} with the last opened step, then "
         "the error end.",
         (cmd.followup(m("a")), ENTER, STOP, cmd.TurnStopping(raises="boom")),
         all_of(event_types(3, TE), event_data(3, 0, "reason", error_reason("boom")), note_types(3, ERR, STAT),
                note_data(3, 0, "step", 1), note_data(3, 0, "turn", 1))),
)
