"""The engine: drive the model through a recording, record by record, and stop at the first difference.

The model (:func:`loopspec.loop.lifecycle.step`) emits a command's durable events and notifications at
once; they wait in ``pending`` until the recording shows them.  Each record is handled by the
function registered for its class in :data:`loopspec.reproduce.run.HANDLERS`:

* ``op-begin`` — the call, as the command :data:`~loopspec.reproduce.calls.CALLS` builds, applied
  when it begins; its refusal (or not) is compared with the ``op-end`` right away, the rest of its
  output is matched by the records up to ``op-end``, which also compares the result;
* ``agent/pre-step`` — the decision records (:mod:`~loopspec.reproduce.pre_steps`);
* ``durable`` markers and notifications — compared with the next pending output; when nothing is
  pending, an await point's answer or an edit outside any call is read from the log
  (:mod:`~loopspec.reproduce.answers`), and an event type the model does not write passes through
  into the model's log (LOG-6), so the model's seqs are the recording's;
* ``note`` — an observation compared with the model; a note with ``crash`` is a process boundary
  (:mod:`~loopspec.reproduce.processes`).

Every live record's ``nextSeq`` must equal the model's log length at that point (NOTIFY-4).
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import NoReturn

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import Thawed, thaw
from loopspec.data.messages import Messages, UserMessage
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import (
    INSERTED,
    MODEL_WRITTEN,
    PRE_STEP_HOOK,
    SPLICED,
    TURN_END,
    TURN_STOPPING_HOOK,
)
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.phases import DECIDING, HOPS, PROMPTING, RUNNING, STEPPING, STOPPING
from loopspec.loop.state import Agent, AgentTransition, CallInProgress
from loopspec.reproduce import answers, landing
from loopspec.reproduce import records as r
from loopspec.reproduce.calls import CALLS
from loopspec.reproduce.compare import (
    Difference,
    Different,
    Output,
    event_json,
    notice_json,
    output_json,
    refusal_text,
    rule_of,
    rule_of_type,
)
from loopspec.reproduce.reading import Unusable

TURN_STOPPING = TURN_STOPPING_HOOK



@attrs.define
class OpenCall:
    """A call between its ``op-begin`` and ``op-end``: its end, where the log stood, what the model returned."""

    end: r.OpEnd
    position: int
    value: Messages | bool | None = None
    # A call landed at a point inside this one (a clear's or a cancel's, loop-grain row 22): its
    # rest runs before it returns.
    interrupted: bool = False


class Engine:
    """One reproduction run; mutable only for the run's length, like the model's own ``Work``."""

    def __init__(self, recording: r.Recording) -> None:
        self.rec = recording
        self.agent = Agent()
        self.pending: deque[Output] = deque()
        self.calls: list[OpenCall] = []
        self.index = 0
        self.dead = False  # the records name a killed process's own log, whose payloads are not recorded
        self.boundary: object = None  # the open process boundary (processes.Boundary)
        self.views: dict[str, r.ProcessView] = {}  # the first restart's before/after, for the final file
        self.ends = _call_ends(recording.records)
        self.windows: set[str] = set()  # the listener hooks whose window is open (decisions.md E5)
        self.set_aside: list[tuple[Output, ...]] = []  # notifications owed while a notification's listener calls
        self.last: AgentTransition | None = None  # the last transition applied, with the hops it passed

    # ---- state ----

    @property
    def position(self) -> int:
        """The seq of the next event the recording will show: the model's log minus what is pending."""
        return self.agent.log.next_seq - sum(isinstance(x, SessionEvent) for x in self.pending)

    def fail(self, what: str, expected: object, got: object, rule: str | None, *, line: int | None = None,
             seq: int | None = None, file: Path | None = None) -> NoReturn:
        """Stop at a difference: ``expected`` is what the recording holds, ``got`` what the model emitted."""
        where = file or self.rec.live_path
        record_line = self.rec.records[self.index].line if self.index < len(self.rec.records) else None
        raise Different(Difference(where, line if line is not None else record_line, seq, what, recording=expected,
                                   model=got, rule=rule))

    def apply(self, command: cmd.Command) -> AgentTransition:
        return self._took(lifecycle.step(self.agent, command))

    def _took(self, transition: AgentTransition) -> AgentTransition:
        self.agent = transition.agent
        self.pending.extend(transition.trace)
        self.last = transition
        return transition

    def go_on(self, stop: str | None = None) -> None:
        """The model rests at a hop and the recording shows the loop's next output: it went on by
        itself (as far as the hop ``stop`` if it passes one)."""
        self._took(lifecycle.advance(self.agent, stop=stop))

    def finish_call(self, call_in: CallInProgress) -> None:
        """The rest of the call the agent stands inside runs up to its return: as far as the hop the
        loop goes on from after a call made there (``GOES_ON_AFTER_CALL``: a driver the call
        started goes on only once it has returned), else ``prompting``."""
        self.go_on(stop=lifecycle.GOES_ON_AFTER_CALL.get(call_in.phase, PROMPTING))

    def landed_at_a_hop(self, notes_between: bool = False, after_note: str | None = None,
                        outside: bool = False) -> bool:
        """A call or an observation comes while the model still owes output of its last transition:
        if the loop passed a hop where the recording stands (:func:`~.landing.hop_at`), the call
        landed there (spec/loop-grain.md; decisions G17).  The model goes back to that hop, the
        output after it is not owed any more (the loop goes on after the call, :meth:`go_on`), and
        True."""
        found = landing.hop_at(self.last, self.pending, self.rec.events[self.position:], notes_between, after_note,
                               outside)
        if found is None:
            return False
        self.agent, still_owed = found
        if self.agent.call is not None and self.calls:  # a point inside the innermost open call
            self.calls[-1].interrupted = True
        self.pending.clear()
        self.pending.extend(still_owed)
        self.last = None
        return True

    def hop_here(self) -> Agent | None:
        """The agent at the hop the last transition passed exactly where the recording stands (all
        that is pending was emitted after it), or None."""
        found = landing.hop_at(self.last, self.pending, self.rec.events[self.position:])
        return None if found is None else found[0]

    def answer(self, command: cmd.Command) -> None:
        """Apply an await point's answer; the table refusing it is a difference (INPUT-4)."""
        try:
            self.apply(command)
        except CommandRefused as refused:
            self.fail(f"the model refuses {type(command).__name__} here", "the loop goes on", refused.message,
                      refused.rule)

    def call_command(self, index: int) -> tuple[cmd.Command | None, r.OpEnd]:
        """The command of the call begun at record ``index`` (``None`` for a probe) and its ``op-end``.

        The bodies of the messages it inserts are in its ``agent/inbox/inserted`` records."""
        begin, end_index = self.rec.records[index], self.ends[index]
        end = self.rec.records[end_index]
        assert isinstance(begin, r.OpBegin)
        assert isinstance(end, r.OpEnd)
        bodies = {n.message.id.value: n.message for n in self.rec.records[index + 1:end_index]
                  if isinstance(n, r.Notice) and n.type == INSERTED and n.message is not None}
        return CALLS[begin.op].build(begin.args, lambda mid: bodies.get(mid) or UserMessage.create(mid)), end

    def unusable(self, message: str) -> NoReturn:
        raise Unusable(self.rec.live_path, self.rec.records[self.index].line, message)

    # ---- checks shared by the handlers ----

    def check_next_seq(self, next_seq: int | None, what: str = "nextSeq") -> None:
        if next_seq is not None and next_seq != self.position:
            self.fail(f"{what}: the log's length at this record", next_seq, self.position, "NOTIFY-4")

    def check_quiet(self, what: str) -> None:
        """Nothing may be pending: the model emitted nothing the recording has not shown yet."""
        if self.pending:
            item = self.pending[0]
            self.fail(f"the model emitted this before {what}", what, output_json(item), rule_of(item))

    def event(self, seq: int) -> SessionEvent:
        return self.rec.events[seq]

    def take(self, expected: object, what: str, rule: str | None) -> Output:
        if not self.pending:
            self.fail(f"the model emitted nothing here; the recording shows {what}", expected, None, rule)
        return self.pending.popleft()

    def _rest_has_run(self) -> bool:
        """The innermost open call was interrupted at a point inside it and its rest has run: the
        loop goes on only after its ``op-end`` (a driver a call made inside it started, from
        ``prompting`` or ``ending``; decisions G25, G30)."""
        return bool(self.calls) and self.calls[-1].interrupted and self.agent.call is None

    def _listeners_next(self) -> type[r.TurnStoppingInvoked | r.PreStepInvoked] | None:
        """The listeners the recording calls next in this turn: the turn-stopping ones (the step set
        the turn's end) or the next step's pre-step (the turn went on); None when it ends first."""
        for record in self.rec.records[self.index:]:
            if isinstance(record, r.TurnStoppingInvoked | r.PreStepInvoked):
                return type(record)
            if isinstance(record, r.Marker) and record.type == TURN_END:
                return None
        return None

    def prepare(self, record: r.Marker | r.Notice | r.PreStepInvoked) -> None:
        """Nothing pending but the recording shows output: the log answers the await point first (or,
        at a hop, the loop went on by itself)."""
        if self.pending:
            return
        if self.agent.phase in HOPS and not (isinstance(record, r.Marker) and record.type not in MODEL_WRITTEN):
            call_in = self.agent.call
            if call_in is not None:  # the rest of the call the agent stands inside, up to its return
                self.finish_call(call_in)
            elif not self._rest_has_run():
                self.go_on()
            return  # else the call is synchronous: the loop goes on only once it has returned
        phase, run = self.agent.phase, self.agent.running
        try:
            if isinstance(record, r.Marker) and record.type == SPLICED and not self.dead and not self.calls \
                    and self.boundary is None and phase in RUNNING:
                edit = answers.outside_edit(self.event(record.seq))
                if edit is not None:
                    self.answer(edit)
                    return
            if isinstance(record, r.Marker) and record.type not in MODEL_WRITTEN:
                return
            if phase == STEPPING and run is not None:
                events, listeners = () if self.dead else self.rec.events, self._listeners_next()
                result = answers.step_result(events, run, listeners is r.TurnStoppingInvoked)
                self.answer(answers.with_refused_context(events, self.agent, result, listeners is not None))
            elif phase == STOPPING and TURN_STOPPING not in self.windows:  # else its records answer it
                self.answer(answers.turn_stopping(() if self.dead else self.rec.events, self.position))
            elif phase == DECIDING and run is not None and run.aborted is not None and PRE_STEP_HOOK not in \
                    self.windows and not isinstance(record, r.PreStepInvoked):  # else its records answer it
                self.answer(cmd.Decide())  # CANCEL-3: an aborted turn may end without a recorded decision
        except answers.CannotTell as err:
            self.unusable(str(err))


def _call_ends(records: tuple[r.LiveRecord, ...]) -> dict[int, int]:
    """Index of each ``op-begin`` → index of its ``op-end`` (reading checked that they pair)."""
    ends: dict[int, int] = {}
    stack: list[int] = []
    for index, record in enumerate(records):
        if isinstance(record, r.OpBegin):
            stack.append(index)
        elif isinstance(record, r.OpEnd):
            ends[stack.pop()] = index
    return ends


# ---- handlers, one per record class ----


def on_marker(engine: Engine, marker: r.Marker) -> None:
    engine.prepare(marker)
    shown = {"type": marker.type, "seq": marker.seq}
    if not engine.pending:
        if marker.type in MODEL_WRITTEN:
            expected = shown if engine.dead else event_json(engine.event(marker.seq))
            engine.fail("the model wrote no event here", expected, None, rule_of_type(marker.type), seq=marker.seq)
        if marker.seq != engine.position:
            engine.fail("seq of a passed-through event", marker.seq, engine.position, "LOG-2", seq=marker.seq)
        passed = SessionEvent(marker.type, marker.seq, engine.agent.log.clock, None) if engine.dead \
            else engine.event(marker.seq)  # a killed process's last payloads are not recorded
        engine.agent = attrs.evolve(engine.agent, log=engine.agent.log.append_events((passed,)))
        return
    item = engine.take(shown, "a durable event", rule_of_type(marker.type))
    if not isinstance(item, SessionEvent) or (item.seq, item.type) != (marker.seq, marker.type):
        engine.fail("the next durable event", shown, output_json(item),
                    "NOTIFY-4" if not isinstance(item, SessionEvent) else rule_of(item), seq=marker.seq)
    if not engine.dead and event_json(item) != event_json(engine.event(marker.seq)):
        engine.fail(f"the {marker.type} event", event_json(engine.event(marker.seq)), event_json(item),
                    rule_of(item), file=engine.rec.events_path, line=marker.seq + 1, seq=marker.seq)


def on_notice(engine: Engine, notice: r.Notice) -> None:
    engine.prepare(notice)
    expected = notice_json(notice)
    item = engine.take(expected, notice.type, rule_of_type(notice.type))
    got = output_json(item)
    if isinstance(item, SessionEvent) or got != expected:
        engine.fail(f"the {notice.type} notification", expected, got,
                    "NOTIFY-4" if isinstance(item, SessionEvent) else rule_of(item))
    engine.check_next_seq(notice.next_seq)


def on_begin(engine: Engine, begin: r.OpBegin) -> None:
    if not engine.landed_at_a_hop(outside=begin.within is None):
        engine.check_quiet(f"the call {begin.label!r} began")
    engine.check_next_seq(begin.next_seq)
    command, end = engine.call_command(engine.index)
    call = OpenCall(end, engine.position)
    engine.calls.append(call)
    if command is None:
        return  # a probe
    try:
        call.value = engine.apply(command).value
    except CommandRefused as refused:
        if end.threw != refusal_text(refused.message):
            expected = {"threw": end.threw} if end.threw is not None else {"result": _thawed(end)}
            engine.fail(f"{begin.op} refused", expected, {"threw": refusal_text(refused.message)}, refused.rule,
                        line=end.line)
        return
    if end.threw is not None:
        engine.fail(f"{begin.op} did not throw", {"threw": end.threw}, {"result": CALLS[begin.op].returns(
            engine.agent.inbox, call.value)}, CALLS[begin.op].rule, line=end.line)


def _thawed(end: r.OpEnd) -> Thawed:
    return thaw(end.result)


def on_end(engine: Engine, end: r.OpEnd) -> None:
    call = engine.calls.pop()
    if call.interrupted:
        # The call's rest runs after the calls that landed inside it, before it returns; a driver
        # one of them started goes on only after the return, from the hop prompting or ending
        # (also when the rest ran already, the recording showing some of it before the op-end).
        call_in = engine.agent.call
        if call_in is not None and not engine.pending:
            engine.finish_call(call_in)
        elif engine.pending:
            engine.landed_at_a_hop()
    engine.check_quiet(f"the call {end.label!r} returned")
    compare_end(engine, end, call)


def compare_end(engine: Engine, end: r.OpEnd, call: OpenCall) -> None:
    """The log's length around the call and what it returned (a refusal was compared at its begin)."""
    if end.next_seq_before != call.position:
        engine.fail("nextSeqBefore: the log's length when the call began", end.next_seq_before, call.position,
                    "NOTIFY-4")
    engine.check_next_seq(end.next_seq_after, "nextSeqAfter")
    if end.threw is not None:
        return  # compared when the call began
    got = CALLS[end.op].returns(engine.agent.inbox, call.value)
    if got != _thawed(end):
        engine.fail(f"what {end.op} returned", _thawed(end), got, CALLS[end.op].rule)
