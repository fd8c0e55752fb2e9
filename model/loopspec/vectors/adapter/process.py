"""An implementation under test as a program: the adapter protocol over its stdin and stdout.

:class:`SubprocessAdapter` launches the program and speaks line-delimited JSON with it, with a
timeout on every answer, so a hung or crashed implementation is reported (which request, what was
last received, its stderr) instead of hanging the run (``spec/adapter-protocol.md``).
"""

from __future__ import annotations

import collections
import queue
import subprocess
import threading
from collections.abc import Sequence
from typing import IO

from loopspec.check.reader import LineProblem, parse_line
from loopspec.vectors.adapter.client import (
    DEFAULT_TIMEOUT,
    HELLO_TIMEOUT,
    Adapter,
    AdapterError,
    AdapterFailure,
    dump_line,
)
from loopspec.vectors.json_reading import Json


class SubprocessAdapter(Adapter):
    """Launches ``argv`` and speaks the protocol over its stdin/stdout (spec/adapter-protocol.md)."""

    def __init__(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
                 hello_timeout: float = HELLO_TIMEOUT) -> None:
        super().__init__()
        self.argv = tuple(argv)
        self.name = " ".join(self.argv)
        self.timeout = timeout
        self._last = ""
        self._killed = False
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
        self._timeout_now = max(hello_timeout, timeout)
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
        detail = self._ending()
        if self._stderr:
            detail += "stderr (last lines):\n" + "\n".join("  " + line for line in self._stderr)
        return AdapterFailure(what, request, self._last, detail)

    def _ending(self) -> str:
        """How the adapter's process ended, in words: a negative code is a signal, maybe loopspec's own kill."""
        code = self._proc.returncode
        if code is None:
            return ""
        if self._killed:
            return "loopspec killed it: it did not exit when its stdin was closed\n"
        if code < 0:
            return f"killed by signal {-code}\n"
        return f"exit code: {code}\n"

    def exchange(self, request: Json) -> Json:
        responses, failure = self.exchange_many([request])
        if failure is not None:
            raise failure
        return responses[0]

    def exchange_many(self, requests: Sequence[Json]) -> tuple[list[Json], AdapterFailure | None]:
        """Write every request line at once, then read one answer per request, each within the timeout."""
        lines = [dump_line(request) for request in requests]
        failure = self._write(lines)
        return ([], failure) if failure is not None else self._read(requests)

    def _write(self, lines: Sequence[str]) -> AdapterFailure | None:
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write("".join(line + "\n" for line in lines))
            stdin.flush()
        except (OSError, ValueError):
            try:
                exited = self._proc.wait(timeout=0.5) is not None
            except subprocess.TimeoutExpired:
                exited = False
            what = "adapter exited before reading the request" if exited else "adapter closed its stdin"
            return self._fail(what, lines[0])
        return None

    def _read(self, requests: Sequence[Json]) -> tuple[list[Json], AdapterFailure | None]:
        out: list[Json] = []
        for request in requests:
            try:
                out.append(self._receive(request))
            except AdapterFailure as failure:
                return out, failure
        return out, None

    def _write_ahead(self, framed: Sequence[Json]) -> AdapterFailure | None:
        return self._write([dump_line(request) for request in framed]) if framed else None

    def _read_behind(self, framed: Sequence[Json], written: int) -> tuple[list[Json], AdapterFailure | None]:
        # Requests past ``written`` were never written (the adapter had failed): reading stops there.
        return self._read(framed[:written])

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def _receive(self, request: Json) -> Json:
        """The next answer line (the one to ``request``, written out only for a failure report), parsed."""
        try:
            answer = self._lines.get(timeout=self._timeout_now)
        except queue.Empty:
            starting = " (the hello: starting an adapter may take this long)" if "hello" in request else ""
            raise self._fail(f"no response within {self._timeout_now:g} s{starting}", dump_line(request)) from None
        if answer is None:
            raise self._fail("adapter exited (stdout closed) before answering", dump_line(request))
        self._last = answer
        try:
            parsed = parse_line(answer.encode("utf-8"))  # orjson when installed; JSON's exact rules either way
        except (ValueError, LineProblem):
            raise self._fail("adapter wrote a line that is not JSON", dump_line(request)) from None
        if not isinstance(parsed, dict):
            raise self._fail("adapter wrote a line that is not a JSON object", dump_line(request))
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
                self._killed = True
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
