"""Strict decoding of the command language (spec/command-language.md) into plain Python values.

Objects are closed, every field has its exact type, and js-numbers keep NaN, the infinities and
-0 (as floats).  Anything malformed raises BadRequest; nothing becomes a silent default.
A decoded command is a dict with "op" and its fields, defaults filled in; aliases of send are
turned into send.
"""

from __future__ import annotations

import math

TARGETS = ("next-turn", "next-step")
SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}
STEP_KINDS = ("stop", "max-tokens", "tool-calls", "tool-call", "tool-start", "tool-result", "request-error", "fail")
ALIASES = {"followup": ("next-turn", True), "steer": ("next-step", True), "inject": ("next-step", False)}
MAX_SAFE = 2**53 - 1


class BadRequest(Exception):
    """The request or command does not decode (the protocol's bad-request)."""


def fields(raw: object, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(raw, dict):
        raise BadRequest(f"{where}: expected an object")
    unknown = sorted(set(raw) - set(required) - set(optional))
    if unknown:
        raise BadRequest(f"{where}: unknown key(s) {unknown}")
    missing = [k for k in required if k not in raw]
    if missing:
        raise BadRequest(f"{where}: missing key(s) {missing}")
    return raw


def text(raw: object, where: str) -> str:
    if not isinstance(raw, str):
        raise BadRequest(f"{where}: expected a string")
    return raw


def flag(raw: object, where: str) -> bool:
    if not isinstance(raw, bool):
        raise BadRequest(f"{where}: expected a boolean")
    return raw


def target(raw: object, where: str) -> str:
    if raw not in TARGETS:
        raise BadRequest(f"{where}: a target is next-turn or next-step, got {raw!r}")
    return str(raw)


def js_number(raw: object, where: str) -> float | int:
    if isinstance(raw, str) and raw in SPECIAL:
        return SPECIAL[raw]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise BadRequest(f"{where}: not a js-number: {raw!r}")
    return raw


def message(raw: object, where: str) -> dict:
    """A UserMessage (DATA-2): string id, role user, array content, object source; other keys kept."""
    if not isinstance(raw, dict):
        raise BadRequest(f"{where}: a message is an object")
    if not isinstance(raw.get("id"), str) or raw.get("role") != "user":
        raise BadRequest(f"{where}: a message needs a string id and role 'user'")
    if not isinstance(raw.get("content"), list) or not isinstance(raw.get("source"), dict):
        raise BadRequest(f"{where}: a message needs an array content and an object source")
    return raw


def messages(raw: object, where: str) -> list[dict]:
    if not isinstance(raw, list):
        raise BadRequest(f"{where}: expected an array of messages")
    return [message(m, f"{where}[{i}]") for i, m in enumerate(raw)]


def listify(raw: object, where: str) -> list:
    if not isinstance(raw, list):
        raise BadRequest(f"{where}: expected an array")
    return raw


def cancel_cause(raw: object, where: str) -> object:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise BadRequest(f"{where}: a cancel cause is an object with a string kind")
    return raw


def action(raw: object, where: str) -> dict:
    """An edit, a send (or alias) or a cancel: what a listener may do (command-language.md, Actions)."""
    op = raw.get("op") if isinstance(raw, dict) else None
    if op in ("append", "prepend"):
        o = fields(raw, where, ("op", "target", "message"))
        return {"op": op, "target": target(o["target"], where), "message": message(o["message"], where)}
    if op == "splice":
        o = fields(raw, where, ("op", "target", "start", "deleteCount"), ("inserted",))
        return {"op": "splice", "target": target(o["target"], where), "start": js_number(o["start"], where),
                "deleteCount": js_number(o["deleteCount"], where),
                "inserted": messages(o.get("inserted", []), f"{where}.inserted")}
    if op == "replace":
        o = fields(raw, where, ("op", "id", "message"))
        return {"op": "replace", "id": text(o["id"], where), "message": message(o["message"], where)}
    if op == "remove":
        o = fields(raw, where, ("op", "id"))
        return {"op": "remove", "id": text(o["id"], where)}
    if op == "clear":
        fields(raw, where, ("op",))
        return {"op": "clear"}
    if op in ALIASES:
        o = fields(raw, where, ("op", "message"))
        lane, wake = ALIASES[op]
        return {"op": "send", "message": message(o["message"], where), "target": lane, "wake": wake}
    if op == "send":
        o = fields(raw, where, ("op", "message", "target", "wake"))
        return {"op": "send", "message": message(o["message"], where), "target": target(o["target"], where),
                "wake": flag(o["wake"], where)}
    if op == "cancel":
        o = fields(raw, where, ("op",), ("cause", "keepInbox"))
        return {"op": "cancel", "cause": cancel_cause(o.get("cause", {"kind": "user"}), f"{where}.cause"),
                "keepInbox": flag(o.get("keepInbox", False), where)}
    raise BadRequest(f"{where}: not an action: op {op!r}")


def actions(raw: object, where: str) -> list[dict]:
    return [action(a, f"{where}[{i}]") for i, a in enumerate(listify(raw, where))]


def decision(raw: object, where: str) -> dict:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "reject":
        fields(raw, where, ("kind",))
        return {"kind": "reject"}
    if kind == "enter":
        o = fields(raw, where, ("kind", "messages"))
        return {"kind": "enter", "messages": messages(o["messages"], f"{where}.messages")}
    raise BadRequest(f"{where}: a decision is reject or enter")


def transform(raw: object, where: str) -> dict:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "keep":
        fields(raw, where, ("kind",))
        return {"kind": "keep"}
    if kind == "replace":
        return {"kind": "replace", "decision": decision(fields(raw, where, ("kind", "decision"))["decision"], where)}
    if kind == "drop":
        ids = listify(fields(raw, where, ("kind", "ids"))["ids"], where)
        return {"kind": "drop", "ids": [text(i, f"{where}.ids") for i in ids]}
    if kind == "add":
        return {"kind": "add", "messages": messages(fields(raw, where, ("kind", "messages"))["messages"], where)}
    raise BadRequest(f"{where}: unknown transform {kind!r}")


def when(raw: object, where: str) -> dict:
    """`when {turn?, step?}`: the pre-step payloads a listener acts on (positive integers)."""
    o = fields(raw, where, (), ("turn", "step"))
    for key in ("turn", "step"):
        value = o.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise BadRequest(f"{where}.{key}: a positive integer, got {value!r}")
    return {"turn": o.get("turn"), "step": o.get("step")}


def listener(raw: object, where: str) -> dict:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if kind == "wrap":
        o = fields(raw, where, ("kind",), ("transform", "before", "after", "afterEnter", "afterReject", "when"))
        out = {"kind": "wrap", "transform": transform(o.get("transform", {"kind": "keep"}), f"{where}.transform")}
        for key in ("before", "after", "afterEnter", "afterReject"):
            out[key] = actions(o.get(key, []), f"{where}.{key}")
    elif kind == "veto":
        o = fields(raw, where, ("kind", "decision"), ("before", "when"))
        out = {"kind": "veto", "decision": decision(o["decision"], where),
               "before": actions(o.get("before", []), f"{where}.before")}
    elif kind == "throw":
        o = fields(raw, where, ("kind", "message"), ("before", "when"))
        out = {"kind": "throw", "message": text(o["message"], where),
               "before": actions(o.get("before", []), f"{where}.before")}
    else:
        raise BadRequest(f"{where}: unknown listener {kind!r}")
    out["when"] = when(o.get("when", {}), f"{where}.when")
    return out


# The hops (spec/loop-grain.md): where a command with "stop" leaves the loop, and where "advance"
# goes on from.  The last two lie inside a clear or a cancel rather than in the loop (row 22).
HOPS = ("decided", "decision-returned", "failing", "chaining", "ending", "starting", "waking",
        "prompting", "replaying", "clearing", "canceling")


def hop(raw: object, where: str) -> str:
    if raw not in HOPS:
        raise BadRequest(f"{where}: one of the hops {HOPS}, got {raw!r}")
    return str(raw)


def command(raw: object) -> dict:
    """One command of any profile, with its "stop" (a hop, or None when it runs on as usual).

    "stop" belongs to the command itself, never to an action inside a listener: those are decoded
    as closed objects without it.
    """
    if isinstance(raw, dict) and raw.get("op") == "advance":
        o = fields(raw, "advance", ("op",), ("stop",))
        return {"op": "advance", "stop": hop(o["stop"], "advance.stop") if "stop" in o else None}
    if not isinstance(raw, dict) or "stop" not in raw:
        return {**bare_command(raw), "stop": None}
    if raw.get("op") == "claim":
        raise BadRequest("claim.stop: claim is the inbox profile's, which has no loop to stop")
    stop = hop(raw["stop"], f"{raw.get('op')}.stop")
    return {**bare_command({k: v for k, v in raw.items() if k != "stop"}), "stop": stop}


def bare_command(raw: object) -> dict:
    op = raw.get("op") if isinstance(raw, dict) else None
    if op == "decide":
        o = fields(raw, "decide", ("op",), ("listeners",))
        return {"op": "decide", "listeners": [listener(x, f"decide.listeners[{i}]")
                                              for i, x in enumerate(listify(o.get("listeners", []), "decide"))]}
    if op == "step-result":
        return step_result(raw)
    if op == "turn-stopping":
        o = fields(raw, "turn-stopping", ("op",), ("actions", "raises"))
        raises = o.get("raises")
        return {"op": "turn-stopping", "actions": actions(o.get("actions", []), "turn-stopping.actions"),
                "raises": None if raises is None else text(raises, "turn-stopping.raises")}
    if op == "restart":
        fields(raw, "restart", ("op",))
        return {"op": "restart"}
    if op == "claim":
        o = fields(raw, "claim", ("op", "target", "turn"))
        turn = o["turn"]
        if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= MAX_SAFE:
            raise BadRequest(f"claim.turn: a positive safe integer, got {turn!r}")
        return {"op": "claim", "target": target(o["target"], "claim"), "turn": turn}
    return action(raw, "command")


def step_result(raw: object) -> dict:
    o = fields(raw, "step-result", ("op", "kind"), ("context", "conclude", "retry", "error", "code", "started"))
    kind = o["kind"]
    if kind not in STEP_KINDS:
        raise BadRequest(f"step-result.kind: one of {STEP_KINDS}, got {kind!r}")
    where = "step-result"
    out = {"op": where, "kind": kind, "context": messages(o.get("context", []), f"{where}.context"),
           "conclude": flag(o.get("conclude", False), where), "retry": flag(o.get("retry", False), where),
           "error": text(o.get("error", "step failed"), where), "code": text(o.get("code", "UNKNOWN"), where),
           "started": flag(o.get("started", True), where)}
    # Each field belongs to one kind of result (command-language.md).
    if (out["context"] or out["conclude"]) and kind != "tool-calls":
        raise BadRequest("step-result: context and conclude belong to a tool-calls result")
    if out["retry"] and kind != "request-error":
        raise BadRequest("step-result: retry belongs to a request-error result")
    if not out["started"] and kind != "tool-call":
        raise BadRequest("step-result: started: false belongs to a tool-call")
    return out


def ops_of(raw: dict) -> set[str]:
    """Every op a raw command uses, nested listener and turn-stopping actions included (for profiles)."""
    ops = {str(raw.get("op"))} | ({"stop"} if "stop" in raw else set())  # stopping needs the loop
    nested = list(raw.get("actions") or []) if isinstance(raw.get("actions"), list) else []
    for x in raw.get("listeners") or [] if isinstance(raw.get("listeners"), list) else []:
        if isinstance(x, dict):
            nested += [a for key in ("before", "after", "afterEnter", "afterReject")
                       if isinstance(x.get(key), list) for a in x[key]]
    for a in nested:
        if isinstance(a, dict):
            ops |= ops_of(a)
    return ops
