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
  ids they announce, start or answer, ``surfaceOp``, and for crash repair's synthetic results the
  id prefix and the code;
* event types the model does not own and no rule constrains (LOG-6) are passed over;
* the model call's own traffic (``request/*``, ``assistant/chunk``, ``assistant/attempt``, an
  ``assistant/message`` announcing no tool call) is what the model's stepping phase abstracts: it
  is passed over where the model rests in an open step that it names (``request/*``: in an open
  turn), as LOG-3 places it, and nowhere else.

Outside the judge's scope (verdict ``unsupported``): v0.1.5's placement of a step's entry
(``system/message``, records before the ``user/message`` events, a first step cut short before
its entry; VARIANT-1), a replacing ``tool/result``, and a listener or observer acting inside what
the model does as one command (see :func:`_observer_window`).  Bounds: logs of at most :data:`MAX_EVENTS` events,
at most :data:`MAX_STATES` states searched (else ``unknown``).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterator
from pathlib import Path

import attrs

from loopspec.check.reader import LineProblem, open_log, parse_line
from loopspec.data.errors import CommandRefused, InvalidEvent
from loopspec.data.messages import EMPTY_INBOX
from loopspec.explore.judge_moves import TOOL_TYPES, Moves
from loopspec.inbox.fold import apply as fold_apply
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.loop import agent as lifecycle
from loopspec.loop import commands as cmd
from loopspec.loop.records import ASSISTANT_MESSAGE, END_SEED, TOOL_CALL, TOOL_RESULT
from loopspec.loop.state import Agent
from loopspec.loop.table import STEPPING
from loopspec.statespace.canon import Renaming, agent_key
from loopspec.statespace.search import Edge, breadth_first

MAX_EVENTS = 400
MAX_STATES = 200_000
UNSUPPORTED = frozenset({"system/message"})  # v0.1.5's entry placement (VARIANT-1)
# The model call's own traffic, which the model abstracts into its stepping phase (LOG-3 places it).
STEP_SCOPED = frozenset({"assistant/chunk", "assistant/attempt", "assistant/message"})
TURN_SCOPED = frozenset({"request/header", "request/context"})
MODEL_TYPES = frozenset({"agent/inbox/spliced", "turn/start", "turn/end", "step/start", "step/end",
                         "user/message", END_SEED}) | TOOL_TYPES
SYNTHETIC = "interrupted-tool-result-"
ENVELOPE_EXTRAS = ("surfaceOp", "sourceEventSeqs", "ignorable")


@attrs.frozen
class Judgement:
    """The verdict: ``valid``, ``invalid``, ``unsupported`` (outside the judge's scope) or ``unknown``."""

    status: str
    reason: str
    run: tuple[cmd.Command, ...] = ()
    seq: int | None = None
    states: int = 0
    seconds: float = 0.0


class Crashed:
    """A process that died after writing part of a command: only a restart (a new process) follows."""

    __slots__ = ("agent",)

    def __init__(self, agent: Agent) -> None:
        self.agent = agent


JudgeState = tuple[Agent | Crashed, int]


class JudgeSpace:
    """States reachable while writing a prefix of the log; see the module docstring."""

    def __init__(self, raws: list[dict[str, object]], positions: list[int]) -> None:
        self.raws = raws
        self.positions = positions  # index in the whole log of each event the model must write
        self.moves = Moves([raws[i] for i in positions])
        self.calls = call_numbers(raws)
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
        if isinstance(agent, Crashed):
            commands: list[cmd.Command] = [cmd.Restart()]
            before = agent.agent
        else:
            commands, before = self.moves.candidates(agent, pos), agent
        for command in commands:
            try:
                tr = lifecycle.step(before, command)
            except CommandRefused:
                continue
            written = len(self._matched(tr.events, pos, isinstance(command, cmd.Restart)))
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
                log = before.log.append_events(tr.events[:written])
                crashed: JudgeState = (Crashed(Agent(log=log)), pos + written)
                yield Edge(command, 1, crashed, self.key(crashed))

    def _matched(self, events: tuple[SessionEvent, ...], pos: int, restart: bool) -> list[SessionEvent]:
        """The longest prefix of ``events`` that the log has from ``pos`` on."""
        out: list[SessionEvent] = []
        for offset, event in enumerate(events):
            if pos + offset >= len(self.positions):
                break
            index = self.positions[pos + offset]
            closer = restart and event.type != END_SEED
            previous = self.raws[index - 1] if index > 0 else None
            if not same_event(event, self.raws[index], previous, closer, self.calls[index]):
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
        """``pos`` moved past the model call's traffic the agent's open step abstracts; None if misplaced."""
        run = agent.running
        while pos < len(self.positions):
            raw = self.raws[self.positions[pos]]
            kind = raw.get("type")
            if kind in TURN_SCOPED:
                if run is None:
                    return None
            elif kind in STEP_SCOPED and not (kind == ASSISTANT_MESSAGE and _announces_raw(raw)):
                data = raw.get("data")
                named = (data.get("turn"), data.get("step")) if isinstance(data, dict) else None
                if not (agent.phase == STEPPING and run is not None and run.step_open and named is not None
                        and same_json(named[0], run.turn) and same_json(named[1], run.step)):
                    return None
            else:
                return pos
            pos += 1
        return pos


def same_event(model: SessionEvent, raw: dict[str, object], previous: dict[str, object] | None,
               closer: bool, calls: dict[str, int] | None = None) -> bool:
    if raw.get("type") != model.type:
        return False
    if closer and previous is not None and raw.get("time") != previous.get("time"):
        return False  # REPAIR-3
    if model.type in TOOL_TYPES:
        return tool_view(model.to_json()) == tool_view(raw, calls)
    envelope = model.to_json()
    if model.type == END_SEED and raw.get("data") == {"inherited": True}:
        return _same_envelope(envelope, raw)  # VARIANT-3: v0.1.5's marker, the same marker
    return same_json(envelope["data"], raw.get("data")) and _same_envelope(envelope, raw)


def _same_envelope(envelope: dict[str, object], raw: dict[str, object]) -> bool:
    return all(same_json(envelope.get(k), raw.get(k)) and ((k in envelope) == (k in raw)) for k in ENVELOPE_EXTRAS)


def tool_view(event: dict[str, object], calls: dict[str, int] | None = None) -> object:
    """What the rules read of a tool event (see the module docstring).

    Call ids are opaque names: ``calls`` numbers a log's ids by first appearance in their step; the
    model's ids (``call-T.S.N``) carry that number themselves.
    """
    def name(call: object) -> object:
        if calls is not None:
            return calls.get(call, call) if isinstance(call, str) else call
        return int(call.rsplit(".", 1)[-1]) - 1 if isinstance(call, str) and call.startswith("call-") else call

    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    message = data.get("message")
    message = message if isinstance(message, dict) else {}
    kind = event.get("type")
    view: list[object] = [kind, _number(data.get("turn")), _number(data.get("step")),
                          *((k in event, event.get(k)) for k in ("surfaceOp", "ignorable"))]
    if kind == ASSISTANT_MESSAGE:
        content = message.get("content")
        view.append(tuple(name(b.get("id")) for b in content if isinstance(b, dict) and b.get("type") == "tool-call")
                    if isinstance(content, list) else None)
    elif kind == TOOL_CALL:
        view += [name(data.get("callId")), "sourceEventSeqs" in event]  # LOG-9: never derived
    elif kind == TOOL_RESULT:
        source = message.get("source")
        content = message.get("content")
        blocks = tuple(name(b.get("toolCallId")) for b in content if isinstance(b, dict)) if isinstance(
            content, list) else ()
        mid = message.get("id")
        synthetic = isinstance(mid, str) and mid.startswith(SYNTHETIC)
        view += [name(source.get("callId")) if isinstance(source, dict) else None, blocks, synthetic,
                 data.get("code") if synthetic else None]
    return tuple(view)


def call_numbers(events: list[dict[str, object]]) -> list[dict[str, int]]:
    """For each event, its step's tool-call ids numbered by first appearance (for :func:`tool_view`).

    Ids are read where each tool event names them: an ``assistant/message``'s tool-call blocks, a
    ``tool/call``'s ``callId``, a ``tool/result``'s blocks and source.
    """
    out: list[dict[str, int]] = []
    calls: dict[str, int] = {}
    for event in events:
        kind = event.get("type")
        if kind in ("step/start", "step/end", "turn/start", "turn/end"):
            calls = {}
        elif kind in TOOL_TYPES:
            for call in _named_calls(event):
                if isinstance(call, str) and call not in calls:
                    calls[call] = len(calls)
        out.append(calls)
    return out


def _named_calls(event: dict[str, object]) -> list[object]:
    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    if event.get("type") == TOOL_CALL:
        return [data.get("callId")]
    message = data.get("message")
    message = message if isinstance(message, dict) else {}
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if event.get("type") == ASSISTANT_MESSAGE:
        return [b.get("id") for b in blocks if b.get("type") == "tool-call"]
    source = message.get("source")
    return [*(b.get("toolCallId") for b in blocks), source.get("callId") if isinstance(source, dict) else None]


def _number(value: object) -> object:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def same_json(a: object, b: object) -> bool:
    """JSON equality with JavaScript numbers: ``1 == 1.0``, but a boolean is never a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


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
    limit = _scope_limit(events)
    if limit is not None and limit[0] >= len(events):
        limit = None  # the log ends before leaving the scope
    judged = events if limit is None else events[: limit[0]]
    verdict = _search(judged, max_states, started)
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
    where = f"event seq {seq} ({events[seq]['type']})" if seq is not None else "the end"
    return Judgement("invalid", f"no run of the model writes this log: every run that writes the events before "
                     f"{where} must write something else there", (), seq, out.states, seconds)


def _scope_limit(events: list[dict[str, object]]) -> tuple[int, str] | None:
    """The first event from which the log leaves the judge's scope, and why (see the module docstring)."""
    found: list[tuple[int, str]] = []
    for index, event in enumerate(events):
        if event.get("type") in UNSUPPORTED:
            found.append((index, f"{event['type']} is v0.1.5's placement of a step's entry (VARIANT-1), which the "
                                 "model does not write"))
            break
        if event.get("type") == TOOL_RESULT and isinstance(event.get("surfaceOp"), dict):
            found.append((index, "a replacing tool/result, which the model does not write"))
            break
    placement = _later_placement(events)
    if placement is not None:
        found.append((placement, "a step's entry placed as v0.1.5 places it (VARIANT-1); the model writes v0.1.1's "
                                 "placement only"))
    window = _observer_window(events)
    if window is not None:
        found.append((window, "a listener or observer acting inside what the model does as one command (the "
                              "running-status listener before turn/start, or a cancel from an observer of "
                              "turn/start before the claim)"))
    return min(found) if found else None


def _later_placement(events: list[dict[str, object]]) -> int | None:
    """The first event after a ``step/start`` whose entry a log places as only v0.1.5+ does (VARIANT-1).

    v0.1.1 (the model) writes a step's ``user/message`` events right after ``step/start``; v0.1.5+
    writes them after an asynchronous request preparation, so inbox records may land in between,
    and a first step cut short during preparation (an abort, a failure, a crash) closes with no
    entry and no model call.  (Other events in between — the model side — and an empty first step
    that goes on normally are invalid in every version; the search says so.)
    """
    in_step = first = entered = model = False
    after_start = 0
    cut: int | None = None  # an empty first step's step/end, until its turn's end says how it ended
    previous: object = None
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind in STEP_SCOPED | TURN_SCOPED:
            model = True
            continue
        if kind not in MODEL_TYPES:
            continue
        if kind == "step/start":
            data = event.get("data")
            in_step, first = True, isinstance(data, dict) and data.get("step") == 1
            entered = model = False
            after_start = index + 1
        elif kind == "user/message":
            if in_step and not model and previous == "agent/inbox/spliced":
                return after_start
            entered = True
        elif kind in TOOL_TYPES:
            model = True
        elif kind == "step/end":
            if in_step and first and not entered and not model:
                cut = after_start
            in_step = False
        elif kind == "turn/end":
            data = event.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            if cut is not None and isinstance(reason, dict) and reason.get("kind") in ("aborted", "error",
                                                                                        "interrupted"):
                return cut
            in_step, cut = False, None
        elif kind == "turn/start":
            in_step, cut = False, None
        previous = kind
    if in_step and first and not entered and not model:
        return after_start  # the log ends while the first step prepares its request
    return cut  # the log ends right after an empty first step


def _observer_window(events: list[dict[str, object]]) -> int | None:
    """The first event a listener or observer acting inside a command the model keeps whole put out of scope.

    Two windows of the real loop the model does not express (its listener actions run only at
    the pre-step and turn-stopping await points, its cancels between commands): a waking send
    emits ``agent/status running`` before writing ``turn/start``, so the status listener's edits
    land between the send's insertion and ``turn/start`` (scenario S8); and the loop checks for
    an abort after appending ``turn/start`` and before claiming, so a cancel from an observer of
    that append ends the turn unclaimed.  Such logs are real (the checker accepts them) but the
    model writes neither.
    """
    inbox = EMPTY_INBOX
    previous: object = None
    public_edit = False  # the previous model event was a public edit that is not send-shaped
    pending_at_start = False
    for index, raw in enumerate(events):
        kind = raw.get("type")
        if kind not in MODEL_TYPES:
            continue
        edit = False
        if kind == "agent/inbox/spliced":
            try:
                event = SessionEvent.from_json(raw)
                record = InboxSpliced.from_data(event.data, event.seq)
                length = len(inbox.lane(record.target))
                inbox = fold_apply(inbox, event)
            except InvalidEvent:
                return None  # the search will say why
            send_shaped = record.removed_count is None and len(record.inserted) == 1 and record.start == length
            edit = not record.is_claim and not send_shaped
        elif kind == "turn/start":
            if public_edit:
                return index
            pending_at_start = inbox.has_pending
        elif kind == "turn/end" and previous == "turn/start" and pending_at_start:
            data = raw.get("data")
            reason = data.get("reason") if isinstance(data, dict) else None
            if isinstance(reason, dict) and reason.get("kind") == "aborted":
                return index
        previous, public_edit = kind, edit
    return None


def _announces_raw(raw: dict[str, object]) -> bool:
    """An ``assistant/message`` with a tool-call block: the model's own tool-call point."""
    data = raw.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool-call" for b in content)


def judge_file(path: Path, *, max_states: int = MAX_STATES, allow_torn_tail: bool = False) -> Judgement:
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

