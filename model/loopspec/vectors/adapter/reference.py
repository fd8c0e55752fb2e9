"""The server side of the adapter protocol, serving the model itself (``loopspec adapter``).

:class:`ModelHandler` answers requests with the model of its profile
(:mod:`loopspec.vectors.reference_model`: the agent for ``full`` and ``loop``, an inbox-only
session for ``inbox``); it is the reference every other adapter is compared with, and the base
Python mutants build on.  :func:`serve` is the line loop: read a request line, answer one line,
flush.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TextIO

from loopspec.log.json_fault import why_not_json
from loopspec.vectors.adapter.client import CHANGES, OLD_PROTOCOLS, PROTOCOL, dump_line
from loopspec.vectors.codec import decode_command
from loopspec.vectors.json_reading import CodecError, Json
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profiles import DEFAULT_PROFILE, PROFILES, ops_of
from loopspec.vectors.reference_model import Model, Unsupported, VectorCommand, initial

IMPLEMENTATION = "loopspec-model 0.2.0"  # the package version (tests/cli/test_versions.py)


def protocol_error(request_id: object, kind: str, message: str) -> Json:
    return {"id": request_id, "error": {"kind": kind, "message": message}}


class ModelHandler:
    """One implementation instance behind the protocol; ``handle(request) -> response``.

    Subclasses (mutants) override :meth:`apply` to change what a command does.
    """

    implementation = IMPLEMENTATION

    def __init__(self, profile: str = DEFAULT_PROFILE) -> None:
        self.profile = PROFILES[profile]
        self.model: Model = initial(profile)
        self.greeted = False

    def apply(self, command: VectorCommand) -> Json:
        """Run one decoded command; returns the observation (raises Unsupported outside the model)."""
        self.model, observation = observe(self.model, command)
        return observation

    def state(self) -> Json:
        return state_of(self.model)

    def reset(self) -> None:
        self.model = initial(self.profile.name)

    def handle(self, request: object) -> Json:
        if not isinstance(request, dict):
            return protocol_error(None, "bad-request", "a request is a JSON object")
        request_id = request.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, int):
            return protocol_error(None, "bad-request", f"request id must be an integer, got {request_id!r}")
        keys = [k for k in REQUESTS if k in request]
        if len(keys) != 1 or set(request) != {"id", keys[0]}:
            return protocol_error(request_id, "bad-request", f"expected id and one of {list(REQUESTS)}")
        key = keys[0]
        if key != "hello" and not self.greeted:
            return protocol_error(request_id, "protocol", "the first request must be hello")
        return REQUESTS[key](self, request_id, request[key])

    def hello(self, request_id: int, hello: object) -> Json:
        protocol = hello.get("protocol") if isinstance(hello, dict) else None
        if protocol != PROTOCOL:
            why = f"{protocol} is an older protocol. {CHANGES}" if protocol in OLD_PROTOCOLS else f"not {protocol!r}"
            return protocol_error(request_id, "protocol", f"this adapter speaks {PROTOCOL} only ({why})")
        self.greeted = True
        answer = {"protocol": PROTOCOL, "implementation": self.implementation, "profile": self.profile.name}
        return {"id": request_id, "hello": answer}

    def command(self, request_id: int, raw: object) -> Json:
        try:
            command = decode_command(raw)
        except CodecError as err:
            return protocol_error(request_id, "bad-request", str(err))
        outside = self.profile.missing(ops_of(raw))
        if outside:
            why = f"{', '.join(outside)}: not in profile {self.profile.name}"
            return protocol_error(request_id, "unsupported", why)
        try:
            return {"id": request_id, "observation": self.apply(command)}
        except Unsupported as err:
            return protocol_error(request_id, "unsupported", str(err))

    def reset_request(self, request_id: int, _: object) -> Json:
        self.reset()
        return {"id": request_id, "reset": {}}


# Each request of the protocol (spec/adapter-protocol.md) and its answer, by the request's key.
REQUESTS: Mapping[str, Callable[[ModelHandler, int, object], Json]] = MappingProxyType({
    "hello": ModelHandler.hello,
    "command": ModelHandler.command,
    "state": lambda handler, request_id, _: {"id": request_id, "state": handler.state()},
    "reset": ModelHandler.reset_request,
})


def serve(handler: ModelHandler, lines: Iterable[str], out: TextIO) -> None:
    """Answer one line per request line until the input ends (spec/adapter-protocol.md)."""
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as err:
            response = protocol_error(None, "bad-request", f"not JSON: {why_not_json(err, line)}")
        else:
            try:
                response = handler.handle(request)
            except Exception as err:  # keep serving: report this request as an internal error
                request_id = request.get("id") if isinstance(request, dict) else None
                response = protocol_error(request_id, "internal", f"{type(err).__name__}: {err}")
        out.write(dump_line(response) + "\n")
        out.flush()
