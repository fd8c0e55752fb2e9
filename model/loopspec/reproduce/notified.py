"""Calls made by a listener of a notification, ``agent/status`` or ``agent/inbox/claimed`` (decisions.md E5).

The real agent emits a notification synchronously, in the middle of whatever caused it (a call,
or the loop between two await points), and runs its listeners right there; a call such a
listener makes is recorded ``within`` the notification's type, right after its record, and may
lie inside the call that caused it.  Where the model's transition passed a hop after that
notification, with only notifications between, the call lands at the hop: ``inserted`` before the
driver starts, ``running`` before the turn starts, ``agent/error`` before the error ``turn/end``,
``discarded`` inside a clear or a cancel (the hops ``waking``, ``starting``, ``failing``,
``clearing`` and ``canceling``, spec/loop-grain.md rows 1, 2, 18 and 22); the notifications in
between are the real emit's later ones, which it delivers after the listener returns.
Otherwise the call has a reading only when the cause had written all of its durable events by
then: it is a call made right after the cause, the next command, and what the cause still owed
were notifications (a claim of several messages: the later ``claimed``), set aside until the
call's ``op-end``.  If a durable event of the cause is still owed there, no order of commands
produces the run, and the recording is unusable, saying so.
"""

from __future__ import annotations

from loopspec.log.events import SessionEvent
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import output_json
from loopspec.reproduce.engine import Engine, on_begin, on_end


def _cause(engine: Engine) -> str:
    """What the notification reports an effect of: the innermost open call, or the loop."""
    if not engine.calls:
        return "the loop's step"
    call = engine.calls[-1].end
    return f"the call {call.label!r} (its op-end on line {call.line})"


def on_notified_begin(engine: Engine, begin: r.OpBegin) -> None:
    """The call is the next command, provided the model has written all of its cause's events."""
    durable = next((item for item in engine.pending if isinstance(item, SessionEvent)), None)
    if engine.landed_at_a_hop(notes_between=True, after_note=begin.within if durable is None else None):
        durable = None  # the notification came right before a hop of the loop's own, and the call landed there
    if durable is not None and len(engine.calls) >= 2 and engine.calls[-2].interrupted:
        engine.unusable(
            f"the {begin.within} listener's call {begin.label!r} is made inside {_cause(engine)}, itself made at a "
            "point inside another call, and not at one of a waking send's own hops: the model runs such a call "
            "whole, with no point of its own (decisions G30, not modelled)")
    if durable is not None:
        engine.unusable(
            f"the {begin.within} listener's call {begin.label!r} is made before {_cause(engine)} has written "
            f"everything the model writes in one command (next: {output_json(durable)}): the notification "
            "came before its cause's durable effects were complete, so no order of whole commands gives "
            "this run")
    engine.set_aside.append(tuple(engine.pending))
    engine.pending.clear()
    on_begin(engine, begin)


def on_notified_end(engine: Engine, end: r.OpEnd) -> None:
    """The call returned: the notifications its cause still owes come next."""
    on_end(engine, end)
    engine.pending.extend(engine.set_aside.pop())
