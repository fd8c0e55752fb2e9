"""The client side of the adapter protocol (``spec/adapter-protocol.md``).

:class:`Adapter` is the interface the conformance tools talk to: one request object in, one
response object out.  :class:`SubprocessAdapter` launches a program and speaks line-delimited
JSON with it, with a timeout on every answer, so a hung or crashed implementation is reported
(which request, what was last received, its stderr) instead of hanging the run.
:class:`InProcessAdapter` calls a handler function directly but still round-trips through JSON
text, for fast tests of Python mutants.
"""

from __future__ import annotations

import collections
import json
import queue
import subprocess
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import IO

from loopspec.vectors.json_reading import Json
from loopspec.vectors.profiles import DEFAULT_PROFILE, PROFILE_NAMES

PROTOCOL = "loopspec-adapter/2"
OLD_PROTOCOLS = ("loopspec-adapter/1",)
CHANGES = (
    f"{PROTOCOL} changed three things since loopspec-adapter/1: every notification in an observation "
    "carries nextSeq (the seq the next durable event was going to get when it was emitted); event times "
    "follow the time policy (strictly increasing within a case, crash-repair closers copy the time of the "
    "event before them); and the hello answer names the adapter's profile (inbox, loop or full). "
    "See spec/adapter-protocol.md, 'Changes from loopspec-adapter/1'."
)
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


class AdapterError(Exception):
    """The adapter answered a request with a protocol error (``{"error": {kind, message}}``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"adapter error ({kind}): {message}")
        self.kind = kind
        self.message = message


def hello_answer(answer: object, request: Json) -> tuple[str, str]:
    """``(implementation, profile)`` from a hello answer, or :class:`AdapterError` saying what is wrong."""
    if answer == request:
        raise AdapterError("protocol", "the adapter echoed the hello request back instead of answering it "
                                       "(a program that copies its input is not an adapter)")
    if not isinstance(answer, dict):
        raise AdapterError("protocol", f"adapter answered hello with {answer!r}")
    protocol = answer.get("protocol")
    if protocol in OLD_PROTOCOLS:
        raise AdapterError("protocol", f"the adapter speaks {protocol}; this loopspec needs {PROTOCOL}.\n{CHANGES}")
    if protocol != PROTOCOL:
        raise AdapterError("protocol", f"the adapter answered hello with protocol {protocol!r}, not {PROTOCOL}")
    implementation, profile = answer.get("implementation"), answer.get("profile")
    if not isinstance(implementation, str) or not implementation:
        raise AdapterError("protocol", f"the hello answer must name the implementation (a non-empty string), "
                                       f"got {implementation!r}")
    if profile not in PROFILE_NAMES:
        raise AdapterError("protocol", f"the hello answer must name a profile, one of {list(PROFILE_NAMES)}, "
                                       f"got {profile!r}")
    extra = sorted(set(answer) - {"protocol", "implementation", "profile"})
    if extra:
        raise AdapterError("protocol", f"the hello answer has unknown key(s) {extra}")
    return implementation, str(profile)


def dump_line(obj: object) -> str:
    """One protocol line (without the newline); NaN/Infinity are refused, as JSON requires."""
    return json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=False)


class Adapter(ABC):
    """An implementation under test behind the protocol; ids are assigned and checked here."""

    name = "adapter"

    def __init__(self) -> None:
        self._next_id = 0
        self.implementation = "?"
        self.profile = DEFAULT_PROFILE

    @abstractmethod
    def exchange(self, request: Json) -> Json:
        """Send one request object (with its ``id``) and return the response object."""

    @abstractmethod
    def close(self) -> None:
        """Release the implementation (stop the process)."""

    def call(self, key: str, body: object, answer_key: str | None = None) -> object:
        """One request ``{id, key: body}``; returns the response's ``answer_key`` (default ``key``)."""
        answer_key = answer_key or key
        request_id = self._next_id
        self._next_id += 1
        response = self.exchange({"id": request_id, key: body})
        if response.get("id") != request_id:
            raise AdapterFailure(f"response id {response.get('id')!r}, expected {request_id}",
                                 dump_line({"id": request_id, key: body}), dump_line(response))
        error = response.get("error")
        if isinstance(error, dict):
            raise AdapterError(str(error.get("kind")), str(error.get("message")))
        if answer_key not in response:
            raise AdapterFailure(f"response has no {answer_key!r}", dump_line({"id": request_id, key: body}),
                                 dump_line(response))
        return response[answer_key]

    def hello(self) -> None:
        """The handshake: the adapter must speak this protocol and name itself and its profile."""
        request: Json = {"protocol": PROTOCOL}
        try:
            answer = self.call("hello", request)
        except AdapterError as err:
            if err.kind == "protocol":
                raise AdapterError("protocol", f"the adapter refused {PROTOCOL}: {err.message}\n{CHANGES}") from None
            raise
        self.implementation, self.profile = hello_answer(answer, request)

    def command(self, command: Json) -> object:
        return self.call("command", command, "observation")

    def state(self) -> object:
        return self.call("state", {})

    def reset(self) -> None:
        self.call("reset", {})

    def __enter__(self) -> Adapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


class SubprocessAdapter(Adapter):
    """Launches ``argv`` and speaks the protocol over its stdin/stdout (spec/adapter-protocol.md)."""

    def __init__(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
                 hello_timeout: float = HELLO_TIMEOUT) -> None:
        super().__init__()
        self.argv = tuple(argv)
        self.name = " ".join(self.argv)
        self.timeout = timeout
        self._last = ""
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._lines: queue.Queue[str | None] = queue.Queue()
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", bufsize=1,
            )
        except OSError as err:
            raise AdapterFailure(f"cannot start {self.name!r}: {err.strerror or err}") from None
        assert self._proc.stdout is not None
        assert self._proc.stderr is not None
        self._readers = (
            threading.Thread(target=self._pump_stdout, args=(self._proc.stdout,), daemon=True),
            threading.Thread(target=self._pump_stderr, args=(self._proc.stderr,), daemon=True),
        )
        for reader in self._readers:
            reader.start()
        self._timeout_now = hello_timeout
        try:
            self.hello()
        except (AdapterFailure, AdapterError):
            self.close()
            raise
        self._timeout_now = timeout

    def _pump_stdout(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._lines.put(line.rstrip("\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(None)  # end of stdout: the adapter exited or closed it

    def _pump_stderr(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._stderr.append(line.rstrip("\n"))
        except (OSError, ValueError):
            pass

    def _fail(self, what: str, request: str) -> AdapterFailure:
        self._stop(grace=0.5)
        for reader in self._readers:
            reader.join(timeout=1.0)
        code = self._proc.returncode
        detail = f"exit code: {code}\n" if code is not None else ""
        if self._stderr:
            detail += "stderr (last lines):\n" + "\n".join("  " + line for line in self._stderr)
        return AdapterFailure(what, request, self._last, detail)

    def exchange(self, request: Json) -> Json:
        line = dump_line(request)
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (OSError, ValueError):
            raise self._fail("adapter closed its stdin (exited?)", line) from None
        try:
            answer = self._lines.get(timeout=self._timeout_now)
        except queue.Empty:
            raise self._fail(f"no response within {self._timeout_now:g} s", line) from None
        if answer is None:
            raise self._fail("adapter exited (stdout closed) before answering", line)
        self._last = answer
        try:
            parsed = json.loads(answer)
        except ValueError:
            raise self._fail("adapter wrote a line that is not JSON", line) from None
        if not isinstance(parsed, dict):
            raise self._fail("adapter wrote a line that is not a JSON object", line)
        return parsed

    def _stop(self, grace: float) -> None:
        proc = self._proc
        if proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self) -> None:
        self._stop(grace=2.0)
        for stream in (self._proc.stdout, self._proc.stderr, self._proc.stdin):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
