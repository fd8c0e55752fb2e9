"""What one ``loopspec drive`` run keeps while it runs: its clock, budgets, failures and progress line.

Split from :mod:`.drive` so the search itself reads in one sitting.  :class:`Session` lives for one
:func:`loopspec.vectors.drive.drive` call; :class:`Stop` ends the Hypothesis run at once;
:func:`scratch_storage` keeps Hypothesis' files out of the user's folder, and
:func:`no_harness_constants` keeps loopspec's own source out of Hypothesis' choices.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from typing import TextIO

from loopspec.data.terminal_text import write_meter
from loopspec.vectors.adapter.client import AdapterFailure
from loopspec.vectors.reference_model import VectorCommand


class Stop(BaseException):
    """Ends the Hypothesis run at once (budget spent, adapter lost); not an Exception, so never shrunk."""


class Session:
    """What one :func:`loopspec.vectors.drive.drive` call has seen so far; lives only for that call."""

    def __init__(self, time_budget: float | None, shrink_budget: float, progress: TextIO | None) -> None:
        self.started = time.monotonic()
        self.deadline = None if time_budget is None else self.started + time_budget
        self.shrink_budget = shrink_budget
        self.progress = progress
        self.shown = 0.0
        self.failing: list[tuple[VectorCommand, ...]] = []  # every failing run; the last is the smallest so far
        self.messages: list[str] = []  # what each failing run found
        self.lost: tuple[AdapterFailure, tuple[VectorCommand, ...]] | None = None
        self.stopped = False
        self.budget_hit = False
        self.examples = 0  # examples run up to the first failure (shrink runs are not examples)
        self.commands = 0  # commands sent to the adapter, shrinking and replays included

    def check_clock(self) -> None:
        if self.stopped:
            raise Stop
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = self.budget_hit = True
            raise Stop

    def record_failure(self, commands: tuple[VectorCommand, ...], message: str) -> None:
        if not self.failing:  # shrinking gets its own allowance, within the overall budget
            end = time.monotonic() + self.shrink_budget
            self.deadline = end if self.deadline is None else min(self.deadline, end)
        self.failing.append(commands)
        self.messages.append(message)

    def tick(self, requested: int, sent: int) -> None:
        """A self-overwriting progress line on a terminal, at most five times a second."""
        now = time.monotonic()
        if self.progress is None or now - self.shown < 0.2:
            return
        self.shown = now
        what = "shrinking" if self.failing else f"{self.examples}/{requested} examples"
        line = f"drive: {what}, {sent} commands, {now - self.started:.1f} s"
        write_meter(self.progress, "\r" + line.ljust(70))
        self.progress.flush()

    def close_progress(self) -> None:
        if self.progress is not None:
            write_meter(self.progress, "\r" + " " * 70 + "\r")
            self.progress.flush()


@contextlib.contextmanager
def scratch_storage() -> Iterator[None]:
    """Point Hypothesis' storage at a throw-away folder for the run.

    With no example database Hypothesis still caches the constants it collects from local modules
    under ``.hypothesis/`` in the working directory; ``loopspec drive`` must leave the user's folder
    as it found it.
    """
    key = "HYPOTHESIS_STORAGE_DIRECTORY"
    before = os.environ.get(key)
    with tempfile.TemporaryDirectory(prefix="loopspec-drive-") as scratch:
        os.environ[key] = scratch
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = before


@contextlib.contextmanager
def no_harness_constants() -> Iterator[None]:
    """Hypothesis draws no constants mined from loopspec's own source during the run.

    Hypothesis now and then draws a literal found in the source of "local" modules (those outside
    site-packages), parsing each such module once per process.  For ``drive`` the only local
    modules are loopspec's own when it runs from a checkout: the implementation under test lives
    in another process.  Mining them cost about a seventh of a 200-example run (every run starts
    with an empty cache, :func:`scratch_storage`), and made a seed draw differently from a
    checkout than from an installed wheel, where loopspec is in site-packages and nothing is
    mined.  Hypothesis has no setting for this, so its collector is swapped for one that finds
    nothing (what it does itself where it cannot tell local code apart), and put back after; with a
    Hypothesis that has no such collector this does nothing.
    """
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:  # pragma: no cover - a Hypothesis without local constants
        yield
        return
    collector = getattr(providers, "_get_local_constants", None)
    if collector is None:  # pragma: no cover - likewise
        yield
        return
    providers._get_local_constants = Constants  # an empty set of constants on every call
    try:
        yield
    finally:
        providers._get_local_constants = collector
