"""The agent: its inbox and log, the public calls, and the driver it runs (spec/07 … spec/12).

The driver (driver.py) is a generator suspended at the point the loop stands at: an await point,
where it waits for the environment's answer, or a hop, where a command asked it to stop.
`phase` is that point's name, or `idle` when no driver runs.  Public calls never resume it (a
call that lands at a hop leaves the loop there), except a waking send from idle, which starts a
driver, and one at `waking`, whose driver has not started yet; answers and `advance` resume it.
"""

from __future__ import annotations

from collections.abc import Callable

import driver
import repair
from driver import HOPS, IDLE, WAKING, Run

from inbox import NEXT_TURN, Inbox, Refused, Session

Emit = Callable[[tuple[str, dict]], None]
ANSWERS = {"decide": driver.DECIDING, "step-result": driver.STEPPING, "turn-stopping": driver.STOPPING}


class Agent:
    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.session = Session(emit)
        self.inbox = Inbox(self.session, emit)
        self.phase = IDLE
        self.loop: driver.Loop | None = None  # the driver, suspended where the loop stands
        self.run: Run | None = None  # the running driver's state (None while idle and at waking)
        self.last_turn = 0

    @property
    def status(self) -> str:
        return IDLE if self.phase in (IDLE, WAKING) else "running"  # STATUS-1; waking is still idle

    def notify_status(self, status: str) -> None:
        self.emit(("note", {"type": "agent/status", "status": status}))

    # ---- input (INPUT-1 … INPUT-3, CANCEL-1 … CANCEL-4) ----

    def send(self, message: dict, target: str, wake: bool, stop: str | None = None) -> None:
        run = self.run
        redirected = wake and run is not None and run.aborted  # CANCEL-4: decided before inserting
        self.inbox.splice(NEXT_TURN if redirected else target, float("inf"), 0, [message])  # INPUT-1, INPUT-3
        if not wake:
            return
        if self.phase == IDLE:  # INPUT-2: the driver is created here and runs in this call
            self.loop = driver.drive(self)
            self.go_on(None, stop)
        elif self.phase == WAKING and stop != WAKING:  # the first send's driver has not started: this one
            self.go_on(None, stop)  # starts it (G20), after its own inserted listeners, a waking point too
        elif redirected and run is not None and not _disposed(run.cause):
            run.wake_latched = True

    def cancel(self, cause: object, keep_inbox: bool) -> None:
        run = self.run
        if not keep_inbox:
            self.inbox.clear()  # CANCEL-1: clear first, next-step before next-turn
            if run is not None:
                run.wake_latched = False  # a clearing cancel disarms a latched wake
        if run is not None and not run.aborted:  # idle (or waking), nothing to abort (CANCEL-2)
            run.aborted, run.cause = True, cause

    # ---- moving the driver ----

    def answer(self, op: str, answer: object, stop: str | None) -> None:
        """An await point's answer (decide, step-result, turn-stopping); refused anywhere else."""
        if self.phase != ANSWERS[op]:
            raise Refused("INPUT-4", f"{op} is not expected while the agent is {self.phase}")
        self.go_on(answer, stop)

    def advance(self, stop: str | None) -> None:
        """The loop goes on by itself from the hop it stands at."""
        if self.phase not in HOPS:
            raise Refused("INPUT-4", f"the loop goes on by itself only from a hop, not while the agent is "
                                     f"{self.phase}")
        self.go_on(None, stop)

    def go_on(self, value: object, stop: str | None) -> None:
        """Resume the driver with `value` and let it run until it rests: at an await point, at the
        first hop named `stop`, or idle.  The hops it passes need nothing but to be resumed."""
        assert self.loop is not None
        try:
            point = self.loop.send(value)
            while point in HOPS and point != stop:
                self.phase = point
                point = self.loop.send(None)
        except StopIteration:
            self.loop, self.run, self.phase = None, None, IDLE
            return
        self.phase = point

    # ---- restart (REPAIR-1 … REPAIR-4) ----

    def restart(self) -> None:
        """A new process loads the log; the old process's driver is gone with it, wherever it stood."""
        if self.loop is not None:
            self.loop.close()
        self.loop, self.run, self.phase = None, None, IDLE  # a new process starts idle and notifies nothing
        self.last_turn = repair.reload(self.session, self.inbox)


def _disposed(cause: object) -> bool:
    return isinstance(cause, dict) and cause.get("kind") == "disposed"  # CANCEL-4
