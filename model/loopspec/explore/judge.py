"""Trace validation by search: a log is valid exactly when some run of the model writes it.

The second user of :func:`loopspec.statespace.search.breadth_first`.  A state is the model's agent
plus how much of the log it has written; a command is kept only if every event it writes is the
log's next event.  The log fixes almost every choice (:mod:`.judge_moves` lists which commands it
allows at each point); the search covers the rest — step outcomes, listener outcomes, cancels and
their causes, restarts, crash points — and stops at the first run that wrote the whole log.

What "writes exactly that log" means (:func:`same_event`): each event of a type the model writes
is equal to the model's — type, data (JSON values, numbers compared as JavaScript numbers), the
envelope's ``surfaceOp`` and ``sourceEventSeqs`` — except

* ``time``: the model has its own clock; only crash repair's closers are bound (REPAIR-3: each
  carries the time of the event before it);
* ``seq`` must be the event's index in the whole log (LOG-2);
* tool events (``assistant/message``, ``tool/call``, ``tool/result``) stand for model traffic the
  model does not simulate; they are compared on what the rules read: their turn and step, the call
  ids they announce, start or answer, ``surfaceOp``, for crash repair's synthetic results the id
  prefix and the code, whether a result carries an aborted step's skipped-call code (CANCEL-5),
  and whether a result has the rest of the real writer's shape, each judged within its own log
  (decisions H3: the citation of its ``tool/call``; repair's id seq, error block and sentence; a
  skipped call's text);
* event types the model does not own and no rule constrains (LOG-6) are passed over;
* the model call's own traffic (``request/*``, ``assistant/chunk``, ``assistant/attempt``, an
  ``assistant/message`` announcing no tool call) is what the model's stepping phase abstracts: it
  is passed over where the model rests in an open step that it names (``request/*``: at an await
  point where a plugin's hook runs, CLAIM-6), as LOG-3 places it, and nowhere else, and only with
  the envelope keys the session writes on it (LOG-9); a text answer still bounds the step's
  result (see :mod:`.judge_moves`).

The verdict's place is the first event no run writes, as the checker places it (decisions H5).

Outside the judge's scope (verdict ``unsupported``): v0.1.5's placement of a step's entry
(``system/message``, records before the ``user/message`` events, a step that had to enter
something cut short before its entry; VARIANT-1), a replacing ``tool/result`` or
``assistant/message``, and a listener or observer acting inside what the model does as one
command (see :mod:`.judge_scope`), and an ``assistant/message`` announcing several calls.
Bounds: logs of at most :data:`MAX_EVENTS` events, at most :data:`MAX_STATES` states searched
(else ``unknown``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator
from pathlib import Path

import attrs

from loopspec.check.reader import LineProblem, open_log, parse_line
from loopspec.data.errors import CommandRefused, InvalidEvent
from loopspec.explore.judge_compare import (
    MODEL_TYPES,
    STEP_SCOPED,
    TURN_SCOPED,
    announces_raw,
    answered_call,
    call_numbers,
    call_seqs,
    model_call_seq,
    same_event,
    same_json,
    traffic_envelope,
)
from loopspec.explore.judge_moves import Moves
from loopspec.explore.judge_scope import ANSWER_WINDOW, after_an_empty_step, answer_window, scope_limit
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import ASSISTANT_MESSAGE, END_SEED, TOOL_RESULT
from loopspec.log.wire import position, record_data
from loopspec.loop import commands as cmd
from loopspec.loop import lifecycle as lifecycle
from loopspec.loop.phases import DECIDING, HOPS, STEPPING, STOPPING
from loopspec.loop.state import Agent, AgentTransition
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.search import Edge, breadth_first

MAX_EVENTS = 400
HOOK_AWAITS = (DECIDING, STEPPING, STOPPING)
MAX_STATES = 200_000


@attrs.frozen
class Judgement:
    """The verdict: ``valid``, ``invalid``, ``unsupported`` (outside the judge's scope) or ``unknown``."""

    status: str
    reason: str
    run: tuple[cmd.LoopCommand, ...] = ()
    seq: int | None = None
    states: int = 0
    seconds: float = 0.0


class Crashed:
    """A process that died after writing part of a command: only a restart (a new process) follows."""

    __slots__ = ("agent",)

    def __init__(self, agent: Agent) -> None:
        self.agent = agent


JudgeState = tuple[Agent | Crashed, int]


# The cancels a log cannot show: with keepInbox nothing is written, and a clearing one writes what a
# clear writes; the user's cause, for an end that names none.
_UNSEEN_CANCELS = (cmd.Cancel(cmd.USER_CAUSE, True), cmd.Cancel(cmd.USER_CAUSE, False))


class JudgeSpace:
    """States reachable while writing a prefix of the log; see the module docstring."""

    def __init__(self, raws: list[dict[str, object]], positions: list[int]) -> None:
        self.raws = raws
        self.positions = positions  # index in the whole log of each event the model must write
        self.moves = Moves([raws[i] for i in positions])
        self.calls = call_numbers(raws)
        self.call_seqs = call_seqs(raws)
        self.deepest = 0

    def root(self) -> JudgeState:
        return (Agent(), 0)

    def key(self, state: JudgeState) -> Hashable:
        agent, pos = state
        if isinstance(agent, Crashed):
            return (pos, "crashed")  # a restart reads only the log, and the log up to pos is fixed
        return (pos, agent_key(agent, Renaming(symmetric=False)))

    def expand(self, state: JudgeState) -> Iterator[Edge[JudgeState]]:
        agent, pos = state
        if not isinstance(agent, Crashed):
            passed = self.past_model_side(agent, pos)
            if passed is None:
                return
            pos = passed
            self.deepest = max(self.deepest, pos)  # a run writes this far (the step's model traffic too)
        if isinstance(agent, Crashed):
            commands: list[cmd.LoopCommand] = [cmd.Restart()]
            before = agent.agent
        else:
            commands, before = [*self.moves.candidates(agent, pos)], agent
            if agent.phase in HOPS:
                # At a hop the loop goes on by itself, and a cancel may land there unseen (with
                # keepInbox it writes nothing; the end it leaves may still be blocked, completed or
                # an error: spec/loop-grain.md rows 6 and 18, decisions G22).
                commands += [cmd.Advance(), *_UNSEEN_CANCELS]
        for command in commands:
            try:
                tr = lifecycle.run_command(before, command)
            except CommandRefused:
                continue
            yield from self._edges(before, pos, command, tr)
            if isinstance(agent, Crashed) or isinstance(command, cmd.Restart):
                continue
            # The same command stopping at each hop it passes, where a call may land next (none
            # for a move that already stops: stops_along).
            for stopped in lifecycle.stops_along(command, tr):
                yield from self._edges(before, pos, stopped, lifecycle.run_command(before, stopped))

    def _edges(self, before: Agent, pos: int, command: cmd.LoopCommand, tr: AgentTransition
               ) -> Iterator[Edge[JudgeState]]:
        """Where ``command``'s transition leads in the log: on, to its end, or to a crash inside it."""
        aborted = before.running is not None and before.running.aborted is not None
        written = len(self._matched(tr.events, pos, isinstance(command, cmd.Restart), aborted,
                                    tr.agent.log.events))
        remaining = len(self.positions) - pos
        if written == len(tr.events):
            self.deepest = max(self.deepest, pos + written)
            child: JudgeState = (tr.agent, pos + written)
            yield Edge(command, 1, child, self.key(child), tr.fired)
        elif written == remaining:  # the log ends inside this command (a crash, or still running)
            self.deepest = len(self.positions)
            end: JudgeState = (Crashed(before), len(self.positions))
            yield Edge(command, 1, end, self.key(end))
        if 0 < written < len(tr.events) and written < remaining:
            # The process died between two appends of this command; a new one may load the log.
            # A run writes the log this far, so the verdict's place is no earlier (the first
            # event no run can write).
            self.deepest = max(self.deepest, pos + written)
            log = before.log.append_events(tr.events[:written])
            crashed: JudgeState = (Crashed(Agent(log=log)), pos + written)
            yield Edge(command, 1, crashed, self.key(crashed))

    def _matched(self, events: tuple[SessionEvent, ...], pos: int, restart: bool, aborted: bool,
                 log: tuple[SessionEvent, ...]) -> list[SessionEvent]:
        """The longest prefix of ``events`` that the log has from ``pos`` on."""
        out: list[SessionEvent] = []
        for offset, event in enumerate(events):
            if pos + offset >= len(self.positions):
                break
            index = self.positions[pos + offset]
            closer = restart and event.type != END_SEED
            previous = self.raws[index - 1] if index > 0 else None
            seqs: tuple[int | None, int | None] = (None, None)
            if event.type == TOOL_RESULT:  # H3: what each log's result cites
                raw_call = answered_call(record_data(self.raws[index]))
                seqs = (model_call_seq(log, event), self.call_seqs[index].get(raw_call) if raw_call else None)
            if not same_event(event, self.raws[index], previous, closer, self.calls[index], aborted, seqs):
                break
            out.append(event)
        return out

    def goal(self, state: JudgeState) -> bool:
        agent, pos = state
        if not isinstance(agent, Crashed):
            passed = self.past_model_side(agent, pos)
            pos = passed if passed is not None else pos
        return pos == len(self.positions)

    def past_model_side(self, agent: Agent, pos: int) -> int | None:
        """``pos`` moved past the model call's traffic the agent's open step abstracts; None if misplaced.

        The traffic before a misplaced record is written by the run, so the verdict's place is no
        earlier than that record (``deepest``), as the checker places it, never the step's first
        request.
        """
        run = agent.running
        while pos < len(self.positions):
            raw = self.raws[self.positions[pos]]
            kind = raw.get("type")
            if kind not in TURN_SCOPED | STEP_SCOPED or (kind == ASSISTANT_MESSAGE and announces_raw(raw)):
                return pos
            placed = traffic_envelope(raw) and run is not None  # LOG-9: an envelope the session writes
            if placed and kind in TURN_SCOPED:
                # A plugin writes a request from a hook the loop awaits (CLAIM-6's note): the pre-step
                # decision, the model call, turn-stopping; never where the loop writes on at once.
                placed = agent.phase in HOOK_AWAITS
            elif placed:
                turn, step = position(raw.get("data"))
                placed = (agent.phase == STEPPING and run is not None and run.step_open
                          and same_json(turn, run.turn) and same_json(step, run.step))
            if not placed:
                self.deepest = max(self.deepest, pos)
                return None
            pos += 1
        return pos


def judge_events(raws: list[object], *, max_states: int = MAX_STATES, allow_torn_tail: bool = False) -> Judgement:
    """Judge parsed log lines (a :class:`LineProblem` for a line that is not JSON)."""
    started = time.perf_counter()
    if len(raws) > MAX_EVENTS:
        return Judgement("unsupported", f"{len(raws)} events; the search judges logs of at most {MAX_EVENTS}")
    if allow_torn_tail and raws and isinstance(raws[-1], LineProblem) and raws[-1].torn:
        raws = raws[:-1]  # LOG-5: a crash cut the last append short
    events: list[dict[str, object]] = []
    for index, raw in enumerate(raws):
        if isinstance(raw, LineProblem):
            return Judgement("invalid", f"line {index + 1}: {raw.message} ({raw.rule})", seq=index)
        try:
            event = SessionEvent.from_json(raw, line_seq=index)
        except InvalidEvent as err:
            return Judgement("invalid", f"line {index + 1}: {err.message} ({err.rule})", seq=index)
        if event.seq != index:
            return Judgement("invalid", f"line {index + 1}: seq {event.seq} is not the event's index (LOG-2)",
                             seq=index)
        assert isinstance(raw, dict)
        events.append(raw)
    limit = scope_limit(events)
    if limit is not None and limit[0] >= len(events):
        limit = None  # the log ends before leaving the scope
    judged = events if limit is None else events[: limit[0]]
    verdict = _search(judged, max_states, started)
    if verdict.status == "invalid" and verdict.seq is not None and (
            place := after_an_empty_step(judged, verdict.seq)) != verdict.seq:
        verdict = _invalid_at(judged, place, verdict.states, verdict.seconds)
    if verdict.status == "invalid" and verdict.seq is not None and answer_window(judged, verdict.seq):
        return Judgement("unsupported", f"line {verdict.seq + 1}: {ANSWER_WINDOW}; every event before it is written "
                         "by a run of the model", (), verdict.seq, verdict.states, verdict.seconds)
    if limit is None or verdict.status != "valid":
        return verdict
    return Judgement("unsupported", f"line {limit[0] + 1}: {limit[1]}; every event before it is written by a run of "
                     "the model", verdict.run, limit[0], verdict.states, verdict.seconds)


def _search(events: list[dict[str, object]], max_states: int, started: float) -> Judgement:
    positions = [i for i, e in enumerate(events) if e["type"] in MODEL_TYPES | STEP_SCOPED | TURN_SCOPED]
    space = JudgeSpace(events, positions)
    out = breadth_first(space, 4 * len(positions) + 8, goal=space.goal, max_states=max_states)
    seconds = time.perf_counter() - started
    if out.found is not None:
        return Judgement("valid", "a run of the model writes this log", out.found.path, None, out.states, seconds)
    if not out.complete:
        return Judgement("unknown", f"the search stopped after {out.states} states without a verdict",
                         states=out.states, seconds=seconds)
    seq = positions[space.deepest] if space.deepest < len(positions) else None
    return _invalid_at(events, seq, out.states, seconds)


def _invalid_at(events: list[dict[str, object]], seq: int | None, states: int, seconds: float) -> Judgement:
    where = f"event seq {seq} ({events[seq]['type']})" if seq is not None else "the end"
    return Judgement("invalid", f"no run of the model writes this log: every run that writes the events before "
                     f"{where} must write something else there", (), seq, states, seconds)


def judge_file(path: str | Path, *, max_states: int = MAX_STATES, allow_torn_tail: bool = False) -> Judgement:
    """Judge one log file (``.jsonl`` or ``.jsonl.gz``)."""
    raws: list[object] = []
    with open_log(path) as stream:
        for line in stream:
            try:
                raws.append(parse_line(line))
            except LineProblem as problem:
                raws.append(problem)
            if len(raws) > MAX_EVENTS:
                break
    return judge_events(raws, max_states=max_states, allow_torn_tail=allow_torn_tail)

