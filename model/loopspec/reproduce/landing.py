"""Where a call or an observation lands among the points a transition passed (decisions G17, G23, G26).

The model runs a command on to its next await point and notes each hop it passed (with the trace's
length there).  When the recording shows a call, a listener's call or a note while the model still
owes some of that output, the real loop was at one of those hops: the model goes back there, and
the output after the hop is the loop's going on, owed later.  These functions find the hop; the
engine (:meth:`loopspec.reproduce.engine.Engine.landed_at_a_hop`) moves the model there.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from loopspec.data.json_value import JsonObject
from loopspec.log.end_reasons import ABORTED
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import TURN_END
from loopspec.loop.phase_names import CANCELING, CLEARING, FAILING, REPLAYING, STARTING, WAKING
from loopspec.loop.state import Agent, AgentTransition
from loopspec.reproduce.compare import Output, output_json

Landing = tuple[Agent, tuple[Output, ...]]
# Hops the real loop passes inside a notification's emit, with no await before what follows (the
# inserted, running, agent/error, idle and discarded emits: loop-grain rows 1, 2, 18, 21, 22): only
# that notification's listeners can call there, never a caller from outside.
LISTENERS_ONLY = (WAKING, STARTING, FAILING, REPLAYING, CLEARING, CANCELING)


def hop_at(last: AgentTransition | None, pending: Sequence[Output], later_events: Sequence[SessionEvent],
           notes_between: bool = False, after_note: str | None = None, outside: bool = False) -> Landing | None:
    """The agent at the hop where the recording stands, and what the transition still owes after it.

    ``pending`` is what ``last`` emitted that the recording has not shown yet; ``later_events`` the
    recorded log from the model's position on.  A hop exactly where the recording stands owes
    nothing after it.  With ``notes_between`` (a notification listener's call) the hop may come
    later, when only notifications lie between: the real emit delivers those after the listener
    returns, so they stay owed.  With ``after_note`` (that listener's notification type, when
    nothing durable is owed) the hop may also lie after everything the transition emitted, right
    after such a notification (a cancel's abort after its last discard; a latched wake's replay
    after the idle status).  With ``outside`` (a call no listener makes, a note, a shutdown) a hop
    only a notification's listeners reach is no landing place (:data:`LISTENERS_ONLY`)."""
    if last is not None and outside:
        last = attrs.evolve(last, hops=tuple((at, agent) for at, agent in last.hops
                                             if agent.phase not in LISTENERS_ONLY))
    owed = len(pending)
    if last is None or owed > len(last.trace) or any(
            a is not b for a, b in zip(pending, last.trace[len(last.trace) - owed:], strict=True)):
        return None
    shown = len(last.trace) - owed
    if not owed:
        final = last.trace[-1] if last.trace else None
        if after_note is None or final is None or isinstance(final, SessionEvent) or \
                output_json(final).get("type") != after_note:
            return None
        at_the_end = [agent for at, agent in last.hops if at == shown]
        return (at_the_end[0], ()) if at_the_end else None
    hops = [agent for at, agent in last.hops if at == shown]
    if hops:
        # Two hops with nothing emitted between (the waterfall settled; the pre-step returned)
        # differ only for a reject or an empty entry and a cancel landing there: the recorded
        # end says which.
        return (hops[0] if len(hops) > 1 and _aborted_end_next(later_events) else hops[-1]), ()
    later = next(((at, agent) for at, agent in last.hops if at > shown), None) if notes_between else None
    if later is None or any(isinstance(item, SessionEvent) for item in last.trace[shown:later[0]]):
        return None
    return later[1], tuple(last.trace[shown:later[0]])


def _aborted_end_next(events: Sequence[SessionEvent]) -> bool:
    for event in events:
        if event.type == TURN_END:
            reason = event.data.get("reason") if isinstance(event.data, JsonObject) else None
            return isinstance(reason, JsonObject) and reason.get("kind") == ABORTED
    return False
