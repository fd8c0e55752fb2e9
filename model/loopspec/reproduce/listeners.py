"""Listener windows and the calls a listener makes inside them (decisions.md E5).

The pre-step and the turn-stopping listeners are one await point each, which the model answers
with one command: ``Decide`` with a listener chain, ``TurnStopping`` with actions.  A recording
shows the calls such a listener made one by one, as ``op-begin``/``op-end`` pairs whose
``within`` names the hook, inside the hook's window (``invoked`` up to ``decided``/``threw`` or
``returned``/``threw``), each followed by what it wrote and emitted.  So at the window's first
call the engine reads the window ahead, applies the one command and then holds each part of the
model's output to the records of that part:

* pre-step — the calls are the ``before`` actions of an outermost listener that returns the
  recorded decision (a keeping ``Wrap`` when that decision is the default's) or throws the
  recorded error (DECIDE-3, DECIDE-7).  The innermost default enters the claimed batch whatever
  the actions did, so the order of actions and decision is all the chain needs to say;
* turn-stopping — ``TurnStopping(actions, raises)`` (RESULT-4).

The model runs a listener's actions one after another through the table, and a refused one is
the listener throwing there; so each call's refusal, result and output are those of the same
command applied alone at that point, and a window in which the listener went on after a call
threw cannot be expressed (unusable).  The turn-stopping records also answer their await point
directly when no call was made, in place of reading it from the log (decisions.md E1).
"""

from __future__ import annotations

import attrs

from loopspec.check.live_shape import NOTIFYING
from loopspec.data.errors import CommandRefused
from loopspec.data.messages import Messages
from loopspec.log.kinds import PRE_STEP_HOOK
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.actions import Cancel, InboxEdit, ListenerActionT, Send
from loopspec.loop.phases import STOPPING
from loopspec.loop.pre_step import Throw, Veto, Wrap
from loopspec.reproduce import pre_steps
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import error_message, output_json, refusal_text, rule_of
from loopspec.reproduce.engine import TURN_STOPPING, Engine, OpenCall, compare_end, on_begin, on_end
from loopspec.reproduce.notified import on_notified_begin, on_notified_end
from loopspec.reproduce.processes import on_note

PRE_STEP = PRE_STEP_HOOK
_CLOSES: dict[str, tuple[type, ...]] = {
    PRE_STEP: (r.PreStepDecided, r.PreStepThrew),
    TURN_STOPPING: (r.TurnStoppingReturned, r.TurnStoppingThrew),
}


@attrs.frozen
class Part:
    """One call of the listener as the model makes it at that point: its value or refusal, its output."""

    value: Messages | bool | None
    refused: str | None
    outputs: int


@attrs.define
class Listening:
    """A listener answered at its first call: its parts, the answer's own output after them, the calls done."""

    hook: str
    parts: tuple[Part, ...]
    after: int
    done: int = 0

    def owed(self) -> int:
        """What the model emitted that the records from here to the window's end still have to show."""
        return sum(p.outputs for p in self.parts[self.done:]) + self.after


def _owed(engine: Engine, listening: Listening, what: str) -> None:
    owed = listening.owed()
    if len(engine.pending) > owed:
        item = engine.pending[0]
        engine.fail(f"the model emitted this before {what}", what, output_json(item), rule_of(item))
    if len(engine.pending) < owed:
        engine.fail(f"{what}: the records before it show output the model emits for a later call of the "
                    f"{listening.hook} listener or for its answer", f"{owed} more outputs", len(engine.pending),
                    "NOTIFY-4")


def _stopping_awaited(engine: Engine, record: r.TurnStoppingInvoked | r.TurnStoppingReturned
                      | r.TurnStoppingThrew, what: str) -> None:
    run = engine.agent.running
    if engine.agent.phase != STOPPING or run is None:
        engine.fail(f"{what}: the model is not awaiting the turn-stopping listeners", {"turn": record.turn},
                    {"phase": engine.agent.phase}, "RESULT-4")
    if run.turn != record.turn:
        engine.fail(f"{what}: the turn", record.turn, run.turn, "RESULT-4")


def _window_end(engine: Engine, hook: str) -> r.ListenerClose:
    for record in engine.rec.records[engine.index + 1:]:
        if isinstance(record, _CLOSES[hook]):
            assert isinstance(record, r.ListenerClose)
            return record
        if isinstance(record, r.Note) and record.crash is not False:  # a crash, or the next process
            break
    engine.unusable(f"the {hook} listener that makes this call never returns: its answer cannot be told")


def _actions(engine: Engine, hook: str, close: r.ListenerClose) -> tuple[ListenerActionT, ...]:
    """The window's calls as listener actions; a call that threw must be the listener's last act."""
    records = engine.rec.records
    calls = [i for i in range(engine.index, records.index(close)) if isinstance(b := records[i], r.OpBegin)
             and b.within == hook]
    actions: list[ListenerActionT] = []
    for n, index in enumerate(calls):
        command, end = engine.call_command(index)
        if not isinstance(command, Send | InboxEdit | Cancel):
            engine.unusable(f"{end.op!r} on line {records[index].line} is a probe, not a call a listener makes")
        last = n == len(calls) - 1 and isinstance(close, r.PreStepThrew | r.TurnStoppingThrew)
        if end.threw is not None and not last:
            engine.unusable(f"the {hook} listener goes on after its call on line {records[index].line} threw; "
                            "a listener's refused call ends the listener (its throw), as the model runs it")
        actions.append(command)
    return tuple(actions)


def _parts(engine: Engine, actions: tuple[ListenerActionT, ...]) -> tuple[Part, ...]:
    """Each action applied alone, in order, as the table runs a listener's actions (``run_actions``)."""
    agent, parts = engine.agent, []
    for action in actions:
        try:
            transition = lifecycle.step(agent, action)
        except CommandRefused as refused:
            parts.append(Part(None, refused.message, 0))
            break
        parts.append(Part(transition.value, None, len(transition.trace)))
        agent = transition.agent
    return tuple(parts)


def _answer(engine: Engine, actions: tuple[ListenerActionT, ...], close: r.ListenerClose) -> cmd.Command:
    if isinstance(close, r.PreStepThrew):
        return cmd.Decide((Throw(error_message(close.error), before=actions),))
    if isinstance(close, r.PreStepDecided):
        decision = pre_steps.recorded_decision(engine, close, any(isinstance(a, cmd.Cancel) for a in actions))
        return cmd.Decide((Wrap(before=actions) if decision is None else Veto(decision, before=actions),))
    raises = error_message(close.error) if isinstance(close, r.TurnStoppingThrew) else None
    return cmd.TurnStopping(actions, raises)


def _listen(engine: Engine, hook: str) -> Listening:
    """The window's first call began: answer the listener's await point with all its calls."""
    close = _window_end(engine, hook)
    if isinstance(close, r.PreStepDecided | r.PreStepThrew):
        pre_steps.proposed(engine, close, "a pre-step listener's call")
    else:
        _stopping_awaited(engine, close, "a turn-stopping listener's call")
    engine.check_quiet(f"the {hook} listener's first call began")
    actions = _actions(engine, hook, close)
    parts = _parts(engine, actions)
    engine.answer(_answer(engine, actions, close))
    listening = Listening(hook, parts, len(engine.pending) - sum(p.outputs for p in parts))
    engine.listening = listening
    return listening


def on_call_begin(engine: Engine, begin: r.OpBegin) -> None:
    if begin.within is None:
        on_begin(engine, begin)
        return
    if begin.within in NOTIFYING:
        on_notified_begin(engine, begin)
        return
    current = engine.listening
    answered = isinstance(current, Listening) and current.hook == begin.within
    listening = current if answered and isinstance(current, Listening) else _listen(engine, begin.within)
    _owed(engine, listening, f"the call {begin.label!r} began")
    engine.check_next_seq(begin.next_seq)
    end = engine.rec.records[engine.ends[engine.index]]
    assert isinstance(end, r.OpEnd)
    if listening.done >= len(listening.parts):  # the model's listener threw at an earlier call
        engine.fail(f"{begin.op} made after the listener's call was refused", {"call": begin.label}, None,
                    "DECIDE-3")
    part = listening.parts[listening.done]
    engine.calls.append(OpenCall(end, engine.position, part.value))
    if part.refused is not None and end.threw != refusal_text(part.refused):
        expected = {"threw": end.threw} if end.threw is not None else {"result": "returned"}
        engine.fail(f"{begin.op} refused", expected, {"threw": refusal_text(part.refused)}, "DECIDE-3",
                    line=end.line)
    if part.refused is None and end.threw is not None:
        engine.fail(f"{begin.op} did not throw", {"threw": end.threw}, {"result": "returned"}, "DECIDE-3",
                    line=end.line)


def on_call_end(engine: Engine, end: r.OpEnd) -> None:
    if end.within is None:
        on_end(engine, end)
        return
    if end.within in NOTIFYING:
        on_notified_end(engine, end)
        return
    listening = engine.listening
    assert isinstance(listening, Listening)
    call = engine.calls.pop()
    listening.done += 1
    _owed(engine, listening, f"the call {end.label!r} returned")
    compare_end(engine, end, call)


def _closed(engine: Engine, hook: str, record: r.ListenerClose) -> bool:
    """The window ends; True when the listener's answer was applied at its first call (and is now whole)."""
    engine.windows.discard(hook)
    listening = engine.listening
    if not isinstance(listening, Listening) or listening.hook != hook:
        return False
    _owed(engine, listening, f"the {hook} listener ended")
    engine.check_next_seq(record.next_seq)
    refused = listening.parts[-1].refused if listening.parts else None
    if isinstance(record, r.PreStepThrew | r.TurnStoppingThrew) and refused is not None and \
            record.error != refusal_text(refused):  # the listener throws its refused call's error
        engine.fail(f"the error the {hook} listener threw", record.error, refusal_text(refused),
                    "DECIDE-7" if hook == PRE_STEP else "RESULT-4")
    engine.listening = None
    return True


def on_pre_step_invoked(engine: Engine, record: r.PreStepInvoked) -> None:
    pre_steps.on_invoked(engine, record)
    engine.windows.add(PRE_STEP)


def on_pre_step_decided(engine: Engine, record: r.PreStepDecided) -> None:
    if not _closed(engine, PRE_STEP, record):
        pre_steps.on_decided(engine, record)


def on_pre_step_threw(engine: Engine, record: r.PreStepThrew) -> None:
    if not _closed(engine, PRE_STEP, record):
        pre_steps.on_threw(engine, record)


def on_stopping_invoked(engine: Engine, record: r.TurnStoppingInvoked) -> None:
    engine.check_quiet("the turn-stopping listeners were invoked")
    engine.check_next_seq(record.next_seq)
    _stopping_awaited(engine, record, "turn-stopping invoked")
    engine.windows.add(TURN_STOPPING)


def on_stopping_ended(engine: Engine, record: r.TurnStoppingReturned | r.TurnStoppingThrew) -> None:
    if _closed(engine, TURN_STOPPING, record):
        return
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
