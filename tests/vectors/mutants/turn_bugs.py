"""Mutants of input handling, turns and steps (spec areas INPUT, TURN, STEP).

Most rewrite one row of the lifecycle table (another effect order, a missing effect, an extra
row) or wrap one named effect; the rest of the table stays the model's.
"""

from __future__ import annotations

import contextlib

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as model_lifecycle
from loopspec.loop.effects import EFFECTS
from loopspec.loop.phases import DECIDING, RUNNING, STEPPING, Row
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.handler import Mutant, Patch, effect_patch, table_patch, with_effects
from vectors.mutants.witnesses import notes, splices, types

model_classify = model_lifecycle.classify
model_insert = EFFECTS["insert"]
model_reload = EFFECTS["reload"]
model_end_turn = EFFECTS["end-turn"]
model_turn_start = EFFECTS["turn-start"]


def _empty_first_entry_enters(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: an empty entry at the first boundary is entered like any other (STEP-4)."""
    enter = next(row for row in table if row.key == "decision-returned/auto/enter")
    return tuple(attrs.evolve(row, effects=enter.effects, next=enter.next)
                 if row.key == "decision-returned/auto/empty-first-entry" else row for row in table)


def _classify_inject_wakes(command: cmd.Command) -> str:
    """Bug: every send to next-step wakes, so inject behaves like steer (INPUT-1)."""
    if isinstance(command, cmd.Send) and command.target.value == "next-step":
        return "send-wake"
    return model_classify(command)


def _new_turn(expected: Json, actual: Json) -> bool:
    return types(actual).count("turn/start") > types(expected).count("turn/start")


def _turn_inside_turn(expected: Json, actual: Json) -> bool:
    """A turn starts while one is open: directly, or a listener's send did, so the answer is refused."""
    return _new_turn(expected, actual) or (h.before(actual, "turn/start", "turn/end") and not h.before(
        expected, "turn/start", "turn/end")) or (h.accepted(expected) and h.refused(actual, "INPUT-4"))


def _inject_woke(expected: Json, actual: Json) -> bool:
    """A turn started, or (after an abort) the inject was redirected like a waking send."""
    targets = [[s.get("target") for s in splices(o)] for o in (expected, actual)]
    return _new_turn(expected, actual) or targets[0].count("next-turn") < targets[1].count("next-turn")


def _status_after_claim(expected: Json, actual: Json) -> bool:
    got = notes(actual)
    return sorted(got) == sorted(notes(expected)) and "agent/status" in got and "agent/inbox/claimed" in got \
        and got.index("agent/inbox/claimed") < got.index("agent/status")


def _insert_ignoring_refusal(work: Work, arg: str) -> None:
    """Bug: a refused insertion is logged and ignored, so a waking send still wakes (INPUT-3)."""
    with contextlib.suppress(CommandRefused):
        model_insert(work, arg)


def _ignore_decide_while_stepping(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a decision arriving while a step runs is dropped silently instead of refused (INPUT-4)."""
    return (*table, Row(STEPPING, "decide", "always", (), STEPPING, ()))


def _reload_forgets_numbering(work: Work, arg: str) -> None:
    """Bug: the reloaded agent counts turns from 0 again (TURN-1)."""
    model_reload(work, arg)
    work.agent = attrs.evolve(work.agent, last_turn=0)


def _numbering_differs(expected: Json, actual: Json) -> bool:
    states = h.state(expected), h.state(actual)
    if states[0] is not None and states[1] is not None:
        return states[0].get("lastTurn") != states[1].get("lastTurn")
    return [d.get("turn") for d in h.of_type(expected, "turn/start")] != [
        d.get("turn") for d in h.of_type(actual, "turn/start")]


def _wake_starts_turn(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: a waking send always starts a turn, also while one runs (TURN-2)."""
    def rewrite(row: Row) -> Row:
        if row.phase in RUNNING and row.input == "send-wake" and row.guard == "not-aborted":
            return attrs.evolve(row, effects=("insert", "turn-start", "claim-turn"), next=DECIDING)
        return row

    return tuple(map(rewrite, table))


def _end_turn_error_chains(work: Work, kind: str) -> None:
    """Bug: an error end counts as a normal exit, so queued input starts the next turn (TURN-5)."""
    model_end_turn(work, kind)
    if kind == "error":
        work.run = attrs.evolve(work.run, normal_exit=True)


def _turn_after(kind: str) -> h.Witness:
    def witness(expected: Json, actual: Json) -> bool:
        got = types(actual)
        # The model starts no turn, or starts one only through a latched wake, after idle and running
        # (a cancel and a follow-up landed before the end); the bug chains, with no status between.
        latched_only = "agent/status" in notes(expected) and "agent/status" not in notes(actual)
        return kind in h.end_kinds(actual) and "turn/start" in got and got.index("turn/start") > got.index(
            "turn/end") and ("turn/start" not in types(expected) or latched_only)

    return witness


def _turn_start_keeps_step(work: Work, arg: str) -> None:
    """Bug: a chained turn keeps counting steps from the previous turn (STEP-1)."""
    previous = work.agent.running
    model_turn_start(work, arg)
    if previous is not None:
        work.run = attrs.evolve(work.run, step=previous.step)


def _step_numbers_differ(expected: Json, actual: Json) -> bool:
    """A step/start, or an agent/error naming the last opened step, counts on from the previous turn."""
    def steps(o: Json) -> list[object]:
        return [d.get("step") for d in h.of_type(o, "step/start")] + [
            n.get("step") for n in h.note_objects(o, "agent/error")]

    return steps(expected) != steps(actual)


def _listener_reads_step(command: Json) -> bool:
    """A decide with a listener that acts only at a given step (``when.step``): its payload carries the
    step number, which no observation shows before the step opens (DECIDE-1)."""
    listeners = command.get("listeners") if command.get("op") == "decide" else None
    return isinstance(listeners, list) and any(
        isinstance(x, dict) and isinstance(x.get("when"), dict) and "step" in x["when"] for x in listeners)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("inject-wakes", "INPUT-1", "inject wakes the agent like steer",
           (Patch(model_lifecycle, "classify", _classify_inject_wakes),), _inject_woke),
    Mutant("status-after-claim", "INPUT-2", "agent/status running is emitted after the first claim",
           (table_patch(lambda table: with_effects("starting/auto/not-aborted", (
               "turn-start", "claim-turn", "status-running"))(with_effects("waking/auto/always", (
                   "start-driver",))(table))),),
           _status_after_claim),
    Mutant("refused-followup-still-wakes", "INPUT-3", "a refused insertion is ignored and the send still wakes",
           (effect_patch({"insert": _insert_ignoring_refusal}),), h.accepted_instead),
    Mutant("decide-while-stepping-ignored", "INPUT-4", "a decision while a step runs is ignored, not refused",
           (table_patch(_ignore_decide_while_stepping),), lambda e, a: h.refused(e, "INPUT-4") and h.accepted(a)),
    Mutant("turn-numbers-restart-after-reload", "TURN-1", "a reloaded agent numbers turns from 1 again",
           (effect_patch({"reload": _reload_forgets_numbering}),), _numbering_differs),
    Mutant("wake-while-running-starts-turn", "TURN-2", "a waking send starts a new turn even while one runs",
           (table_patch(_wake_starts_turn),), _turn_inside_turn),
    Mutant("turn-end-before-step-end-on-abort", "TURN-3", "an aborted step's turn/end is written before its step/end",
           (table_patch(with_effects("stepping/step-result/aborted", ("end-turn:aborted", "step-end"))),),
           lambda e, a: h.before(a, "turn/end", "step/end")),
    Mutant("error-turn-chains", "TURN-5", "an error end chains into queued input",
           (effect_patch({"end-turn": _end_turn_error_chains}),), _turn_after("error")),
    Mutant("step-numbers-continue-across-turns", "STEP-1", "a chained turn continues the previous turn's step numbers",
           (effect_patch({"turn-start": _turn_start_keeps_step}),), _step_numbers_differ,
           unseen=_listener_reads_step),
    Mutant("failed-step-left-open", "STEP-2", "a failing step is never closed",
           (table_patch(with_effects("stepping/step-result/failed", ("agent-error",))),),
           lambda e, a: types(e).count("step/end") > types(a).count("step/end")),
    Mutant("user-message-before-step-start", "STEP-3", "entered messages are written before step/start",
           (table_patch(with_effects("decision-returned/auto/enter", ("enter-messages", "step-start"))),),
           lambda e, a: h.before(a, "user/message", "step/start")),
    Mutant("empty-first-entry-opens-step", "STEP-4", "an empty first entry opens a step with no messages",
           (table_patch(_empty_first_entry_enters),),
           lambda e, a: "completed" in h.end_kinds(e) and "step/start" in types(a)),
)
