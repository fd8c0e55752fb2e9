"""Mutants of how records are written out (spec areas LOG, END, VARIANT-3) and of END-2's live error.

Most are serializer bugs: the stored log stays the model's, only what the implementation writes
out (and an adapter reports) differs — the kind of slip a port's JSON layer makes.  LOG-10's and
LOG-11's are in what the loop writes: a tool call's records, and the order of a step's results.
"""

from __future__ import annotations

import attrs

from loopspec.log.session import Record
from loopspec.loop import records as rec
from loopspec.loop.effects import write_tool_result
from loopspec.loop.phases import Row
from loopspec.loop.work import Work
from loopspec.vectors.json_reading import Json
from vectors.mutants import hallmarks as h
from vectors.mutants.edit_bugs import output_patch
from vectors.mutants.handler import Mutant, Patch, effect_patch, table_patch, with_effects
from vectors.mutants.witnesses import SPLICED, data, events, notes

Event = dict[str, object]
TOOL_CALL, TOOL_RESULT = "tool/call", "tool/result"


def _ignorable_false(event: Event) -> Event:
    """Bug: every event spells out ignorable: false (LOG-1: only true may be written)."""
    return {**event, "ignorable": False}


def _seq_from_one(event: Event) -> Event:
    """Bug: seq is written 1-based (LOG-2: seq is the index)."""
    seq = event.get("seq")
    return {**event, "seq": seq + 1} if isinstance(seq, int) else event


def _user_message_without_surface_op(event: Event) -> Event:
    """Bug: user/message is written like any other event, without surfaceOp (LOG-7)."""
    return {k: v for k, v in event.items() if k != "surfaceOp"} if event.get("type") == h.USER_MESSAGE else event


def _turn_start_with_trigger(event: Event) -> Event:
    """Bug: turn/start still carries the pre-0.1.0 trigger field (LOG-8)."""
    payload = event.get("data")
    if event.get("type") == h.TURN_START and isinstance(payload, dict):
        return {**event, "data": {**payload, "trigger": "wake"}}
    return event


def _snake_case_reasons(event: Event) -> Event:
    """Bug: reason kinds are written in snake_case, max_tokens (END-1)."""
    payload = event.get("data")
    reason = payload.get("reason") if isinstance(payload, dict) else None
    if event.get("type") == h.TURN_END and isinstance(payload, dict) and isinstance(reason, dict):
        return {**event, "data": {**payload, "reason": {**reason, "kind": str(reason.get("kind")).replace("-", "_")}}}
    return event


def _end_seed_inherited_false(event: Event) -> Event:
    """Bug: end-seed always writes its flag, also as false (VARIANT-3: {} or {inherited: true})."""
    return {**event, "data": {"inherited": False}} if event.get("type") == h.END_SEED else event


def _error_after_end(table: tuple[Row, ...]) -> tuple[Row, ...]:
    """Bug: agent/error is emitted after the error turn/end is written (END-2)."""
    def rewrite(row: Row) -> Row:
        if "end-turn:error" in row.effects:  # the hop after agent/error writes the end (FAILING)
            return attrs.evolve(row, effects=(*row.effects, "agent-error"))
        if "agent-error" not in row.effects:
            return row
        return attrs.evolve(row, effects=tuple(e for e in row.effects if e != "agent-error"))

    return tuple(map(rewrite, table))


def _inbox_records_ignorable(event: Event) -> Event:
    """Bug: the inbox's bookkeeping records are marked ignorable, as informational (LOG-9: the loop's own
    records never carry ignorable; LOG-1 alone would allow true)."""
    return {**event, "ignorable": True} if event.get("type") == SPLICED else event


def _loop_record_ignorable(expected: Json, actual: Json) -> bool:
    return any("ignorable" in x for x in events(actual) if x.get("type") == SPLICED) and not any(
        "ignorable" in x for x in events(expected))


model_tool_call = rec.tool_call


def _tool_call_counted_from_zero(turn: int, step: int, call: str) -> Record:
    """Bug: tool/call names its call by the call's 0-based index in the step while the announcement counts
    from 1, so it starts a call the step never announced, or the one before (LOG-10)."""
    n = int(call.rsplit(".", 1)[1])
    assert call == rec.call_id(turn, step, n)
    return model_tool_call(turn, step, rec.call_id(turn, step, n - 1))


def _other_call_started(expected: Json, actual: Json) -> bool:
    """The same records, except that a tool/call names another call than the model's."""
    def masked(o: Json) -> list[object]:
        return [{**x, "data": {**data(x), "callId": None}} if x.get("type") == TOOL_CALL else x
                for x in events(o)]

    def started(o: Json) -> list[object]:
        return [d.get("callId") for d in h.of_type(o, TOOL_CALL)]

    return masked(expected) == masked(actual) and started(expected) != started(actual)


def _answer_stacked(work: Work, calls: tuple[tuple[str, bool], ...]) -> None:
    run = work.run
    result = rec.tool_result if run.aborted is None else rec.aborted_tool_result  # CANCEL-5, as the model
    for call, started in reversed(calls):
        if not started:
            work.write(rec.tool_call(run.turn, run.step, call))
        write_tool_result(work, result(run.turn, run.step, call), call)


def _answer_newest_call(work: Work, _: str) -> None:
    """Bug: pending calls are kept as a stack, so a finished tool answers the newest one, not the
    oldest (LOG-11)."""
    calls = work.run.calls
    _answer_stacked(work, calls[-1:])
    work.run = attrs.evolve(work.run, calls=calls[:-1])


def _answer_calls_newest_first(work: Work, _: str) -> None:
    """The same stack: a finishing step answers its pending calls newest first (LOG-11)."""
    _answer_stacked(work, work.run.calls)
    work.run = attrs.evolve(work.run, calls=())


def _answered_calls(observation: Json) -> list[object]:
    """The call each tool/result answers, in order."""
    out: list[object] = []
    for d in h.of_type(observation, TOOL_RESULT):
        message = d.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        out.append(source.get("callId") if isinstance(source, dict) else None)
    return out


def _keys_added(expected: Json, actual: Json) -> bool:
    return any(set(a) - set(e) for e, a in zip(events(expected), events(actual), strict=False))


def _seqs_shifted(expected: Json, actual: Json) -> bool:
    pairs = zip(events(expected), events(actual), strict=False)
    return any(a.get("seq") == e.get("seq") + 1 for e, a in pairs if isinstance(e.get("seq"), int))  # type: ignore[operator]


MUTANTS: tuple[Mutant, ...] = (
    Mutant("ignorable-false-written", "LOG-1", "every event carries ignorable: false",
           (output_patch(_ignorable_false),), _keys_added),
    Mutant("seq-from-one", "LOG-2", "seq is written 1-based", (output_patch(_seq_from_one),), _seqs_shifted),
    Mutant("user-message-without-surface-op", "LOG-7", "user/message is written without surfaceOp",
           (output_patch(_user_message_without_surface_op),),
           lambda e, a: any("surfaceOp" not in x for x in events(a) if x.get("type") == h.USER_MESSAGE)),
    Mutant("turn-start-trigger", "LOG-8", "turn/start carries a trigger field",
           (output_patch(_turn_start_with_trigger),),
           lambda e, a: any("trigger" in d for d in h.of_type(a, h.TURN_START))),
    Mutant("inbox-records-ignorable", "LOG-9", "inbox records are written with ignorable: true",
           (output_patch(_inbox_records_ignorable),), _loop_record_ignorable),
    Mutant("tool-call-counted-from-zero", "LOG-10", "tool/call names its call by a 0-based index",
           (Patch(rec, "tool_call", _tool_call_counted_from_zero),), _other_call_started),
    Mutant("results-out-of-call-order", "LOG-11", "pending tool calls are answered newest first",
           (effect_patch({"answer-call": _answer_newest_call, "answer-calls": _answer_calls_newest_first}),),
           lambda e, a: _answered_calls(e) != _answered_calls(a)),
    Mutant("snake-case-reasons", "END-1", "end reasons are written in snake_case",
           (output_patch(_snake_case_reasons),), lambda e, a: "max_tokens" in h.end_kinds(a)),
    Mutant("no-agent-error-at-stopping", "END-2", "a throwing turn-stopping listener emits no agent/error",
           (table_patch(with_effects("stopping/turn-stopping/raised", ())),),
           lambda e, a: notes(e).count("agent/error") > notes(a).count("agent/error")),
    Mutant("agent-error-after-turn-end", "END-2", "agent/error is emitted after the error turn/end",
           (table_patch(_error_after_end),), h.order_moved, needs="v2"),
    Mutant("end-seed-inherited-false", "VARIANT-3", "end-seed data is {inherited: false}",
           (output_patch(_end_seed_inherited_false),),
           lambda e, a: any(d == {"inherited": False} for d in h.of_type(a, h.END_SEED))),
)
