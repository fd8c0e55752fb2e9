"""The client side of the adapter protocol (``spec/adapter-protocol.md``).

:class:`Adapter` is the interface the conformance tools talk to: one request object in, one
response object out.  :class:`InProcessAdapter` calls a handler function directly but still
round-trips through JSON text, for fast tests of Python mutants; a program speaking the protocol
over its standard streams is :class:`loopspec.vectors.adapter.process.SubprocessAdapter`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from loopspec.vectors.adapter.handshake import CHANGES, OLD_PROTOCOLS, PROTOCOL, AdapterError, hello_answer
from loopspec.vectors.json_reading import Json
from loopspec.vectors.profiles import DEFAULT_PROFILE

__all__ = ["CHANGES", "OLD_PROTOCOLS", "PROTOCOL", "Adapter", "AdapterError", "AdapterFailure", "InProcessAdapter",
           "dump_line"]

ANSWER_KEYS = {"command": "observation"}
HELLO_TIMEOUT = 30.0
DEFAULT_TIMEOUT = 10.0


class AdapterFailure(Exception):
    """The adapter died, hung or wrote something that is not a protocol line; it is unusable now."""

    def __init__(self, what: str, request: str = "", last_received: str = "", detail: str = "") -> None:
        self.what = what
        self.request = request
        self.last_received = last_received
        self.detail = detail
        super().__init__(self.report())

    def report(self) -> str:
        lines = [f"adapter failure: {self.what}"]
        lines.append(f"  pending request: {self.request or '(none)'}")
        lines.append(f"  last line received: {self.last_received or '(none)'}")
        if self.detail:
            lines.extend("  " + line for line in self.detail.splitlines())
        return "\n".join(lines)


_LINE_ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"), ensure_ascii=False)
"""``json.dumps`` with these options builds an encoder per call; this one is built once (it keeps no state)."""

_fast_dumps: Callable[[object], bytes] | None
try:  # orjson writes a request in a twelfth of the standard encoder's time (docs/performance.md, drive)
    from orjson import dumps as _orjson_dumps

    _fast_dumps = _orjson_dumps
except ImportError:  # pragma: no cover - orjson is a dependency; the standard encoder says the same
    _fast_dumps = None


def dump_line(obj: object) -> str:
    """One protocol line (without the newline); NaN/Infinity are refused, as JSON requires.

    orjson writes it when it can.  It writes NaN and the infinities as ``null`` instead of refusing
    them, so a line holding a ``null`` is written again by the standard encoder, which refuses them
    (and writes the same value otherwise); what orjson cannot write at all (integers past 64 bits,
    keys that are not strings) goes there too.
    """
    if _fast_dumps is not None:
        try:
            text = _fast_dumps(obj)
        except TypeError:
            pass
        else:
            if b"null" not in text:
                return text.decode()
    return _LINE_ENCODER.encode(obj)


class Adapter(ABC):
    """An implementation under test behind the protocol; ids are assigned and checked here."""

    name = "adapter"

    def __init__(self) -> None:
        self._next_id = 0
        self.implementation = "?"
        self.profile = DEFAULT_PROFILE
        self.lacks: tuple[str, ...] = ()

    @abstractmethod
    def exchange(self, request: Json) -> Json:
        """Send one request object (with its ``id``) and return the response object."""

    @abstractmethod
    def close(self) -> None:
        """Release the implementation (stop the process)."""

    def exchange_many(self, requests: Sequence[Json]) -> tuple[list[Json], AdapterFailure | None]:
        """Several requests, answered in order: the responses, up to the failure that cut them short if any.

        By default one at a time; :class:`SubprocessAdapter` pipelines them.
        """
        out: list[Json] = []
        for request in requests:
            try:
                out.append(self.exchange(request))
            except AdapterFailure as failure:
                return out, failure
        return out, None

    @property
    def alive(self) -> bool:
        """Whether the implementation can still answer (an in-process handler always can)."""
        return True

    def _answer(self, request: Json, response: Json, answer_key: str) -> object:
        """The answer in ``response`` to ``request``; AdapterError for a protocol error, AdapterFailure for garbage."""
        if response.get("id") != request["id"]:
            raise AdapterFailure(f"response id {response.get('id')!r}, expected {request['id']}",
                                 dump_line(request), dump_line(response))
        error = response.get("error")
        if isinstance(error, dict):
            raise AdapterError(str(error.get("kind")), str(error.get("message")))
        if answer_key not in response:
            raise AdapterFailure(f"response has no {answer_key!r}", dump_line(request), dump_line(response))
        return response[answer_key]

    def _framed(self, requests: Sequence[tuple[str, object]]) -> list[Json]:
        first = self._next_id
        self._next_id += len(requests)
        return [{"id": first + i, key: body} for i, (key, body) in enumerate(requests)]

    def call(self, key: str, body: object, answer_key: str | None = None) -> object:
        """One request ``{id, key: body}``; returns the response's ``answer_key`` (default ``key``)."""
        (request,) = self._framed([(key, body)])
        return self._answer(request, self.exchange(request), answer_key or ANSWER_KEYS.get(key, key))

    def pipeline(self, requests: Sequence[tuple[str, object]], *, lockstep: bool = False) -> list[object]:
        """Send ``(key, body)`` requests back to back and read the answers in order (spec: Pipelining).

        Each item of the result is the answer or the :class:`AdapterError` its protocol-error
        response stands for (returned, not raised: later requests were served all the same).  If
        the adapter failed, the answers before the failure come first and the
        :class:`AdapterFailure` is the last item (returned too: an earlier answer may matter more).
        ``lockstep`` sends them one at a time, waiting for each answer (the protocol's v1 habit).
        """
        framed = self._framed(requests)
        responses, failure = Adapter.exchange_many(self, framed) if lockstep else self.exchange_many(framed)
        return self._answers(framed, requests, responses, failure)

    def _answers(self, framed: Sequence[Json], requests: Sequence[tuple[str, object]], responses: Sequence[Json],
                 failure: AdapterFailure | None) -> list[object]:
        """:meth:`pipeline`'s result from the responses read (and the failure that cut them short)."""
        out: list[object] = []
        for request, response, (key, _) in zip(framed, responses, requests, strict=False):
            try:
                out.append(self._answer(request, response, ANSWER_KEYS.get(key, key)))
            except AdapterError as err:
                out.append(err)
            except AdapterFailure as garbage:
                return [*out, garbage]
        return out if failure is None else [*out, failure]

    def batch(self) -> Batch:
        """A :meth:`pipeline` whose requests are added (and, to a process, written) over time."""
        return Batch(self)

    def _write_ahead(self, framed: Sequence[Json]) -> AdapterFailure | None:
        """Write requests now, to be read by :meth:`_read_behind`; by default nothing is written early."""
        return None

    def _read_behind(self, framed: Sequence[Json], written: int) -> tuple[list[Json], AdapterFailure | None]:
        """The responses to ``framed``, of which the first ``written`` were written ahead."""
        return self.exchange_many(framed)

    def hello(self) -> None:
        """The handshake: the adapter must speak this protocol and name itself and its profile."""
        request: Json = {"protocol": PROTOCOL}
        try:
            answer = self.call("hello", request)
        except AdapterError as err:
            if err.kind == "protocol":
                raise AdapterError("protocol", f"the adapter refused {PROTOCOL}: {err.message}\n{CHANGES}") from None
            raise
        self.implementation, self.profile, self.lacks = hello_answer(answer, request)

    def command(self, command: Json) -> object:
        return self.call("command", command)

    def state(self) -> object:
        return self.call("state", {})

    def reset(self) -> None:
        self.call("reset", {})

    def __enter__(self) -> Adapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Batch:
    """Requests added over time and answered together (spec/adapter-protocol.md, Pipelining).

    To a process each :meth:`add` writes its requests at once, so the adapter works on them while
    the caller prepares the next ones; :meth:`answers` reads every response, in order, with what
    :meth:`Adapter.pipeline` would have returned for the same requests.  Every batch must be
    answered before the adapter is asked anything else: responses come in request order.
    """

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.requests: list[tuple[str, object]] = []
        self.framed: list[Json] = []
        self.written = 0
        self.failure: AdapterFailure | None = None

    def add(self, requests: Sequence[tuple[str, object]]) -> None:
        framed = self.adapter._framed(requests)
        self.requests += requests
        self.framed += framed
        if self.failure is None:
            self.failure = self.adapter._write_ahead(framed)
            self.written += 0 if self.failure is not None else len(framed)

    def answers(self) -> list[object]:
        if self.failure is not None and self.written == 0:
            return [self.failure]
        responses, failure = self.adapter._read_behind(self.framed, self.written)
        return self.adapter._answers(self.framed, self.requests, responses, failure or self.failure)


class InProcessAdapter(Adapter):
    """Calls ``handler(request) -> response`` in this process, through JSON text both ways."""

    def __init__(self, handler: Callable[[Json], Json], name: str = "in-process") -> None:
        super().__init__()
        self.handler = handler
        self.name = name
        self._last = ""
        self.hello()

    def exchange(self, request: Json) -> Json:
        line = dump_line(request)
        try:
            response = self.handler(json.loads(line))
            out = dump_line(response)
        except Exception as err:  # the handler is code under test: any crash is its failure
            raise AdapterFailure(f"handler raised {type(err).__name__}: {err}", line, self._last) from err
        self._last = out
        parsed = json.loads(out)
        if not isinstance(parsed, dict):
            raise AdapterFailure("response is not a JSON object", line, out)
        return parsed

    def close(self) -> None:
        """Nothing to release: the handler lives in this process."""
