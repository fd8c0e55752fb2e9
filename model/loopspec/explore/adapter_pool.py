"""Where exhaustive conformance sends its command sequences: one checker, or one per worker process.

Against a real implementation nearly all of an exploration's time is the implementation's (a
fresh agent, session and store for every sequence), so ``explore --jobs N -- ADAPTER`` starts N
worker processes, each with its own adapter and :class:`~loopspec.vectors.drive_check.Checker`,
and deals every state's sequences out to them.  The search itself stays in one process, so the
order in which edges are judged, and hence the counterexample, is the serial one.

Workers are forked (no interpreter to start, no resource tracker left running after the search),
so they must be started while this process holds no adapter: a forked worker would inherit the
adapter's pipes, and an adapter whose stdin is still open somewhere never sees the end of its
input.  The command line therefore closes the adapter it asked who it is before the pool starts.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Protocol

from loopspec.vectors.adapter.client import AdapterError, AdapterFailure
from loopspec.vectors.drive_check import Checker, Expected
from loopspec.vectors.profiles import Profile

Finding = tuple[str, int] | None
"""A checked sequence's first disagreement and how many of its commands it needs, or None."""


class Checks(Protocol):
    """Something that checks command sequences against an implementation, in order."""

    profile: Profile
    lacks: tuple[str, ...]
    workers: int  # the processes that run the implementation's adapters

    @property
    def sent(self) -> int: ...

    @property
    def cpu_seconds(self) -> float:  # spent in other processes of ours (not the adapters')
        ...

    def run(self, sequences: Sequence[Sequence[Expected]]) -> list[Finding]: ...


class InlineChecks:
    """Every sequence through one checker, in this process."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        self.profile = checker.profile
        self.lacks = tuple(checker.adapter.lacks)
        self.workers = 1

    @property
    def sent(self) -> int:
        return self.checker.sent

    @property
    def cpu_seconds(self) -> float:
        return 0.0  # all of it in this process

    def run(self, sequences: Sequence[Sequence[Expected]]) -> list[Finding]:
        return [self.checker.check(steps) for steps in sequences]


class PooledChecks:
    """Sequences dealt out to worker processes, each running its own adapter started from ``argv``.

    Each call splits its sequences into one contiguous share per worker (balanced by commands),
    and the findings come back in the order given.  A worker whose adapter failed makes the
    call raise :class:`AdapterFailure` with the worker's report.
    """

    def __init__(self, argv: Sequence[str], workers: int, profile: Profile, lacks: tuple[str, ...]) -> None:
        self.profile, self.lacks, self.workers = profile, lacks, workers
        self._sent = [0] * workers
        self._cpu = [0.0] * workers
        context = mp.get_context("fork")
        self.links: list[Connection] = []
        self.processes: list[mp.process.BaseProcess] = []
        for _ in range(workers):
            ours, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, list(argv)), daemon=True)
            process.start()
            theirs.close()
            self.links.append(ours)
            self.processes.append(process)
        # Every worker says whether its adapter started before anything is dealt out.
        failed = [answer[1] for answer in (link.recv() for link in self.links) if answer[0] == "failed"]
        if failed:
            self.close()
            raise AdapterFailure(failed[0])

    @property
    def sent(self) -> int:
        return sum(self._sent)

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu)

    def run(self, sequences: Sequence[Sequence[Expected]]) -> list[Finding]:
        shares = _shares(sequences, len(self.links))
        busy = [(link, index) for index, (link, share) in enumerate(zip(self.links, shares, strict=True)) if share]
        for (link, _), share in zip(busy, [s for s in shares if s], strict=True):
            link.send(share)
        findings: list[Finding] = []
        failures: list[str] = []
        for link, index in busy:
            try:
                answer = link.recv()
            except EOFError:
                failures.append(f"explore worker {index + 1} died")
                continue
            if answer[0] == "failed":
                failures.append(answer[1])
                continue
            _, found, sent, cpu = answer
            findings.extend(found)
            self._sent[index], self._cpu[index] = sent, cpu
        if failures:
            raise AdapterFailure(failures[0])
        return findings

    def close(self) -> None:
        for link in self.links:
            with contextlib.suppress(OSError):  # the worker is gone already
                link.send(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()


def _shares(sequences: Sequence[Sequence[Expected]], workers: int) -> list[list[Sequence[Expected]]]:
    """Contiguous shares of about equal cost (a sequence costs its commands plus the reset)."""
    total = sum(len(s) + 1 for s in sequences)
    shares: list[list[Sequence[Expected]]] = [[] for _ in range(workers)]
    done, share = 0, 0
    for steps in sequences:
        # Move on once this share has its part of the whole (the last share takes the rest).
        while share < workers - 1 and done >= total * (share + 1) / workers:
            share += 1
        shares[share].append(steps)
        done += len(steps) + 1
    return shares


def serve(link: Connection, argv: list[str]) -> None:
    """A worker: start the adapter, then check every share the coordinator sends until it sends None."""
    from loopspec.vectors.adapter.process import SubprocessAdapter
    from loopspec.vectors.profiles import PROFILES
    from loopspec.vectors.runner import start_problem

    try:
        adapter = SubprocessAdapter(argv)
    except (AdapterFailure, AdapterError) as err:
        link.send(("failed", start_problem(err)))
        link.close()
        return
    link.send(("ready", adapter.implementation))
    checker = Checker(adapter, PROFILES[adapter.profile], restart=lambda: SubprocessAdapter(argv))
    try:
        while (share := link.recv()) is not None:
            try:
                found = [checker.check(steps) for steps in share]
            except (AdapterFailure, AdapterError) as err:
                link.send(("failed", str(err)))
                continue
            link.send(("ok", found, checker.sent, time.process_time()))
    except (EOFError, KeyboardInterrupt):
        pass
    finally:
        checker.close()
        adapter.close()
