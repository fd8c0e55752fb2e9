"""How the calls, the listener windows and the notifications of a live stream nest (decisions.md E5).

A listener hook's window runs from its ``invoked`` record to its closing one (pre-step:
``decided`` or ``threw``; turn-stopping: ``returned`` or ``threw``).  A call the listener made
is an ``op-begin``/``op-end`` pair inside that window whose ``within`` names the hook; the
scenario's own calls have no ``within`` and may also fall inside a window (the host calls while
the listener awaits).  A call made by a listener of a notification (``agent/status``,
``agent/inbox/claimed``) names the notification's type in ``within`` and begins right after
that notification's record, or right after the ``op-end`` of the same listener's call before it
(the real emit runs its listeners synchronously); it may lie inside another call, the one whose
effect the notification reports.  What the format does not describe is a problem, never skipped:

* a call that begins while another call is open, unless it is such a notification's call;
* a ``within`` call outside an open window of its hook, or not right after its notification;
* an ``op-end`` that does not close the call begun last, or a call with no ``op-end``;
* an ``invoked`` while that hook's window is open, a closing record with no window open, and a
  window that closes while the listener's own call is open.  (Whether the turn and step fit is
  the rules' to judge, DECIDE-1 and RESULT-4, not the form's.)

A crash (a note with ``crash: true``) ends every window: the process is gone and its listeners
never return.  A graceful shutdown (``crash: false``) ends none: the agent's teardown cancels the
turn and then waits for the loop to go idle, so a waiting listener returns (or throws) after the
note, and the loop acts on what it said.  A resumed agent of the same session waits for that
teardown to finish, so a window still open when the next process starts (the next note) is a
problem too.  Both readers of a stream use this one walk: ``check --live`` reports a problem
under LOG-13, ``reproduce`` as unusable input.  Records reach it after their form was checked
(:mod:`loopspec.check.live_shape`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from loopspec.check.live_shape import LISTENER_PHASES, NOTIFYING
from loopspec.log.kinds import PRE_STEP_HOOK, TURN_STOPPING_HOOK

NESTING = "LOG-13"  # the rule a misplaced record breaks

# The phase that closes each hook's window besides ``threw``.
_CLOSES: Mapping[str, str] = MappingProxyType({PRE_STEP_HOOK: "decided", TURN_STOPPING_HOOK: "returned"})


@attrs.frozen
class Window:
    """An open listener window: the hook, the line of its ``invoked``, and its turn (and step)."""

    hook: str
    line: int
    turn: object
    step: object


@attrs.frozen
class Notified:
    """A notification being delivered (its type and line): its listener may call right now."""

    type: str
    line: int


@attrs.frozen
class OpenCall:
    line: int
    op: object
    args: object
    within: object
    notified: Notified | None = None  # the notification a notification listener's call is made in


def _call(op: object, within: object) -> str:
    return f"{op!r}" if within is None else f"{op!r} within {within}"


def _where(window: Window) -> str:
    step = "" if window.step is None else f" step {window.step}"
    return f"the {window.hook} listener invoked on line {window.line} (turn {window.turn}{step})"


class Nesting:
    """One stream's walk; mutable for its length only."""

    def __init__(self) -> None:
        self.windows: dict[str, Window] = {}
        self.calls: list[OpenCall] = []  # the open calls, innermost last
        self.notified: Notified | None = None  # the notification whose listener may call next
        self.shutting_down = False  # after a graceful note, until the next process starts

    def feed(self, line: int, rec: dict[str, object]) -> str | None:
        """Take one well-formed record; what is wrong with where it stands, or None."""
        kind, notified, self.notified = rec.get("kind"), self.notified, None
        if kind == "op-begin":
            return self._begin(line, rec, notified)
        if kind == "op-end":
            return self._end(rec)
        if kind == "note":
            return self._boundary(rec.get("crash"))
        if kind == "live" and rec.get("type") in LISTENER_PHASES:
            return self._observed(line, rec)
        if kind == "live" and rec.get("type") in NOTIFYING:
            self.notified = Notified(str(rec.get("type")), line)
        return None

    def _boundary(self, crash: object) -> str | None:
        """A ``note``: a crash voids every window; a graceful shutdown keeps them open until the
        next process starts, by when every listener the teardown waited for has returned."""
        if crash is True:
            self.windows.clear()
            self.shutting_down = False
            return None
        if crash is False:
            self.shutting_down = True
            return None
        waiting, self.shutting_down = self.shutting_down and next(iter(self.windows.values()), None), False
        if not waiting:
            return None
        self.windows.clear()
        return (f"the next process starts while {_where(waiting)} has not returned: a graceful shutdown "
                "waits for the loop to go idle, and so for its listeners, before the session can be resumed")

    def finish(self) -> str | None:
        """At the end of the stream: an open call never returned (an open window may still wait)."""
        if self.calls:
            return f"call {self.calls[0].op!r} begun on line {self.calls[0].line} has no op-end"
        return None

    def _begin(self, line: int, rec: dict[str, object], notified: Notified | None) -> str | None:
        op, within = rec.get("op"), rec.get("within")
        if within in NOTIFYING:
            if notified is None or notified.type != within:
                return (f"call {op!r} is made within {within}, but does not follow an {within} record: a "
                        "notification's listener calls while the notification is delivered, right after it")
            self.calls.append(OpenCall(line, op, rec.get("args"), within, notified))
            return None
        if self.calls:
            call = self.calls[-1]
            return (f"call {op!r} begins inside the call {call.op!r} begun on line {call.line}; calls do not "
                    "nest in one another, except a call made by a listener of a notification")
        if within is not None and within not in self.windows:
            return f"call {op!r} is made within {within}, but no {within} listener is running here"
        self.calls.append(OpenCall(line, op, rec.get("args"), within))
        return None

    def _end(self, rec: dict[str, object]) -> str | None:
        if not self.calls:
            return f"op-end of {rec.get('op')!r} has no op-begin"
        call = self.calls.pop()
        if (call.op, call.args, call.within) != (rec.get("op"), rec.get("args"), rec.get("within")):
            return (f"op-end of {_call(rec.get('op'), rec.get('within'))} does not close the call begun last, "
                    f"{_call(call.op, call.within)} on line {call.line}")
        self.notified = call.notified  # the same listener may call again
        return None

    def _observed(self, line: int, rec: dict[str, object]) -> str | None:
        hook, phase = str(rec.get("type")), rec.get("phase")
        open_window = self.windows.get(hook)
        if phase == "invoked":
            if open_window is not None:
                return f"{hook} invoked again while {_where(open_window)} has not returned"
            self.windows[hook] = Window(hook, line, rec.get("turn"), rec.get("step"))
            return None
        if open_window is None:
            return f"{hook} {phase} with no {hook} listener invoked"
        own = next((c for c in self.calls if c.within == hook), None)
        if own is not None:
            return f"{_where(open_window)} {phase} while its call {own.op!r} (line {own.line}) is open"
        del self.windows[hook]
        return None
