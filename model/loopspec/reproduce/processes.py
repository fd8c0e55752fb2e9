"""Notes, process boundaries and the end of a recording.

A ``note`` is an observation: the pending ids, the status, the log's length, compared with the
model where the note gives them.  A note with ``crash`` ends one process of the agent:

* the ending process is shut down the way the recording's README describes a graceful one, as a
  ``cancel`` with cause ``{kind: "disposed"}`` and without ``keepInbox`` (CANCEL-1; such an abort
  never latches a wake, CANCEL-4).  The records after the note up to the next note (or the end)
  are that shutdown and what it leads to, matched like any other records;
* ``crash: true`` — the process was killed: the log the next process loads is what it had stored
  at the note.  Records after the note (if any) show the killed process being shut down all the
  same; they name its own log, which never reached the stored one, so they compare by seq and
  type only.  With no record before the next note, nothing shut it down;
* ``crash: false`` — the shutdown is orderly and persisted: its records are in the log the next
  process loads, up to the moment the teardown detaches the session.  A waiting listener may
  return after the note (the teardown waits for the loop to go idle).  The teardown also detaches
  the recorder's observer, before or after the session: whatever the model still has to emit when
  the next process starts went unheard, and of its events those the recorded log holds were
  persisted; the next process loads the log up to there (decisions.md G2, G15);
* either way a shutdown that shows must show whole: the next process starts only after every
  output of it (and of what it leads to) was recorded;
* the next process starts at the next note (or the end): ``Restart`` (REPAIR-1, REPAIR-2,
  REPAIR-4) appends crash repair's closers and ``session/end-seed`` before anything records, so
  they have no markers and are compared with the recorded log directly.
"""

from __future__ import annotations

import attrs

from loopspec.check.live_shape import NOTIFYING
from loopspec.data.json_value import JsonObject, Thawed
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import END_SEED, MODEL_WRITTEN, SPLICED, TOOL_RESULT
from loopspec.log.tool_errors import REPAIR_CODES
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.actions import DISPOSED_CAUSE
from loopspec.loop.phases import DECIDING, HOPS, STEPPING, STOPPING
from loopspec.loop.state import Agent
from loopspec.reproduce import answers
from loopspec.reproduce import records as r
from loopspec.reproduce.compare import Output, event_json, output_json, rule_of
from loopspec.reproduce.engine import Engine


@attrs.frozen
class Boundary:
    """An open process boundary: the note that ended the process and the log a killed one stored."""

    note: r.Note
    crash: bool
    stored: Agent
    shut_down: bool = False


def view_of(agent: Agent) -> r.ProcessView:
    inbox = agent.inbox
    return r.ProcessView(tuple(m.id.value for m in inbox.next_turn), tuple(m.id.value for m in inbox.next_step),
                         agent.status, agent.log.next_seq)


def _fields(view: r.ProcessView, keep: r.ProcessView) -> dict[str, Thawed]:
    """``view``'s fields that ``keep`` gives (an observation may give only some)."""
    out: dict[str, Thawed] = {}
    for name, value, present in (("nextTurn", view.next_turn, keep.next_turn), ("nextStep", view.next_step,
                                 keep.next_step), ("status", view.status, keep.status),
                                 ("eventCount", view.event_count, keep.event_count)):
        if present is not None:
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


AWAIT_POINTS = (DECIDING, STEPPING, STOPPING)  # where the loop waits on a listener, the model or a tool
_RULE_OF_FIELD = {"nextTurn": "FOLD-5", "nextStep": "FOLD-5", "status": "STATUS-1", "eventCount": "LOG-5"}


def compare_view(engine: Engine, expected: r.ProcessView, got: r.ProcessView, what: str,
                 rule: str | None = None, *, final: bool = False) -> None:
    want, have = _fields(expected, expected), _fields(got, expected)
    for key in want:
        if want[key] != have[key]:
            file = engine.rec.final_path if final else None
            engine.fail(f"{what}: {key}", want[key], have[key], rule or _RULE_OF_FIELD[key], file=file,
                        line=None if final else engine.rec.records[engine.index].line)


def observe(engine: Engine, note: r.Note, *, deferred: bool = False) -> None:
    """Compare the note with the model.  ``deferred``: a graceful shutdown's note that came at a hop
    while the loop still went on after it: the model is compared as it stood at that hop."""
    hop = engine.hop_here() if deferred else None
    if hop is None and not engine.landed_at_a_hop(outside=True):
        engine.check_quiet("this observation")
    engine.check_next_seq(note.next_seq)
    seen = r.ProcessView(note.next_turn, note.next_step, note.status, note.event_count)
    got = view_of(hop or engine.agent)
    compare_view(engine, seen, attrs.evolve(got, event_count=engine.position), "the observation")


def _goes_on_first(engine: Engine) -> bool:
    """The record after a graceful shutdown's note shows what the model still owes: the loop went on
    by itself before the teardown's cancel reached it (the host disposes the context, which
    cancels the agent a few microtasks later)."""
    records, at = engine.rec.records, engine.index + 1
    return bool(engine.pending) and at < len(records) and _shows(records[at], engine.pending[0])


def _loop_first(engine: Engine, record: r.LiveRecord) -> bool:
    """A graceful shutdown's cancel reaches the agent a few microtasks after its note, and the record
    shows the loop going on until then: the pre-step's listeners called (the turn awaited its
    system prompt, loop-grain row 4); an event of the model call's stream or tool traffic (an
    ``assistant/chunk``, a ``request/*``), which the loop passes through; or, at an await point
    or a hop of the loop with input pending, an event other than a splice (the cancel's clear
    would write its splice first), which the log's answer to that await point writes (a tool
    step's ``step/end``) or the loop writes going on from the hop (``failing``'s ``turn/end``)."""
    if isinstance(record, r.PreStepInvoked):  # the turn had its system prompt and called its listeners
        return not engine.pending and engine.agent.phase == DECIDING
    if not isinstance(record, r.Marker) or engine.pending:
        return False
    if record.type not in MODEL_WRITTEN:
        return True
    agent = engine.agent
    waits = agent.phase in AWAIT_POINTS or (agent.phase in HOPS and agent.call is None)
    return record.type != SPLICED and waits and agent.inbox.has_pending


def _shows(record: r.LiveRecord, item: Output) -> bool:
    """The record is the owed output ``item`` (a marker of the event, or a notice of its type)."""
    if isinstance(record, r.Marker):
        return isinstance(item, SessionEvent) and (item.seq, item.type) == (record.seq, record.type)
    if isinstance(record, r.Notice):
        return not isinstance(item, SessionEvent) and output_json(item).get("type") == record.type
    return False


def restart(engine: Engine) -> None:
    """The next process loads the stored log, repairs it and marks the seed end (REPAIR-1 … REPAIR-4)."""
    boundary = engine.boundary
    assert isinstance(boundary, Boundary)
    if boundary.crash:
        engine.check_quiet("the next process loaded the log")
        start = boundary.stored
    else:
        if not boundary.shut_down:  # the loop went on until the recording ended; the teardown's
            shut_down(engine)  # cancel came all the same, unheard
        start = _persisted(engine)
    engine.boundary, engine.dead = None, False
    transition = lifecycle.step(start, cmd.Restart())
    engine.agent = transition.agent
    events, path = engine.rec.events, engine.rec.events_path
    for event in transition.events:  # written before the new process's recording began: no markers
        expected = event_json(events[event.seq]) if event.seq < len(events) else None
        if expected != event_json(event):
            engine.fail(f"the new process's {event.type} (written before recording began)", expected,
                        event_json(event), rule_of(event), file=path, line=event.seq + 1, seq=event.seq)
    engine.pending.extend(transition.notifications)
    engine.views.setdefault("after", view_of(engine.agent))


def _drained(engine: Engine) -> None:
    """A graceful teardown cancels, then waits for the loop to go idle (G15): a hop the loop stood at
    was passed, and an await point it still stood at was answered before the next process began,
    and the recorded log holds what it wrote (a stream that failed after the cancel ends its turn
    aborted).  The model answers it
    from the log as it would at a marker of that event; what it writes then is unheard output.
    Events the loop passes through come first, as at their markers (the aborted stream's
    ``assistant/message`` with ``interrupted``, written before its ``step/end``), and so do a
    drained call's result, the runtime's aborted one or the tool's own (crash repair writes
    neither), and the splices of the context its tool deferred (decisions G28)."""
    events, records = engine.rec.events, engine.rec.records
    line = records[min(engine.index, len(records) - 1)].line if records else 0
    drained = False  # a drained call's aborted result was written: its tool's context may follow
    while not engine.pending and engine.position < len(events):
        event, agent = events[engine.position], engine.agent
        if event.type == END_SEED:
            return
        if agent.phase in HOPS:  # the loop goes on by itself from a hop the teardown's cancel landed at
            engine.go_on()
            continue
        if agent.phase not in AWAIT_POINTS:
            return
        if event.type not in MODEL_WRITTEN and (event.type != TOOL_RESULT or _drained_answer(event)):
            # Crash repair writes tool results too, but only with its own codes.
            engine.agent = attrs.evolve(agent, log=agent.log.append_events((event,)))
            drained = drained or event.type == TOOL_RESULT
            continue
        edit = answers.outside_edit(event) if drained and event.type == SPLICED else None
        if edit is not None:  # the context a drained tool deferred (CANCEL-5, decisions G28)
            engine.answer(edit)
            written = [item for item in engine.pending if isinstance(item, SessionEvent)]
            if [event_json(item) for item in written] != [event_json(event)]:
                return  # not what the log holds: _persisted keeps the log up to there
            engine.pending.clear()  # the splice as recorded; its notifications went unheard
            continue
        engine.prepare(r.Marker(line, event.seq, event.type))
        if engine.agent is agent:
            return


def _drained_answer(event: SessionEvent) -> bool:
    """``event`` (a ``tool/result``) answers a drained call (CANCEL-5): the tool runtime's aborted
    answer, or the tool's own result when it finished first; crash repair's codes are REPAIR-1's."""
    error = event.data.get("error") if isinstance(event.data, JsonObject) else None
    return not isinstance(error, JsonObject) or error.get("code") not in REPAIR_CODES


def _persisted(engine: Engine) -> Agent:
    """After a graceful shutdown: the ending process as the next one finds it.  What the model still
    has pending went unheard: the teardown detached the recorder's observer.  Of its events, those
    written before the session was detached too were persisted: the longest run of them that the
    recorded log holds at their seqs.  The log the next process loads ends there; ``Restart`` reads
    only the log (REPAIR-1, REPAIR-4), so the rest of the state does not matter."""
    _drained(engine)
    agent, kept = engine.agent, engine.position
    unheard = [item for item in engine.pending if isinstance(item, SessionEvent)]
    engine.pending.clear()
    recorded = engine.rec.events
    for event in unheard:
        if event.seq >= len(recorded) or event_json(recorded[event.seq]) != event_json(event):
            break
        kept = event.seq + 1
    if kept == agent.log.next_seq:
        return agent
    return attrs.evolve(agent, log=attrs.evolve(agent.log, events=agent.log.events[:kept]))


def on_note(engine: Engine, note: r.Note) -> None:
    if engine.boundary is not None:
        restart(engine)
    records, at = engine.rec.records, engine.index + 1
    deferred = note.crash is False and (_goes_on_first(engine) or (at < len(records) and
                                                                    _loop_first(engine, records[at])))
    observe(engine, note, deferred=deferred)
    if note.crash is None:
        return
    engine.views.setdefault("before", view_of((engine.hop_here() if deferred else None) or engine.agent))
    engine.boundary = Boundary(note, note.crash, engine.agent)
    engine.dead = note.crash
    if not note.crash and not deferred:
        shut_down(engine)


def shut_down(engine: Engine) -> None:
    """The ending process is shut down: a cancel with cause ``disposed`` (CANCEL-1, CANCEL-4)."""
    assert isinstance(engine.boundary, Boundary)
    engine.boundary = attrs.evolve(engine.boundary, shut_down=True)
    engine.answer(cmd.Cancel(DISPOSED_CAUSE))


def before_record(engine: Engine, record: r.LiveRecord) -> None:
    """A killed process is shut down when a record shows it (the first after its boundary note); a
    gracefully shut-down one whose loop went on first, once the record shows something else than
    what the loop owes: at the hop it had reached by then, or after all it owed."""
    _call_done(engine, record)
    boundary = engine.boundary
    if not isinstance(boundary, Boundary) or boundary.shut_down or isinstance(record, r.Note):
        return
    if not boundary.crash and (_loop_first(engine, record) or engine.calls):
        # The loop went on before the teardown's cancel reached the agent; or a call is open (a
        # listener's, inside the loop's emit), and the cancel, a call of its own, waits for it.
        return
    if boundary.crash or not engine.pending or (
            not _shows(record, engine.pending[0]) and engine.landed_at_a_hop(outside=True)):
        shut_down(engine)


def _call_done(engine: Engine, record: r.LiveRecord) -> None:
    """At a point inside a call (loop-grain row 22) only its notifications' listeners call, and their
    calls return, before the call goes on: any other record (a pre-step's outcome, a note) shows that
    the call is done, and its rest ran first (a graceful shutdown's cancel, which no op-end closes)."""
    if engine.agent.call is None or engine.pending or isinstance(record, r.OpEnd | r.Marker | r.Notice):
        return
    if isinstance(record, r.OpBegin) and record.within in NOTIFYING:
        return
    engine.go_on()


def finish(engine: Engine) -> None:
    """The end of the records: the rest of the log, and the final file."""
    if engine.boundary is not None:
        restart(engine)
    if engine.agent.phase in HOPS and not engine.pending:  # the loop went on after a call that landed at a hop
        engine.go_on()
    engine.index = len(engine.rec.records)
    engine.check_quiet("the recording ended")
    events, position = engine.rec.events, engine.position
    if position < len(events):
        engine.fail("the recorded log goes on where the model has nothing more to write", event_json(
            events[position]), None, "LOG-5", file=engine.rec.events_path, line=position + 1, seq=position)
    final = engine.rec.final
    if final is None:
        return
    compare_view(engine, final.end, view_of(engine.agent), "the final state", final=True)
    if final.has_pending != engine.agent.inbox.has_pending:
        engine.fail("the final state: hasPending", final.has_pending, engine.agent.inbox.has_pending, "FOLD-5",
                    file=engine.rec.final_path)
    if final.before_restart is not None:
        compare_view(engine, final.before_restart, engine.views["before"], "beforeRestart", "FOLD-5", final=True)
    if final.after_resume is not None:
        compare_view(engine, final.after_resume, engine.views["after"], "reconstructedAfterResume", "REPAIR-4",
                     final=True)
