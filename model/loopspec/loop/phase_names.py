"""The names of the loop's phases, choice points and hops (spec area INPUT), and nothing else.

:mod:`loopspec.loop.phases` (which re-exports them) describes the lifecycle table's rows with
frozen attrs classes; the log checker names three of these phases for its own (``check.state``)
and imports them from here, so a plain ``loopspec check`` never loads attrs (about 30 ms of
start-up, docs/performance.md).
"""

from __future__ import annotations

IDLE, DECIDING, STEPPING, STOPPING = "idle", "deciding", "stepping", "stopping"
BOUNDARY, TURN_ENDED = "boundary", "turn-ended"
# Hops (spec/loop-grain.md): points the loop passes on its own, a few microtasks long, where a call
# can still land.  The waterfall settled, the pre-step has not checked for an abort (row 6); the
# pre-step returned its decision, the turn has not acted on it (row 6); a turn ended and chains,
# its successor not started (row 19); a turn ended and does not chain, the agent not idle yet (row 20);
# the turn failed and emitted agent/error, whose listeners act before its turn/end (row 18); a
# driver started and emitted its running status, whose listeners act before its turn/start (row 2);
# a waking send from idle inserted its message, whose inserted listeners act before the driver
# starts, the agent still idle (row 1); a driver a call started from inside another call (at a
# point of row 22) has claimed and awaits the system prompt once the outer call has returned, its
# pre-step listeners not called yet (row 4): the caller's next call lands here, and the loop ends
# the turn aborted if a call aborted it; a driver that latched a wake went idle and emitted its
# idle status, whose listeners act before it replays the wake (if input is pending by then, row 21).
DECIDED, DECISION_RETURNED, CHAINING, ENDING = "decided", "decision-returned", "chaining", "ending"
FAILING, STARTING, WAKING, PROMPTING, REPLAYING = "failing", "starting", "waking", "prompting", "replaying"
# Two hops lie inside a call rather than in the loop (row 22): a clear that has discarded next-step
# and not yet next-turn, whose discarded listeners act there; a cancel whose clear is done and whose
# abort is not.  The agent stands in the phase the call came in (the call's underlying phase), and
# the call's rest takes it back there (RESUME, a row's next that names no phase of its own).
CLEARING, CANCELING = "clearing", "canceling"
RESUME = "resume"
PHASES = (IDLE, DECIDING, STEPPING, STOPPING)
CHOICES = (BOUNDARY, TURN_ENDED)
CALL_POINTS = (CLEARING, CANCELING)
LOOP_HOPS = (DECIDED, DECISION_RETURNED, FAILING, CHAINING, ENDING, STARTING, WAKING, PROMPTING, REPLAYING)
HOPS = (*LOOP_HOPS, *CALL_POINTS)
IDLE_PHASES = (IDLE, WAKING, REPLAYING)  # no driver runs: the status is idle
RUNNING = tuple(p for p in (DECIDING, STEPPING, STOPPING, *LOOP_HOPS) if p not in IDLE_PHASES)
