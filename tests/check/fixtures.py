"""Shared helpers of the checker's tests.

* :class:`ModelInbox` is :class:`loopspec.check.inbox_track.InboxTracker` over
  :func:`loopspec.inbox.fold.apply` on frozen events, so a test can run the checker with either
  fold and require identical verdicts (``test_check_agreement.py``).
* :func:`random_model_run` drives the model with random commands (answers at each await point,
  input, edits, cancels, restarts) and gives its live stream; :func:`log_records` its log as JSON.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from check.log_mutations import Log
from loopspec.check.inbox_track import SpliceEffect
from loopspec.data.errors import CommandRefused
from loopspec.data.json_value import freeze, thaw
from loopspec.data.messages import EMPTY_INBOX, InboxState, InboxTarget, MessageId, UserMessage
from loopspec.data.notifications import Notification
from loopspec.inbox.fold import apply
from loopspec.log.events import InboxSpliced, SessionEvent
from loopspec.log.kinds import SPLICED
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as lsn
from loopspec.loop.lifecycle import advance, step
from loopspec.loop.phases import DECIDING, HOPS, IDLE, STEPPING, STOPPING
from loopspec.loop.state import Agent


class ModelInbox:
    """The checker's inbox interface over the frozen fold (:func:`loopspec.inbox.fold.apply`), for cross-checking."""

    def __init__(self) -> None:
        self.state: InboxState = EMPTY_INBOX
        self.planned: InboxState = EMPTY_INBOX

    def length(self, target: str) -> int:
        return len(self.state.lane(InboxTarget(target)))

    def ids(self, target: str) -> list[str]:
        return [m.id.value for m in self.state.lane(InboxTarget(target))]

    def splice(self, data: object, seq: int) -> SpliceEffect:
        frozen = freeze(data)
        new = apply(self.state, SessionEvent(SPLICED, seq, 0, frozen))
        record = InboxSpliced.from_data(frozen, seq)
        lane = self.state.lane(record.target)
        taken = lane[record.start : record.start + record.removed]
        self.planned = new
        return SpliceEffect(
            record.target.value, record.start, record.removed_count, record.outcome, len(lane),
            tuple(m.to_json() for m in taken), tuple(m.to_json() for m in record.inserted), record.removed,
        )

    def commit(self, effect: SpliceEffect) -> None:
        self.state = self.planned


NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP


Record = dict[str, object]


SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


POOL = ("a", "b", "c", "d", "e")


messages = st.builds(UserMessage.create, st.sampled_from(POOL), st.sampled_from(("x", "y")))


targets = st.sampled_from((NT, NS))


sends = st.builds(cmd.Send, messages, targets, st.booleans())


cancels = st.builds(cmd.Cancel, st.sampled_from(({"kind": "user"}, {"kind": "disposed"})).map(freeze), st.booleans())


edits = st.one_of(
    st.builds(cmd.Append, targets, messages),
    st.builds(cmd.Splice, targets, st.integers(-2, 3), st.integers(-1, 2), st.lists(messages, max_size=2).map(tuple)),
    st.builds(cmd.Remove, st.sampled_from(POOL).map(MessageId)),
    st.just(cmd.Clear()),
)


actions = st.lists(st.one_of(sends, cancels), max_size=2).map(tuple)


decisions = st.one_of(st.just(lsn.Reject()), st.lists(messages, max_size=2).map(lambda ms: lsn.Enter(tuple(ms))))


listeners = st.lists(
    st.one_of(
        st.builds(lsn.Wrap, st.just(lsn.Keep()), actions, actions),
        st.builds(lsn.Wrap, st.builds(lsn.Replace, decisions)),
        st.builds(lsn.Veto, decisions, actions),
        st.builds(lsn.Throw, st.just("prompt hook broke"), actions),
    ),
    max_size=2,
).map(tuple)


answers: dict[str, st.SearchStrategy[cmd.Command]] = {
    DECIDING: st.one_of(st.just(cmd.Decide()), st.just(cmd.Decide()), st.builds(cmd.Decide, listeners)),
    STEPPING: st.one_of(
        st.sampled_from((cmd.Stop(), cmd.MaxTokens(), cmd.Fail(),
                         cmd.RequestError(retry=True), cmd.RequestError())),
        st.builds(cmd.ToolCalls, st.lists(messages, max_size=1).map(tuple), st.booleans()),
        st.builds(cmd.ToolCall, started=st.booleans()),
        st.sampled_from((cmd.ToolStart(), cmd.ToolResult())),
    ),
    STOPPING: st.builds(cmd.TurnStopping, st.lists(st.builds(cmd.Send, messages, st.just(NS), st.booleans()),
                                                   max_size=1).map(tuple)),
}


def log_records(agent: Agent) -> Log:
    return [e.to_json() for e in agent.log.events]


def random_model_run(data: st.DataObject) -> tuple[Agent, list[Record]]:
    """Random commands through the model; its log and a live stream of what it emitted.

    A command may stop the loop at the first hop it passes (``fine``), where calls land until the
    loop goes on by itself (``advance``): the real loop's own grain (spec/loop-grain.md)."""
    agent = Agent()
    live: list[Record] = []
    for _ in range(data.draw(st.integers(1, 60))):
        # Mostly the environment's answer at the current await point, so turns run to their end;
        # input, edits, cancels and restarts in between.
        roll = data.draw(st.integers(0, 99))
        fine = data.draw(st.integers(0, 3)) == 0
        phase_answer = answers.get(agent.phase)
        command: cmd.Command
        if agent.phase in HOPS and roll < 60:
            transition = advance(agent, fine=fine)
            live += _live_records(transition.trace, len(agent.log))
            agent = transition.agent
            continue
        if phase_answer is not None and roll < 70:
            command = data.draw(phase_answer)
        elif roll < 90:
            command = data.draw(st.one_of(sends, sends, edits))
        elif roll < 97:
            command = data.draw(cancels)
        else:
            command = cmd.Restart()
        try:
            transition = step(agent, command, fine=fine)
        except CommandRefused:
            continue
        if isinstance(command, cmd.Restart) and agent.phase == IDLE and roll % 2:
            # A graceful disposal while idle: cancel with cause disposed (its clear is recorded), then
            # the successor loads the log and appends the end-seed while nothing records.
            disposal = step(agent, cmd.Cancel(freeze({"kind": "disposed"}), False))
            live += _live_records(disposal.trace, len(agent.log))
            transition = step(disposal.agent, command)
            live += [{"kind": "note", "text": "disposed", "crash": False}, {"kind": "note", "text": "loaded"}]
        elif isinstance(command, cmd.Restart):
            # The process died here; its successor records again after repair and end-seed.
            live += [{"kind": "note", "text": "killed", "crash": True}, {"kind": "note", "text": "resumed"}]
        elif isinstance(command, cmd.Cancel):
            # A cancel is a call the stream records (CHAIN-1 reads it: a chain stops only for one).
            args: Record = {"cause": thaw(command.cause), **({"keepInbox": True} if command.keep_inbox else {})}
            before, after = len(agent.log), len(transition.agent.log)
            live += [{"kind": "op-begin", "op": "cancel", "args": args, "nextSeq": before},
                     *_live_records(transition.trace, before),
                     {"kind": "op-end", "op": "cancel", "args": args, "nextSeqBefore": before,
                      "nextSeqAfter": after, "result": None}]
        else:
            live += _live_records(transition.trace, len(agent.log))
        agent = transition.agent
    return agent, live


def _live_records(trace: tuple[SessionEvent | Notification, ...], next_seq: int) -> list[Record]:
    """The live.jsonl form (examples/recordings/README.md) of one transition's interleaved trace."""
    out: list[Record] = []
    for item in trace:
        if isinstance(item, SessionEvent):
            out.append({"kind": "durable", "seq": item.seq, "type": item.type})
            next_seq = item.seq + 1
        else:
            out.append({"kind": "live", "nextSeq": next_seq, **item.to_json()})
    return out
