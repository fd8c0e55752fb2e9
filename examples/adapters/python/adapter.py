#!/usr/bin/env python3
"""`loopspec-adapter/2` over stdin/stdout (spec/adapter-protocol.md) for this Python implementation.

    loopspec vectors run SUITE -- python3 examples/adapters/python/adapter.py [--profile full|inbox]
    loopspec drive -- python3 examples/adapters/python/adapter.py

Standard library only; it does not import loopspec.  Profile `full` (the default) is the inbox
and the loop; `--profile inbox` serves the inbox alone, with the `claim` command.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from agent import Agent
from driver import ListenerThrew
from wire import BadRequest, command, ops_of

from inbox import Inbox, Refused, Session

PROTOCOL = "loopspec-adapter/2"
IMPLEMENTATION = "loopspec-python-example 0.2.0"
EDITS = {"append", "prepend", "splice", "replace", "remove", "clear"}
PROFILES = {
    "inbox": EDITS | {"claim"},
    # "stop" is a field, not an op: a command that stops at a hop needs the loop.
    "loop": {"send", "followup", "steer", "inject", "cancel", "decide", "step-result", "turn-stopping", "restart",
             "advance", "stop"},
}
PROFILES["full"] = (PROFILES["inbox"] - {"claim"}) | PROFILES["loop"]


class Implementation:
    """One instance of the implementation plus what the current command emitted, in order."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.trace: list[tuple[str, dict]] = []
        if profile == "inbox":
            self.session = Session(self.record)
            self.inbox = Inbox(self.session, self.record)
        else:
            self.agent = Agent(self.record)
            self.session, self.inbox = self.agent.session, self.agent.inbox

    def record(self, item: tuple[str, dict]) -> None:
        kind, body = item
        if kind == "note":  # protocol v2: where the log stood when the notification went out
            body = {**body, "nextSeq": len(self.session.events)}
        self.trace.append((kind, body))

    # ---- one command ----

    def perform(self, c: dict) -> object:
        """A public call; listeners' actions come through here too.  Returns its value."""
        op = c["op"]
        if op == "append":
            return self.inbox.append(c["target"], c["message"])
        if op == "prepend":
            return self.inbox.prepend(c["target"], c["message"])
        if op == "splice":
            return self.inbox.splice(c["target"], c["start"], c["deleteCount"], c["inserted"])
        if op == "replace":
            return self.inbox.replace(c["id"], c["message"])
        if op == "remove":
            return self.inbox.remove(c["id"])
        if op == "clear" and self.profile == "inbox":
            return self.inbox.clear()
        if op == "clear":  # the loop's clear can stop inside itself (SPLICE-8, loop-grain row 22)
            return self.agent.clear(c.get("stop"))
        if op == "claim":
            return self.inbox.claim(c["target"], c["turn"])
        if op == "send":
            return self.agent.send(c["message"], c["target"], c["wake"], c.get("stop"))
        if op == "cancel":
            return self.agent.cancel(c["cause"], c["keepInbox"], c.get("stop"))
        if op == "advance":
            return self.agent.advance(c["stop"])
        if op == "decide":
            return self.agent.answer(op, lambda batch: self.waterfall(batch, c["listeners"]), c["stop"])
        if op == "step-result":
            return self.agent.answer(op, c, c["stop"])
        if op == "turn-stopping":
            return self.agent.answer(op, (lambda: self.run_actions(c["actions"]), c["raises"]), c["stop"])
        if op == "restart":
            return self.agent.restart()
        raise AssertionError(f"unhandled op {op}")

    def run_actions(self, actions: list[dict]) -> str | None:
        """Perform actions in order; the first refusal's message ends them (the listener threw)."""
        for a in actions:
            try:
                self.perform(a)
            except Refused as refused:
                return refused.message
        return None

    def waterfall(self, batch: list[dict], listeners: list[dict]) -> dict:
        """DECIDE-3: outermost first; each acts as it runs, may call next(), shapes what it returns.

        The payload is the batch, the turn and the step the decision would open (DECIDE-1); a
        listener whose `when` does not match it passes through untouched.
        """
        run = self.agent.run
        assert run is not None
        payload = {"turn": run.turn, "step": run.step + 1}

        def act(actions: list[dict]) -> None:
            refused = self.run_actions(actions)
            if refused is not None:
                raise ListenerThrew(refused)

        def call(index: int) -> dict:
            if index == len(listeners):
                return {"kind": "enter", "messages": batch}  # the default enters the claimed batch
            listener = listeners[index]
            if any(v is not None and v != payload[k] for k, v in listener["when"].items()):
                return call(index + 1)  # not for this payload: next(), unchanged, no action
            act(listener["before"])
            if listener["kind"] == "throw":
                raise ListenerThrew(listener["message"])
            if listener["kind"] == "veto":
                return listener["decision"]
            result = call(index + 1)
            act(listener["after"])
            act(listener["afterEnter"] if result["kind"] == "enter" else listener["afterReject"])  # DECIDE-9
            return shaped(result, listener["transform"])

        return call(0)

    def observe(self, c: dict) -> dict:
        self.trace = []
        try:
            value = self.perform(c)
        except Refused as refused:
            # Every refusal comes before the command changes anything: the inbox checks an edit before
            # it writes (SPLICE-3, NORM-5), and an input the loop has no transition for (INPUT-4) is
            # refused before it runs.  So a refusal has nothing to restore (and the driver, a suspended
            # generator, could not be copied to restore it anyway).
            assert not self.trace, "refused after writing"
            return {"ok": False, "code": refused.rule, "message": refused.message}
        return {
            "ok": True,
            "events": [body for kind, body in self.trace if kind == "event"],
            "notifications": [body for kind, body in self.trace if kind == "note"],
            "value": value,
        }

    def state(self) -> dict:
        inbox = {"next-turn": self.inbox.lists["next-turn"], "next-step": self.inbox.lists["next-step"]}
        if self.profile == "inbox":
            return {"inbox": inbox}  # an inbox without a loop reports its inbox alone
        return {"inbox": inbox, "phase": self.agent.reported_phase, "status": self.agent.status,
                "lastTurn": self.agent.last_turn}


def shaped(result: dict, transform: dict) -> dict:
    kind = transform["kind"]
    if kind == "replace":
        return transform["decision"]
    if kind == "drop" and result["kind"] == "enter":
        return {"kind": "enter", "messages": [m for m in result["messages"] if m["id"] not in transform["ids"]]}
    if kind == "add" and result["kind"] == "enter":
        return {"kind": "enter", "messages": result["messages"] + transform["messages"]}
    return result


def error(request_id: object, kind: str, message: str) -> dict:
    return {"id": request_id, "error": {"kind": kind, "message": message}}


class Server:
    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.implementation = Implementation(profile)
        self.greeted = False

    def answer(self, line: str) -> dict:
        try:
            request = json.loads(line)
        except ValueError:
            return error(None, "bad-request", "not JSON")
        request_id = request.get("id") if isinstance(request, dict) else None
        if isinstance(request_id, bool) or not isinstance(request_id, int):
            return error(None, "bad-request", "a request needs an integer id")
        keys = set(request) - {"id"}
        if len(keys) != 1 or not keys <= {"hello", "command", "state", "reset"}:
            return error(request_id, "bad-request", "expected id and one of hello, command, state, reset")
        (key,) = keys
        if key == "hello":
            hello = request["hello"]
            if not isinstance(hello, dict) or hello.get("protocol") != PROTOCOL:
                return error(request_id, "protocol", f"this adapter speaks {PROTOCOL} only")
            self.greeted = True
            return {"id": request_id, "hello": {"protocol": PROTOCOL, "implementation": IMPLEMENTATION,
                                                "profile": self.profile}}
        if not self.greeted:
            return error(request_id, "protocol", "the first request must be hello")
        if key == "state":
            return {"id": request_id, "state": self.implementation.state()}
        if key == "reset":
            self.implementation = Implementation(self.profile)
            return {"id": request_id, "reset": {}}
        try:
            decoded = command(request["command"])
        except BadRequest as bad:
            return error(request_id, "bad-request", str(bad))
        outside = ops_of(request["command"]) - PROFILES[self.profile]
        if outside:
            return error(request_id, "unsupported", f"{sorted(outside)}: not in profile {self.profile}")
        return {"id": request_id, "observation": self.implementation.observe(decoded)}


def main(argv: list[str]) -> int:
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else "full"
    if profile not in ("full", "inbox"):
        print("usage: adapter.py [--profile full|inbox]", file=sys.stderr)
        return 2
    server = Server(profile)
    dump: Callable[[object], str] = lambda obj: json.dumps(obj, ensure_ascii=False, allow_nan=False,  # noqa: E731
                                                           separators=(",", ":"))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            response = server.answer(line)
        except Exception as crash:
            print(f"internal error: {crash!r}", file=sys.stderr)
            response = error(None, "internal", f"{type(crash).__name__}: {crash}")
        sys.stdout.write(dump(response) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
