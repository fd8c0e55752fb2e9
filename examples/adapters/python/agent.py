"""The agent: its inbox and log, the public calls, and the driver it runs (spec/07 … spec/12).

The driver (driver.py) is a generator suspended at the point the loop stands at: an await point,
where it waits for the environment's answer, or a hop, where a command asked it to stop.
`phase` is that point's name, or `idle` when no driver runs.  Public calls never resume it (a
call that lands at a hop leaves the loop there), except a waking send from idle, which starts a
driver, and one at `waking`, whose driver has not started yet; answers and `advance` resume it.

Two more hops lie inside a public call rather than in the loop (loop-grain row 22, decisions
G23): `clearing`, where a clear (or a cancel's clear) has discarded next-step and not yet read
next-turn, and `canceling`, where a cancel's clear is done and its abort is not.  A clear and a
cancel are generators too, yielding these points; one that stops at a point is held in `call`
and the state reports the point as its phase (`reported_phase`), while `phase` stays the loop's
own phase: the one the call came in, which a call landing at the point may change.  A waking
send made at such a point may stop at its own `waking` or `starting` (decisions G30): it is held
there (`held`), and `advance` runs its rest, up to its return, before the outer call's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import driver
import repair
from driver import HOPS, IDLE, REPLAYING, STARTING, WAKING, Run

from inbox import NEXT_STEP, NEXT_TURN, Inbox, Refused, Session

Emit = Callable[[tuple[str, dict]], None]
# The points inside a call (loop-grain row 22): a public call that has them is a generator of
# their names, suspended at the one where it stopped.
CLEARING, CANCELING = "clearing", "canceling"
# A driver a call started at such a point awaits its system prompt once that call has returned: a
# hop of the loop's (row 4) that the driver's generator does not yield (it stands at `deciding`).
PROMPTING = "prompting"
Call = Iterator[str]
# The hops a send made at a point inside a call can stop at: its own (loop-grain rows 1, 2).
INNER_HOPS = (WAKING, STARTING)
IDLE_PHASES = (IDLE, WAKING, REPLAYING)  # no driver runs: the status is idle
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
        self.call: Call | None = None  # a clear or cancel stopped at a point inside it, its rest to run
        self.point: str | None = None  # that point's name (clearing, canceling)
        self.held: str | None = None  # the hop where a waking send made at that point stopped

    @property
    def reported_phase(self) -> str:
        """The state's phase: the hop of a send held inside a call, the point inside a call where
        one stopped, else the loop's phase."""
        return self.held or self.point or self.phase

    @property
    def status(self) -> str:
        # STATUS-1; waking is still idle.  At a point inside a call it is the status of the phase
        # the call came in (as the calls landing there left it): `phase` is that one.
        return IDLE if self.phase in IDLE_PHASES else "running"

    def notify_status(self, status: str) -> None:
        self.emit(("note", {"type": "agent/status", "status": status}))

    # ---- input (INPUT-1 … INPUT-3, CANCEL-1 … CANCEL-4) ----

    def send(self, message: dict, target: str, wake: bool, stop: str | None = None) -> None:
        # A call made at a point inside another call runs whole (decisions G23) but for a waking
        # send's own hops (G30); one made where such a send is held runs whole.
        in_call = self.point is not None
        if in_call and (self.held is not None or stop not in INNER_HOPS):
            stop = None
        run = self.run
        redirected = wake and run is not None and run.aborted  # CANCEL-4: decided before inserting
        self.inbox.splice(NEXT_TURN if redirected else target, float("inf"), 0, [message])  # INPUT-1, INPUT-3
        if not wake:
            return
        starts = self.point is not None and self.phase in IDLE_PHASES  # a driver, from inside a call
        if self.phase in (IDLE, REPLAYING):  # INPUT-2: the driver is created here and runs in this call
            if self.loop is not None:  # at replaying the last driver is done: its replay would find
                self.loop.close()  # this one running and do nothing
            self.loop = driver.drive(self)
            self.go_on(None, stop)
            self.hold_at(in_call, stop)
        elif self.phase == WAKING:  # the first send's driver has not started: this one starts it (G20),
            if stop != WAKING:  # after its own inserted listeners, a waking point too
                self.go_on(None, stop)
            self.hold_at(in_call, stop)
        elif redirected and run is not None and not _disposed(run.cause):
            run.wake_latched = True
        if starts and self.phase == driver.DECIDING and self.run is not None:
            # Loop-grain row 4: a send made at a point inside a call returns as soon as the turn it
            # started wrote turn/start, claimed and began awaiting its system prompt; its pre-step
            # listeners are called only once the outer call's rest has run (`resume`, decisions G23).
            self.run.prompting = True
        if self.held is not None and self.phase != self.held:
            self.held = None  # a waking send made where another is held started the driver itself

    def hold_at(self, in_call: bool, stop: str | None) -> None:
        if in_call and stop is not None and self.phase == stop:
            self.held = stop

    def clear(self, stop: str | None = None) -> None:
        self.enter(self.clearing(), stop)

    def clearing(self) -> Call:
        """SPLICE-8: a clear that discarded next-step stops at `clearing` before it reads next-turn;
        next-turn's discards are its last act, with no point after them."""
        for lane in self.inbox.clearing():
            if lane == NEXT_STEP:
                yield CLEARING

    def cancel(self, cause: object, keep_inbox: bool, stop: str | None = None) -> None:
        self.enter(self.canceling(cause, keep_inbox), stop)

    def canceling(self, cause: object, keep_inbox: bool) -> Call:
        """CANCEL-1: clear first (next-step, then next-turn), then disarm the latch and abort.

        The points: `clearing` after next-step's discards, `canceling` after next-turn's.  The
        driver to abort is read only at the end, like the real cancel reading its phase again: a
        call at a point may have started one (a follow-up from idle), and this cancel aborts it.
        """
        if not keep_inbox:
            for lane in self.inbox.clearing():
                yield CLEARING if lane == NEXT_STEP else CANCELING
        run = self.run
        if run is None:
            return  # idle (or waking): nothing to abort (CANCEL-2)
        if not keep_inbox:
            run.wake_latched = False  # CANCEL-4: a clearing cancel disarms a latched wake
        if not run.aborted:  # the first cause wins
            run.aborted, run.cause = True, cause

    def enter(self, call: Call, stop: str | None) -> None:
        """Run a public call that has points inside it: through, or to the point named `stop`.

        A call made while another stands at a point runs whole, whatever its `stop` (the command
        language: it passes no hop of its own); the point then holds the phase that call left."""
        if self.point is not None:
            stop = None
        if _reaches(call, stop):
            self.call, self.point = call, stop

    # ---- moving the driver ----

    def answer(self, op: str, answer: object, stop: str | None) -> None:
        """An await point's answer (decide, step-result, turn-stopping); refused anywhere else,
        a point inside a call included: that is no await either."""
        if self.point is not None or self.phase != ANSWERS[op]:
            raise Refused("INPUT-4", f"{op} is not expected while the agent is {self.reported_phase}")
        self.go_on(answer, stop)

    def advance(self, stop: str | None) -> None:
        """The loop goes on by itself from the hop it stands at."""
        if self.held is not None:
            self.held_goes_on(stop)
            return
        if self.call is not None:
            # At a point inside a call: the call's rest runs (to a later point named `stop`), and
            # the move rests in the phase the call came in, even at a loop hop (decisions G23).
            if _reaches(self.call, stop):
                self.point = stop
            else:
                self.call = self.point = None
                self.resume(stop)
            return
        if self.phase == PROMPTING:
            self.phase = driver.DECIDING
            self.prompt_returned(stop)
            return
        if self.phase not in HOPS:
            raise Refused("INPUT-4", f"the loop goes on by itself only from a hop, not while the agent is "
                                     f"{self.phase}")
        self.go_on(None, stop)

    def held_goes_on(self, stop: str | None) -> None:
        """The rest of a send held at one of its hops inside a call (G30): hop by hop, to the later
        hop `stop`, or until the send returns: its turn awaiting the system prompt (`prompting`
        once the outer call is done), or, aborted at its start, the driver at `ending`."""
        self.go_on(None, stop, passing=INNER_HOPS)
        if self.phase in INNER_HOPS:
            self.held = self.phase
            return
        self.held = None
        if self.phase in (driver.DECIDING, driver.ENDING) and self.run is not None:
            self.run.prompting = True

    def resume(self, stop: str | None) -> None:
        """The outer call is done and the agent is back in the loop's phase.  A driver a call made at
        its point started awaits its system prompt (loop-grain row 4, decisions G23): the hop
        `prompting`, where the move rests if `stop` names it, else it goes on at once."""
        run = self.run
        if run is not None and run.prompting and self.phase == driver.ENDING:
            run.prompting = False  # aborted at its start (G30): it goes idle from `ending` likewise
            if stop != driver.ENDING:
                self.go_on(None, stop)
            return
        if run is None or not run.prompting or self.phase != driver.DECIDING:
            return
        if stop == PROMPTING:
            self.phase = PROMPTING
            return
        self.prompt_returned(stop)

    def prompt_returned(self, stop: str | None) -> None:
        """The system prompt is there: aborted by then (the outer cancel's end, or a cancel made at a
        point), the turn ends aborted before any pre-step listener is called (CANCEL-3) and the
        loop goes on as after any aborted end (to `stop` if it names `ending`); otherwise the
        listeners are due and the agent rests at `deciding`, awaiting `decide` as usual."""
        run = self.run
        assert run is not None
        run.prompting = False
        if run.aborted:
            self.go_on(driver.PROMPT_ABORTED, stop)

    def go_on(self, value: object, stop: str | None, passing: tuple[str, ...] = HOPS) -> None:
        """Resume the driver with `value` and let it run until it rests: at an await point, at the
        first hop named `stop` or not in `passing`, or idle.  The hops it passes need nothing but
        to be resumed."""
        assert self.loop is not None
        try:
            point = self.loop.send(value)
            while point in passing and point != stop:
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
        self.call = self.point = self.held = None  # a call stopped inside itself ends with the process (G23)
        self.loop, self.run, self.phase = None, None, IDLE  # a new process starts idle and notifies nothing
        self.last_turn = repair.reload(self.session, self.inbox)


def _reaches(call: Call, stop: str | None) -> bool:
    """Run `call` on until it ends (False) or reaches the point named `stop` (True, suspended there:
    `any` stops pulling at the first match and does not close the generator, whose rest is still
    to run)."""
    return any(point == stop for point in call)


def _disposed(cause: object) -> bool:
    return isinstance(cause, dict) and cause.get("kind") == "disposed"  # CANCEL-4
