"""JSON encoding of the model's commands (``spec/command-language.md``), and its inverse.

:func:`encode_command` and :func:`decode_command` are inverse on every command value: decoding an
encoding gives an equal command, with JavaScript numbers identical down to the sign of zero
(NORM-5 depends on ``-0``, which JSON cannot write, hence the four special strings).  Decoding
(:mod:`loopspec.vectors.command_decoding`) is strict — closed objects, exact types — and raises
:class:`CodecError` naming the defect, so a typo in a vector never silently becomes a default.
"""

from __future__ import annotations

import attrs

from loopspec.data.json_value import thaw
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.commands import Advance, Stopping
from loopspec.vectors.command_decoding import ALIASES, STEP_FIELDS, decode_command
from loopspec.vectors.json_reading import CodecError, Json, encode_messages, encode_number
from loopspec.vectors.reference_model import Claim, VectorCommand

__all__ = ["CodecError", "decode_command", "encode_command"]


def encode_command(c: VectorCommand) -> Json:
    """The JSON form of one command (aliases for sends that have one)."""
    if isinstance(c, Claim):
        return {"op": "claim", "target": c.target.value, "turn": c.turn}
    if isinstance(c, Stopping):
        inner = encode_command(c.command)
        assert isinstance(inner, dict)
        return {**inner, "stop": c.hop}
    if isinstance(c, Advance):
        return {"op": "advance"} if c.stop is None else {"op": "advance", "stop": c.stop}
    if isinstance(c, cmd.Append | cmd.Prepend):
        return {"op": "append" if isinstance(c, cmd.Append) else "prepend", "target": c.target.value,
                "message": c.message.to_json()}
    if isinstance(c, cmd.Splice):
        return {"op": "splice", "target": c.target.value, "start": encode_number(c.start),
                "deleteCount": encode_number(c.delete_count), "inserted": encode_messages(c.inserted)}
    if isinstance(c, cmd.Replace):
        return {"op": "replace", "id": c.message_id.value, "message": c.message.to_json()}
    if isinstance(c, cmd.Remove):
        return {"op": "remove", "id": c.message_id.value}
    if isinstance(c, cmd.Clear):
        return {"op": "clear"}
    if isinstance(c, cmd.Send):
        for alias, (target, wake) in ALIASES.items():
            if (c.target, c.wake) == (target, wake):
                return {"op": alias, "message": c.message.to_json()}
        return {"op": "send", "message": c.message.to_json(), "target": c.target.value, "wake": c.wake}
    if isinstance(c, cmd.Cancel):
        return {"op": "cancel", "cause": thaw(c.cause), "keepInbox": c.keep_inbox}
    if isinstance(c, cmd.Decide):
        return {"op": "decide", "listeners": [encode_listener(x) for x in c.listeners]}
    if isinstance(c, cmd.StepResult):
        # Every field, a kind's own or the default where it has none: the wire form is one shape.
        fields = {**STEP_FIELDS, **attrs.asdict(c, recurse=False)}
        return {"op": "step-result", "kind": c.kind, **fields, "context": encode_messages(fields["context"])}
    if isinstance(c, cmd.TurnStopping):
        return {"op": "turn-stopping", "actions": [encode_command(a) for a in c.actions], "raises": c.raises}
    assert isinstance(c, cmd.Restart)
    return {"op": "restart"}



def encode_decision(d: ls.PreStepDecision) -> Json:
    if isinstance(d, ls.Reject):
        return {"kind": "reject"}
    return {"kind": "enter", "messages": encode_messages(d.messages)}



def encode_transform(t: ls.Transform) -> Json:
    if isinstance(t, ls.Keep):
        return {"kind": "keep"}
    if isinstance(t, ls.Replace):
        return {"kind": "replace", "decision": encode_decision(t.decision)}
    if isinstance(t, ls.Drop):
        return {"kind": "drop", "ids": [i.value for i in t.ids]}
    return {"kind": "add", "messages": encode_messages(t.messages)}



def encode_when(when: ls.When) -> Json:
    return {k: v for k, v in (("turn", when.turn), ("step", when.step)) if v is not None}


def encode_listener(x: ls.Listener) -> Json:
    """A listener as the command language writes it; fields at their defaults are left out
    (``when`` matching every payload, empty conditional actions) so older vectors stay valid."""
    before = [encode_command(a) for a in x.before]
    out: Json
    if isinstance(x, ls.Wrap):
        out = {"kind": "wrap", "transform": encode_transform(x.transform), "before": before,
               "after": [encode_command(a) for a in x.after]}
        for key, actions in (("afterEnter", x.after_enter), ("afterReject", x.after_reject)):
            if actions:
                out[key] = [encode_command(a) for a in actions]
    elif isinstance(x, ls.Veto):
        out = {"kind": "veto", "decision": encode_decision(x.decision), "before": before}
    else:
        out = {"kind": "throw", "message": x.message, "before": before}
    if x.when != ls.ALWAYS:
        out["when"] = encode_when(x.when)
    return out
