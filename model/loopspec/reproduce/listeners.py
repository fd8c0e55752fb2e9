"""Listener windows and the calls a listener makes inside them (decisions.md E5, G24).

The pre-step and the turn-stopping listeners are one await point each.  A recording shows the
calls such a listener made one by one, as ``op-begin``/``op-end`` pairs whose ``within`` names the
hook, inside the hook's window (``invoked`` up to ``decided``/``threw`` or ``returned``/``threw``),
each followed by what it wrote and emitted.  The model runs a listener's actions through the
table as commands of their own, exactly as it runs a call made at that await point from outside,
so the engine applies each such call as a command where it stands in the recording (a scenario's
calls inside the window fall in between, in their order), and answers the await point when the
window closes:

* pre-step — ``decided`` and ``threw`` are the ``Decide`` answer the record names
  (:mod:`loopspec.reproduce.pre_steps`): the innermost default enters the claimed batch whatever
  the calls did, so the calls, then the decision, is all the chain needs to say (DECIDE-3);
* turn-stopping — ``TurnStopping(raises=...)`` once the calls are done (RESULT-4).

A call the model refuses is refused here as it was in the recording (its ``op-end`` threw); the
listener may catch that and go on, which the command language's listeners cannot say but a
recording can.  A notification listener's call inside one of these calls lands where the real
agent made it, as everywhere (:mod:`loopspec.reproduce.notified`).  The turn-stopping records
also answer their await point directly, in place of reading it from the log (decisions.md E1).
"""

from __future__ import annotations

from loopspec.check.live_shape import NOTIFYING
from loopspec.log.kinds import PRE_STEP_HOOK
from loopspec.loop import commands as cmd
from loopspec.loop.phases import DECIDING, STOPPING
from loopspec.reproduce import pre_steps
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import error_message
from loopspec.reproduce.engine import TURN_STOPPING, Engine, on_begin, on_end
from loopspec.reproduce.notified import on_notified_begin, on_notified_end
from loopspec.reproduce.processes import on_note

# The await point each listener hook's calls land at (its window is open only there).
_AWAITED = {PRE_STEP_HOOK: DECIDING, TURN_STOPPING: STOPPING}


def _stopping_awaited(engine: Engine, record: r.TurnStoppingInvoked | r.TurnStoppingReturned
                      | r.TurnStoppingThrew, what: str) -> None:
    run = engine.agent.running
    if engine.agent.phase != STOPPING or run is None:
        engine.fail(f"{what}: the model is not awaiting the turn-stopping listeners", {"turn": record.turn},
                    {"phase": engine.agent.phase}, "RESULT-4")
    if run.turn != record.turn:
        engine.fail(f"{what}: the turn", record.turn, run.turn, "RESULT-4")


def on_call_begin(engine: Engine, begin: r.OpBegin) -> None:
    if begin.within in NOTIFYING:
        on_notified_begin(engine, begin)
        return
    if begin.within is not None and engine.agent.loop_phase != _AWAITED.get(begin.within):
        engine.fail(f"the {begin.within} listener's call {begin.label!r}: the model is not awaiting that hook",
                    {"call": begin.label}, {"phase": engine.agent.phase}, "DECIDE-3")
    on_begin(engine, begin)


def on_call_end(engine: Engine, end: r.OpEnd) -> None:
    if end.within in NOTIFYING:
        on_notified_end(engine, end)
        return
    on_end(engine, end)


def on_pre_step_invoked(engine: Engine, record: r.PreStepInvoked) -> None:
    pre_steps.on_invoked(engine, record)
    engine.windows.add(PRE_STEP_HOOK)


def on_pre_step_decided(engine: Engine, record: r.PreStepDecided) -> None:
    engine.windows.discard(PRE_STEP_HOOK)
    pre_steps.on_decided(engine, record)


def on_pre_step_threw(engine: Engine, record: r.PreStepThrew) -> None:
    engine.windows.discard(PRE_STEP_HOOK)
    pre_steps.on_threw(engine, record)


def on_stopping_invoked(engine: Engine, record: r.TurnStoppingInvoked) -> None:
    engine.check_quiet("the turn-stopping listeners were invoked")
    engine.check_next_seq(record.next_seq)
    _stopping_awaited(engine, record, "turn-stopping invoked")
    engine.windows.add(TURN_STOPPING)


def on_stopping_ended(engine: Engine, record: r.TurnStoppingReturned | r.TurnStoppingThrew) -> None:
    engine.windows.discard(TURN_STOPPING)
    threw = isinstance(record, r.TurnStoppingThrew)
    engine.check_quiet(f"the turn-stopping listeners {'threw' if threw else 'returned'}")
    engine.check_next_seq(record.next_seq)
    _stopping_awaited(engine, record, "turn-stopping ended")
    raises = error_message(record.error) if isinstance(record, r.TurnStoppingThrew) else None
    engine.answer(cmd.TurnStopping(raises=raises))


def on_listened_note(engine: Engine, note: r.Note) -> None:
    """A crash ends every listener window: a killed process's listeners never return.  A graceful
    shutdown ends none: its teardown waits for them (LOG-13), and the next process's note finds
    them closed (the nesting walk saw to it)."""
    if note.crash is True:
        engine.windows.clear()
    on_note(engine, note)
