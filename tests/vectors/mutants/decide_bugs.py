"""Mutants of the pre-step decision (spec area DECIDE): the waterfall, its outcome and its failures."""

from __future__ import annotations

import attrs

from loopspec.data.messages import InboxTarget, Messages
from loopspec.data.notifications import AgentError
from loopspec.inbox import operations as ops
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as model_lifecycle
from loopspec.loop import pre_step as ls
from loopspec.loop import preludes as model_preludes
from loopspec.loop import records as rec
from loopspec.loop.effects import EFFECTS
from loopspec.loop.phases import BOUNDARY, STEPPING, Row
from loopspec.loop.preludes import PRELUDES, Actions
from loopspec.loop.state import RunningTurn
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import Mutant, Patch, effect_patch, guard_patch, prelude_patch, table_patch
from vectors.mutants.witnesses import data, events, is_claim, notes, splices, types

model_run_chain = ls.run_chain
model_run_pre_step = PRELUDES["run-pre-step"]
model_perform_actions = model_lifecycle.perform_actions
model_end_turn = EFFECTS["end-turn"]
model_enter_messages = EFFECTS["enter-messages"]
model_transform = ls._transform


def _step_without_decision(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a continuation with nothing to claim opens its step without asking the listeners (DECIDE-1)."""
    out: list[Row] = []
    for row in table:
        if row.key == "boundary/auto/next-boundary":
            out.append(Row(BOUNDARY, "auto", "nothing-to-claim", ("step-start",), STEPPING, ()))
        out.append(row)
    return tuple(out)


def _chain_enters_the_batch(
    claimed: Messages, listeners: tuple[ls.Listener, ...], payload: ls.PreStepPayload = ls.FIRST_BOUNDARY,
) -> ls.ChainRun:
    """Bug: an enter decision means "go on": the claimed batch is entered whatever messages it names (DECIDE-2)."""
    run = model_run_chain(claimed, listeners, payload)
    return attrs.evolve(run, decision=ls.Enter(claimed)) if isinstance(run.decision, ls.Enter) else run


def _chain_innermost_first(
    claimed: Messages, listeners: tuple[ls.Listener, ...], payload: ls.PreStepPayload = ls.FIRST_BOUNDARY,
) -> ls.ChainRun:
    """Bug: the listeners are called in registration order reversed (DECIDE-3: outermost first)."""
    return model_run_chain(claimed, listeners[::-1], payload)


def _chain_transforms_on_the_way_in(
    claimed: Messages, listeners: tuple[ls.Listener, ...], payload: ls.PreStepPayload = ls.FIRST_BOUNDARY,
) -> ls.ChainRun:
    """Bug: each wrapping listener's transform is applied outermost first instead of as next() returns (DECIDE-3).

    The transforms are collected on the way in and applied to the innermost result at the end, so
    every wrap's ``next()`` returns that untransformed result (and its conditional actions follow it).
    """
    bare = tuple(attrs.evolve(x, transform=ls.Keep()) if isinstance(x, ls.Wrap) else x for x in listeners)
    run = model_run_chain(claimed, bare, payload)
    if run.decision is None:
        return run
    decision = run.decision
    for listener in listeners:
        if not listener.when.matches(payload):
            continue  # passes through, as in the model's descent
        if not isinstance(listener, ls.Wrap):
            break
        decision = model_transform(decision, listener.transform)
    return attrs.evolve(run, decision=decision)


def _decision_differs(expected: Json, actual: Json) -> bool:
    """Both took a decision and it (or the listeners' actions on the way) came out otherwise."""
    def outcome(o: Json) -> object:
        return h.entered(o), h.reasons(o), types(o), [(s.get("target"), s.get("start")) for s in splices(o)], notes(o)

    return h.accepted(expected) and h.accepted(actual) and outcome(expected) != outcome(actual)


def _claimed_in_the_open_turn(o: Json) -> int:
    """Claim records before any turn/start of the observation (so within the turn that was open)."""
    got = events(o)
    opened = next((i for i, e in enumerate(got) if e.get("type") == "turn/start"), len(got))
    return sum(1 for e in got[:opened] if e.get("type") == "agent/inbox/spliced" and is_claim(data(e)))


def _nothing_to_claim(work: Work) -> bool:
    return not work.agent.inbox.next_step


def _pre_step_takes_late_input(work: Work, command: cmd.Command, run: RunningTurn) -> Actions:
    """Bug: after the listeners ran, next-step is claimed again into the current batch (DECIDE-4)."""
    # The listeners and their actions first, as the model's driver runs them.
    refused = model_perform_actions(work, model_run_pre_step(work, command, run))
    if refused is not None:
        work.decision, work.raised = None, refused
    decision = work.decision
    if isinstance(decision, ls.Enter) and work.raised is None and work.agent.inbox.next_step:
        late = ops.claim(work.agent.inbox, InboxTarget.NEXT_STEP, work.run.turn)
        work.commit(late)
        work.decision = ls.Enter(decision.messages + late.removed)
    return ()


def _end_turn_keeps_step_reason(work: Work, kind: str) -> None:
    """Bug: a reject after a finished step ends the turn with that step's reason, not blocked (DECIDE-5)."""
    if kind == "blocked" and work.run.turn_ends is not None:
        kind = "finished"
    model_end_turn(work, kind)


def _any_empty_entry_completes(work: Work) -> bool:
    """Bug: every empty entry ends the turn completed, also after a tool step or max-tokens (DECIDE-6)."""
    return isinstance(work.decision, ls.Enter) and not work.decision.messages


def _error_names_proposed_step(work: Work, _: str) -> None:
    """Bug: a listener failure reports the step being proposed, not the last opened one (DECIDE-7)."""
    step = work.run.step + (0 if work.run.step_open else 1)
    work.notify(AgentError(work.run.turn, step, rec.error_failure(work.raised or "", work.code)))


def _perform_actions_swallowing(work: Work, actions: Actions) -> str | None:
    """Bug: an action the model refuses inside a listener is skipped and the listener goes on (DECIDE-7)."""
    for action in actions:
        model_perform_actions(work, (action,))  # a refusal is dropped; the next action runs
    return None


def _enter_backwards(work: Work, arg: str) -> None:
    """Bug: entered messages are written last to first (DECIDE-8: decision order)."""
    decision = work.decision
    assert isinstance(decision, ls.Enter)
    work.decision = ls.Enter(decision.messages[::-1])
    model_enter_messages(work, arg)
    work.decision = decision


def _reject_discards_staged_input(work: Work, kind: str) -> None:
    """Bug: a reject drops the input staged in next-step during the decision, as if it belonged to the
    vetoed step (DECIDE-9: a reject leaves it queued; only an entering decision may fold it in)."""
    staged = work.agent.inbox.next_step
    if kind == "blocked" and staged:
        work.commit(ops.splice(work.agent.inbox, InboxTarget.NEXT_STEP, 0, len(staged)))
    model_end_turn(work, kind)


def _staged_input_dropped(expected: Json, actual: Json) -> bool:
    """Where the model ends the turn blocked, so does the mutant, after removing pending next-step input."""
    def dropped(o: Json) -> int:
        return sum(1 for s in splices(o) if s.get("target") == "next-step" and "removedCount" in s
                   and not is_claim(s))

    blocked = "blocked" in h.end_kinds(expected) and "blocked" in h.end_kinds(actual)
    return blocked and dropped(actual) > dropped(expected)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("continuation-skips-decision", "DECIDE-1", "a continuation with nothing claimed skips the decision",
           (table_patch(_step_without_decision), guard_patch({"nothing-to-claim": _nothing_to_claim})),
           lambda e, a: "step/start" in types(a) and "step/start" not in types(e)),
    Mutant("enter-ignores-messages", "DECIDE-2", "an enter decision enters the claimed batch, not its messages",
           (Patch(model_preludes, "run_chain", _chain_enters_the_batch),),
           lambda e, a: h.of_type(e, "user/message") != h.of_type(a, "user/message")),
    Mutant("listeners-innermost-first", "DECIDE-3", "listeners run innermost first",
           (Patch(model_preludes, "run_chain", _chain_innermost_first),), _decision_differs),
    Mutant("transforms-outermost-first", "DECIDE-3", "transforms apply outermost first",
           (Patch(model_preludes, "run_chain", _chain_transforms_on_the_way_in),), _decision_differs),
    Mutant("listener-input-joins-batch", "DECIDE-4", "input sent during the decision is claimed into its batch",
           (prelude_patch({"run-pre-step": _pre_step_takes_late_input}),),
           lambda e, a: _claimed_in_the_open_turn(a) > _claimed_in_the_open_turn(e)),
    Mutant("later-reject-keeps-step-reason", "DECIDE-5", "a reject at a later boundary ends with the step's reason",
           (effect_patch({"end-turn": _end_turn_keeps_step_reason}),),
           lambda e, a: "blocked" in h.end_kinds(e) and "blocked" not in h.end_kinds(a)),
    Mutant("empty-entry-always-completes", "DECIDE-6", "every empty entry ends the turn completed",
           (guard_patch({"empty-first-entry": _any_empty_entry_completes}),),
           lambda e, a: "completed" in h.end_kinds(a) and (h.end_kinds(e) != h.end_kinds(a) or types(e) != types(a))),
    Mutant("agent-error-proposed-step", "DECIDE-7", "a listener failure reports the proposed step",
           (effect_patch({"agent-error": _error_names_proposed_step}),),
           lambda e, a: [n.get("step") for n in h.note_objects(e, "agent/error")] != [
               n.get("step") for n in h.note_objects(a, "agent/error")]),
    Mutant("listener-refusal-swallowed", "DECIDE-7", "an action refused inside a listener is skipped",
           (Patch(model_lifecycle, "perform_actions", _perform_actions_swallowing),),
           h.refused_in_listener),
    Mutant("entered-backwards", "DECIDE-8", "entered messages are written last to first",
           (effect_patch({"enter-messages": _enter_backwards}),),
           lambda e, a: sorted(map(str, h.entered(e))) == sorted(map(str, h.entered(a)))
           and h.entered(e) != h.entered(a)),
    Mutant("reject-drops-staged-input", "DECIDE-9", "a reject discards the input staged during the decision",
           (effect_patch({"end-turn": _reject_discards_staged_input}),), _staged_input_dropped),
)
