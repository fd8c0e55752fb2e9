"""The four headline invariants, checked on every transition the exploration takes.

1. **A claim is an ownership transfer** (CLAIM-1 … CLAIM-5, DECIDE-1): a claim's messages leave
   the inbox, each gets exactly one ``claimed`` notification naming the open turn, the decision
   sees exactly them, and no message ever comes back into the inbox unless the command (or an
   action it carries: a listener's, a tool's, a turn-stopping listener's) inserts it explicitly.
2. **A rejection is balanced and opens no step** (DECIDE-5): a reject ends its turn ``blocked``
   with no ``step/start`` of that turn, and the turn is closed afterwards.
3. **Ids are unique across both lists** (DATA-5).
4. **Replay equals the live state** (FOLD-5, REPAIR-1, REPAIR-4): folding the new events into the
   previous state gives the new inbox and the new lifecycle position; after a restart, the fold of
   the whole log is the new process's state, and the closers crash repair derived from the log are
   exactly what the live state had open (its step and its pending tool calls).

Each check reads the state before, the command and the transition; a broken one is a
:class:`Problem` naming the invariant and the rule.  The checks rely on the invariant having held
before (induction along the path), which the exploration guarantees by stopping at the first break.
"""

from __future__ import annotations

from collections import Counter

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import JsonObject, freeze, thaw
from loopspec.data.messages import InboxState, UserMessage
from loopspec.data.notifications import Claimed, Inserted
from loopspec.inbox.fold import apply as fold_apply
from loopspec.inbox.fold import replay
from loopspec.log.end_reasons import BLOCKED, INTERRUPTED
from loopspec.log.events import InboxSpliced
from loopspec.log.kinds import END_SEED, SPLICED, STEP_END, STEP_START, TOOL_RESULT, TURN_END, TURN_START
from loopspec.log.tool_errors import error_fields
from loopspec.log.wire import source_call
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.phases import DECIDING
from loopspec.loop.projection import apply as lifecycle_apply
from loopspec.loop.projection import project
from loopspec.loop.state import Agent, AgentTransition

OWNERSHIP = "claim is an ownership transfer"
REJECTION = "a rejection is balanced and opens no step"
UNIQUE = "ids are unique across both lists"
REPLAY = "replay equals the live state"
HEADLINE = (OWNERSHIP, REJECTION, UNIQUE, REPLAY)
CLAIM_ROWS = frozenset(r.key for r in TABLE if any(e.startswith("claim-") for e in r.effects))
REJECT_ROW = "decision-returned/auto/reject"


@attrs.frozen
class Problem:
    """A broken invariant: which, the rule it states ("" when no spec rule names it), what happened.

    ``before``: commands the problem needs between the path to its state and its own command
    (loops an implementation was sent in one sequence, :mod:`loopspec.explore.conformance`).
    """

    invariant: str
    rule: str
    message: str
    before: tuple[cmd.LoopCommand, ...] = ()

    def render(self) -> str:
        rule = f" ({self.rule})" if self.rule else ""
        return f"{self.invariant}{rule}: {self.message}"


class Reading:
    """One transition's events read once: each splice record parsed, the inbox before each event.

    Raises :class:`InvalidEvent` when the model's own events do not fold (a broken replay).
    """

    __slots__ = ("inboxes", "records")

    def __init__(self, before: Agent, tr: AgentTransition) -> None:
        inbox = before.inbox
        self.records: list[InboxSpliced | None] = []
        self.inboxes: list[InboxState] = []
        for event in tr.events:
            self.inboxes.append(inbox)
            if event.type == SPLICED:
                self.records.append(InboxSpliced.from_data(event.data, event.seq))
                inbox = fold_apply(inbox, event)
            else:
                self.records.append(None)
        self.inboxes.append(inbox)

    @property
    def inbox(self) -> InboxState:
        """The inbox the events fold to from the state before."""
        return self.inboxes[-1]


def headline(before: Agent, command: cmd.Command | None, tr: AgentTransition, reading: Reading) -> Problem | None:
    return (_replay(before, command, tr, reading) or _unique(tr.agent) or _ownership(before, command, tr, reading)
            or _rejection(before, tr))


def _unique(agent: Agent) -> Problem | None:
    ids = agent.inbox.ids()
    if len(set(ids)) != len(ids):
        return Problem(UNIQUE, "DATA-5", f"pending ids {[i.value for i in ids]} repeat an id")
    return None


def _replay(before: Agent, command: cmd.Command | None, tr: AgentTransition, reading: Reading) -> Problem | None:
    after = tr.agent
    try:
        if isinstance(command, cmd.Restart):
            inbox, view = replay(after.log.events), project(after.log.events)
        else:
            inbox, view = reading.inbox, before.lifecycle_view()
            for event in tr.events:
                view = lifecycle_apply(view, event)
    except InvalidEvent as err:
        return Problem(REPLAY, err.rule, f"the model's own log does not fold: {err.message}")
    if inbox != after.inbox:
        return Problem(REPLAY, "FOLD-5", f"the log folds to {_ids(inbox)}, the live inbox is {_ids(after.inbox)}")
    if view != after.lifecycle_view() or view.last_turn != after.last_turn:
        return Problem(REPLAY, "REPAIR-4", f"the log says {view}, the live state is {after.lifecycle_view()}")
    if isinstance(command, cmd.Restart):
        return _repair_matches(before, tr)
    return None


def _repair_matches(before: Agent, tr: AgentTransition) -> Problem | None:
    """REPAIR-1 from the log equals what the live state had open: its step's pending calls, step, turn."""
    # A driver at a hop with no turn open (after a turn/end, or before its turn/start) leaves nothing open.
    run = before.running if before.lifecycle_view().open_turn is not None else None
    owed: list[tuple[str, object]] = []
    if run is not None:
        if run.step_open:
            for call, started in run.calls:
                owed.append((TOOL_RESULT, (call, "TOOL_OUTCOME_UNKNOWN" if started else "TOOL_NOT_STARTED")))
            owed.append((STEP_END, run.step))
        owed.append((TURN_END, freeze({"kind": INTERRUPTED})))
    events = before.log.events
    if run is not None or not events or events[-1].type != END_SEED:
        owed.append((END_SEED, None))
    got: list[tuple[str, object]] = []
    for e in tr.events:
        data = e.data if isinstance(e.data, JsonObject) else JsonObject(())
        if e.type == TOOL_RESULT:
            result = thaw(data)
            error = error_fields(result)
            got.append((e.type, (source_call(result), error[1] if error is not None else None)))
        elif e.type == STEP_END:
            got.append((e.type, data.get("step")))
        elif e.type == TURN_END:
            got.append((e.type, data.get("reason")))
        else:
            got.append((e.type, None))
    if got != owed:
        return Problem(REPLAY, "REPAIR-1", f"crash repair wrote {got}, the live state had open {owed}")
    return None


def explicit_insertions(command: cmd.Command | None) -> list[UserMessage]:
    """Every message the command, or an action it carries, inserts into the inbox itself."""
    if isinstance(command, cmd.Send | cmd.Append | cmd.Prepend | cmd.Replace):
        return [command.message]
    if isinstance(command, cmd.Splice):
        return list(command.inserted)
    if isinstance(command, cmd.StepResult):
        return list(command.context) if isinstance(command, cmd.ToolCalls) else []
    actions: list[cmd.ListenerActionT] = []
    if isinstance(command, cmd.TurnStopping):
        actions = list(command.actions)
    elif isinstance(command, cmd.Decide):
        for listener in command.listeners:
            actions += listener.before
            if isinstance(listener, ls.Wrap):
                actions += listener.after
    return [m for action in actions for m in explicit_insertions(action)]


def _ownership(before: Agent, command: cmd.Command | None, tr: AgentTransition, reading: Reading) -> Problem | None:
    inserted = [n.message for n in tr.notifications if isinstance(n, Inserted)]
    allowed = Counter(explicit_insertions(command)) if inserted else Counter[UserMessage]()
    implicit = Counter(inserted) - allowed
    if implicit:
        ids = sorted(m.id.value for m in implicit)
        return Problem(OWNERSHIP, "CLAIM-5", f"{ids} came back into the inbox with no explicit insertion")
    claimed, turn = _claims(before, tr, reading)
    notes = [(n.message, n.turn) for n in tr.notifications if isinstance(n, Claimed)]
    if notes != [(m, turn) for m in claimed]:
        return Problem(OWNERSHIP, "CLAIM-4", f"claimed {[m.id.value for m in claimed]} in turn {turn}, notified "
                       f"{[(m.id.value, t) for m, t in notes]}")
    pending = set(tr.agent.inbox.ids())
    kept = [m.id.value for m in claimed if m.id in pending and m not in allowed]
    if kept:
        return Problem(OWNERSHIP, "CLAIM-1", f"{kept} are still pending after their claim")
    run = tr.agent.running
    if tr.agent.phase == DECIDING and run is not None:
        boundary = any(row in CLAIM_ROWS for row in tr.fired)
        expected = tuple(claimed) if boundary else (before.running.batch if before.running else ())
        if run.batch != expected:
            return Problem(OWNERSHIP, "DECIDE-1", f"the decision sees {[m.id.value for m in run.batch]}, the "
                           f"boundary claimed {[m.id.value for m in expected]}")
    return None


def _claims(before: Agent, tr: AgentTransition, reading: Reading) -> tuple[list[UserMessage], int | None]:
    """The messages the transition's claim records took, in order, and the turn open at the claim."""
    turn = before.running.turn if before.running is not None else None
    claimed: list[UserMessage] = []
    for event, record, inbox in zip(tr.events, reading.records, reading.inboxes, strict=False):
        if event.type == TURN_START and isinstance(event.data, JsonObject):
            turn = event.data.get("turn")  # type: ignore[assignment]
        if record is not None and record.is_claim:
            claimed += inbox.lane(record.target)[record.start : record.start + record.removed]
    return claimed, turn


def _rejection(before: Agent, tr: AgentTransition) -> Problem | None:
    if REJECT_ROW not in tr.fired or before.running is None:
        return None
    turn = before.running.turn
    mine = [e for e in tr.events if isinstance(e.data, JsonObject) and e.data.get("turn") == turn]
    if any(e.type == STEP_START for e in mine):
        return Problem(REJECTION, "DECIDE-5", f"turn {turn} opened a step after its reject")
    ends = [e.data.get("reason") for e in mine if e.type == TURN_END and isinstance(e.data, JsonObject)]
    if ends != [freeze({"kind": BLOCKED})]:
        return Problem(REJECTION, "DECIDE-5", f"turn {turn} ended {ends} after its reject, not once blocked")
    # At a hop after the end (the driver not idle yet) the turn is closed though its driver runs.
    if tr.agent.lifecycle_view().open_turn == turn:
        return Problem(REJECTION, "DECIDE-5", f"turn {turn} is still open after its reject")
    return None


def _ids(inbox: InboxState) -> str:
    return f"next-turn {[m.id.value for m in inbox.next_turn]}, next-step {[m.id.value for m in inbox.next_step]}"
