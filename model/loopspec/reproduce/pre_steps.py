"""The pre-step records: the waterfall's observations and decisions (spec area DECIDE).

``invoked`` is compared with the model's claimed batch, turn and proposed step (DECIDE-1).
``decided`` and ``threw`` are the model's ``Decide`` answer, as the outermost listener:

* ``reject`` → a veto with ``reject`` (DECIDE-5);
* ``enter`` of exactly the claimed batch → the bare default (DECIDE-3);
* ``enter`` of other ids or other bodies (a listener rewrote the batch) → a veto with that
  ``enter``: each message's body is read from the ``user/message`` event the step wrote for it
  (the record names ids only), a claimed one the step did not write keeps its claimed body;
* ``threw`` → a listener throwing the error's message (DECIDE-7).

What listeners did to the inbox on the way shows as edits outside any call
(:func:`loopspec.reproduce.answers.outside_edit`).
"""

from __future__ import annotations

from loopspec.data.json_value import JsonObject
from loopspec.data.messages import UserMessage
from loopspec.log.kinds import STEP_END, TURN_END, USER_MESSAGE
from loopspec.loop import commands as cmd
from loopspec.loop.phases import DECIDING
from loopspec.loop.pre_step import Enter, PreStepDecision, Reject, Throw, Veto
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import error_message
from loopspec.reproduce.engine import Engine


def proposed(engine: Engine, record: r.PreStepInvoked | r.PreStepDecided | r.PreStepThrew, what: str) -> None:
    run = engine.agent.running
    expected = {"turn": record.turn, "step": record.step}
    if engine.agent.phase != DECIDING or run is None:
        engine.fail(f"{what}: the model is not awaiting a pre-step decision", expected,
                    {"phase": engine.agent.phase}, "DECIDE-1")
    if (run.turn, run.step + 1) != (record.turn, record.step):
        engine.fail(f"{what}: the proposed turn and step", expected, {"turn": run.turn, "step": run.step + 1},
                    "DECIDE-1")


def on_invoked(engine: Engine, record: r.PreStepInvoked) -> None:
    engine.prepare(record)
    engine.check_quiet("the pre-step was invoked")
    engine.check_next_seq(record.next_seq)
    proposed(engine, record, "pre-step invoked")
    batch = [m.id.value for m in engine.agent.running.batch] if engine.agent.running else []
    if batch != list(record.message_ids):
        engine.fail("the claimed batch the pre-step sees", list(record.message_ids), batch, "CLAIM-1")


def recorded_decision(engine: Engine, record: r.PreStepDecided, aborting: bool = False) -> PreStepDecision | None:
    """The recorded decision, or ``None`` when it is the bare default's (it enters the claimed batch).

    ``aborting``: the listener cancelled the turn before deciding (its window holds a cancel).
    """
    if record.kind == "reject":
        return Reject()
    run = engine.agent.running
    if aborting or (run is not None and run.aborted is not None):
        # CANCEL-3: an aborted turn enters nothing, whatever the decision; a message it names may
        # have no body anywhere (a listener's own, never written), and none is needed.
        return None
    batch = run.batch if run is not None else ()
    claimed = {m.id.value: m for m in batch}
    # The decided record names ids only, and a listener may keep an id but change its body: what
    # the step entered is in its user/message events, one per entered message in decision order
    # (DECIDE-8), so an id entered twice keeps each of its bodies; a message the step did not write
    # (cut short) keeps its claimed body.
    written = _entered_bodies(engine)
    first: dict[object, JsonObject] = {}
    for each in written:
        first.setdefault(each.get("id"), each)
    entered: list[UserMessage] = []
    for index, mid in enumerate(record.message_ids):
        in_order = index < len(written) and written[index].get("id") == mid
        body = written[index] if in_order else first.get(mid)
        if body is not None:
            try:
                entered.append(UserMessage.from_frozen(body))
            except ValueError as err:
                engine.unusable(f"the user/message of {mid!r} is not a message: {err}")
        elif mid in claimed:
            entered.append(claimed[mid])
        else:
            # A listener's own message that no event ever carries: the step never entered it (a
            # cancel landed after the decision, at the hop decision-returned), so its body is never
            # observed and any body gives the same run.  Should the model enter it after all, its
            # user/message is a difference the recording's log shows.
            entered.append(UserMessage.create(mid))
    return None if tuple(entered) == tuple(batch) else Enter(tuple(entered))


def _entered_bodies(engine: Engine) -> list[JsonObject]:
    """The bodies of the ``user/message`` events the decided step writes, in the order written."""
    written: list[JsonObject] = []
    for event in engine.rec.events[engine.position:]:
        if event.type in (STEP_END, TURN_END):
            break  # the step's entry is written before its end
        if event.type == USER_MESSAGE and isinstance(event.data, JsonObject):
            written.append(event.data)
    return written


def on_decided(engine: Engine, record: r.PreStepDecided) -> None:
    engine.check_quiet("the pre-step decided")
    engine.check_next_seq(record.next_seq)
    proposed(engine, record, "pre-step decided")
    decision = recorded_decision(engine, record)
    engine.answer(cmd.Decide() if decision is None else cmd.Decide((Veto(decision),)))


def on_threw(engine: Engine, record: r.PreStepThrew) -> None:
    engine.check_quiet("the pre-step listener threw")
    engine.check_next_seq(record.next_seq)
    proposed(engine, record, "pre-step threw")
    engine.answer(cmd.Decide((Throw(error_message(record.error)),)))  # DECIDE-7
