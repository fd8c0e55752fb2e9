"""Every command a scope allows at an agent state, in classes the model cannot tell apart.

The alphabet is the whole command language over the scope's message ids: edits with boundary
coordinates (0, ±1, ±length, NaN, ±Infinity, a negative fraction, -0), sends of each target and
wake, cancel with and without keepInbox and each cause kind, pre-step listener chains with every
listener kind and action (a refused one included), every step result (tool calls inside a step
included), turn-stopping answers, restarts, and answers at await points with no table row
(INPUT-4 refusals).  The ids come in pairs that differ only in case, and an id's edited body
carries a field the model does not know: the model cannot tell either apart from any other name or
body, but an implementation that folds case or drops fields shows it.

It is closed under renaming message ids (every template is instantiated for every id), which is
what makes the symmetry reduction of :mod:`.canon` sound.

**Classes.**  Many commands provably do the same thing in a given state, so only one per class is
stepped (the rest are counted): splice coordinates with equal :func:`normalize` results, and
``append``/``prepend``/``replace``/``remove`` with the splice they are (the model's edits are
defined through ``mutate``, which reads coordinates only through ``normalize``); listener chains
with equal :func:`run_chain` results (the agent reads a chain only through it, DECIDE-3); cancel
causes a state never writes (idle, or a turn already aborted: the first cause wins).  Each class
is an argument about the model's code, so ``tests/explore`` checks it: every member of a class,
stepped, gives the same transition.  ``classes=False`` steps every command.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable

from loopspec.data.json_value import Frozen, freeze
from loopspec.data.messages import InboxState, InboxTarget, Messages, UserMessage
from loopspec.inbox.normalize import JsNumber, normalize
from loopspec.inbox.operations import locate
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.phases import DECIDING, STEPPING, STOPPING
from loopspec.loop.state import Agent
from loopspec.statespace import scope as sc
from loopspec.statespace.mentions import canonical

# Pairs that differ only in case: an implementation that compares ids ignoring case (DATA-1 says an id
# is compared exactly) shows it from two ids on; the model cannot tell names apart, so no state is added.
ID_NAMES = ("a", "A", "b", "B", "c", "C")
CAUSES: tuple[Frozen, ...] = tuple(freeze(c) for c in (
    {"kind": "user"}, {"kind": "parent"}, {"kind": "hook", "reason": "hook"}, {"kind": "disposed"},
    {"kind": "legacy"},
))
BROKE = "listener broke"
ORIGINAL, EDITED = "v0", "v1"  # the two bodies of an id: texts independent of the id, so renaming is exact
# The edited body also carries a field the model does not know, which every record must keep (DATA-2).
UNKNOWN_FIELD = ("note", "kept as written")
Entry = tuple[cmd.Command, int]
"""A class representative and how many commands of the alphabet it stands for."""


def coordinates(length: int) -> tuple[JsNumber, ...]:
    """The boundary coordinates of a list of ``length``: 0, ±1, ±length, NaN, ±Infinity, -0.5, -0."""
    return (0, 1, -1, length, -length, math.nan, math.inf, -math.inf, -0.5, -0.0)


def message(index: int, body: str = ORIGINAL) -> UserMessage:
    created = UserMessage.create(ID_NAMES[index], body)
    if body == ORIGINAL:
        return created
    return UserMessage.from_json({**created.to_json(), UNKNOWN_FIELD[0]: UNKNOWN_FIELD[1]})


class Alphabet:
    """The commands of one scope; :meth:`entries` lists a state's class representatives."""

    def __init__(self, scope: sc.Scope, *, classes: bool = True) -> None:
        self.scope = scope
        self.kinds = frozenset(scope.kinds)
        self.classes = classes
        self.messages: Messages = tuple(message(i) for i in range(scope.ids))
        self.edited: Messages = tuple(message(i, EDITED) for i in range(scope.ids))
        self.sends: tuple[cmd.Send, ...] = tuple(
            cmd.Send(m, target, wake) for m in self.messages for target in InboxTarget for wake in (True, False)
        )
        self.actions: tuple[cmd.ListenerActionT, ...] = (
            *self.sends, cmd.Cancel(), cmd.Cancel(keep_inbox=True),
            *(cmd.Remove(m.id) for m in self.messages), cmd.Clear(),
            # An insertion at -0, which the inbox always refuses (NORM-5): inside a listener the
            # refusal's text becomes the listener's error, which the live stream carries.
            *(cmd.Splice(InboxTarget.NEXT_TURN, -0.0, 0, (m,)) for m in self.messages),
        )
        inserts: list[Messages] = [(), *((m,) for m in self.messages), (self.messages[0], self.messages[0])]
        self.inserts = tuple(inserts)
        self.results = self._results()
        self.stoppings = self._stoppings()
        self._kept: dict[Hashable, list[Entry]] = {}
        self._whole: dict[Hashable, list[Entry]] = {}
        self._members: dict[Hashable, tuple[tuple[cmd.Command, ...], ...]] = {}

    # ---- the menus ----

    def _results(self) -> tuple[cmd.StepResult, ...]:
        out: list[cmd.StepResult] = [cmd.Stop(), cmd.MaxTokens()]
        for context in [(), *((m,) for m in self.messages)]:
            out += [cmd.ToolCalls(context), cmd.ToolCalls(context, conclude=True)]
        out += [
            cmd.ToolCall(), cmd.ToolCall(started=False),
            cmd.ToolStart(), cmd.ToolResult(),
            cmd.RequestError(retry=True), cmd.RequestError(code="RATE_LIMITED"),
            cmd.Fail(),
        ]
        return tuple(out)

    def _stoppings(self) -> tuple[cmd.TurnStopping, ...]:
        out = [cmd.TurnStopping(), cmd.TurnStopping(raises="turn-stopping listener broke"), cmd.TurnStopping(
            (cmd.Cancel(),))]
        for m in self.messages:
            out += [cmd.TurnStopping((send,)) for send in self.sends if send.message == m]
            out.append(cmd.TurnStopping((cmd.steer(m),), raises="turn-stopping listener broke"))
        return tuple(out)

    def chains(self, batch: Messages) -> tuple[tuple[ls.Listener, ...], ...]:
        """Listener chains: each decision shape, each listener kind, each action before and after."""
        ids = tuple(m.id for m in batch)
        out: list[tuple[ls.Listener, ...]] = [
            (),
            (ls.Veto(ls.Reject()),),
            (ls.Wrap(ls.Replace(ls.Reject())),),
            (ls.Veto(ls.Enter()),),
            (ls.Wrap(ls.Drop(ids)),),
            (ls.Wrap(ls.Drop(ids[:1])),),
            (ls.Throw(BROKE),),
        ]
        out += [(ls.Wrap(ls.Add((m,))),) for m in self.messages]
        out += [(ls.Veto(ls.Enter((m,))),) for m in self.messages]
        out += [(ls.Wrap(ls.Keep(), before=(a,)),) for a in self.actions]
        out += [(ls.Throw(BROKE, before=(a,)),) for a in self.actions]
        # Two listeners: the outer's `after` runs after the inner veto's `before` (DECIDE-3's order).
        out += [(ls.Wrap(ls.Keep(), after=(s,)), ls.Veto(ls.Reject(), before=(cmd.Cancel(keep_inbox=True),)))
                for s in self.sends]
        # Two transforms that do not commute: the outer one applies last, to what the inner returned (DECIDE-3).
        out.append((ls.Wrap(ls.Replace(ls.Reject())), ls.Wrap(ls.Replace(ls.Enter()))))
        return tuple(out)

    # ---- a state's commands ----

    def entries(self, agent: Agent, used: Collection[str] | None = None) -> list[Entry]:
        """The class representatives of every command of the scope at ``agent``, with class sizes.

        Each part of the alphabet depends on a small signature of the state (lane lengths and
        where each id is pending; the batch; whether a cause would be written; the phase), so
        the parts are computed once per signature and reused.

        ``used`` are the ids the state's key mentions; the others are interchangeable, so of the
        commands that differ only in which unused ids they mention, only the one mentioning the
        first unused ids in pool order is kept (the rest lead to renamings of its successor).
        """
        entries = self._entries(agent)
        if used is None:
            return entries
        fresh = tuple(name for name in ID_NAMES[: self.scope.ids] if name not in used)
        if len(fresh) < 2:
            return entries
        # Keyed by identity: each distinct parts list is one cached object that lives as long as the alphabet.
        signature = (id(entries), fresh)
        kept = self._kept.get(signature)
        if kept is None:
            kept = self._kept[signature] = [e for e in entries if canonical(e[0], fresh)]
        return kept

    def _entries(self, agent: Agent) -> list[Entry]:
        parts = self._signature(agent)
        signature = (tuple(parts), self.classes)
        whole = self._whole.get(signature)
        if whole is None:
            whole = self._whole[signature] = [e for part in parts for e in self._group(self._keyed(part, agent.inbox))]
        return whole

    def _signature(self, agent: Agent) -> list[Hashable]:
        """The parts of the alphabet at ``agent``, each named by what its commands depend on."""
        inbox, run, phase = agent.inbox, agent.running, agent.phase
        kinds = self.kinds
        parts: list[Hashable] = []
        if sc.EDITS in kinds:
            parts.append(("edits", len(inbox.next_turn), len(inbox.next_step),
                          tuple(locate(inbox, m.id) for m in self.messages)))
        if sc.SENDS in kinds:
            parts.append(("sends",))
        if sc.CANCELS in kinds:
            parts.append(("cancels", run is not None and run.aborted is None))
        if phase == DECIDING and sc.DECISIONS in kinds and run is not None:
            parts.append(("decide", run.batch, run.aborted is None))
        if phase == STEPPING and sc.RESULTS in kinds:
            parts.append(("results",))
        if phase == STOPPING and sc.STOPPING_ANSWERS in kinds:
            parts.append(("stopping",))
        if sc.RESTARTS in kinds:
            parts.append(("restart",))
        if sc.WRONG in kinds:
            parts.append(("wrong", phase))
        return parts

    def _keyed(self, part: Hashable, inbox: InboxState) -> list[tuple[Hashable, cmd.Command]]:
        """One part of the alphabet, each command with its class key (see the module docstring)."""
        assert isinstance(part, tuple)
        name = part[0]
        keyed: list[tuple[Hashable, cmd.Command]]
        if name == "edits":
            keyed = self._edits(inbox)
        elif name == "sends":
            keyed = [(("send", i), s) for i, s in enumerate(self.sends)]
        elif name == "cancels":
            keyed = self._cancels(part[1])
        elif name == "decide":
            keyed = self._decisions(part[1], part[2])
        elif name == "results":
            keyed = [(("result", i), r) for i, r in enumerate(self.results)]
        elif name == "stopping":
            keyed = [(("stop", i), s) for i, s in enumerate(self.stoppings)]
        elif name == "restart":
            keyed = [(("restart",), cmd.Restart())]
        else:
            keyed = self._wrong(part[1])
        return keyed

    def members(self, agent: Agent) -> tuple[tuple[cmd.Command, ...], ...]:
        """Every class of commands at ``agent`` with all its members, the representative first.

        In the order of :meth:`entries` without ``used`` (the tests step each member; a
        conformance tour sends a different member each time it sends a class).  Cached by the
        state's signature, as the entries are.
        """
        signature = tuple(self._signature(agent))
        cached = self._members.get(signature)
        if cached is None:
            out: list[tuple[cmd.Command, ...]] = []
            for part in signature:
                classes: dict[Hashable, list[cmd.Command]] = {}
                for key, command in self._keyed(part, agent.inbox):
                    classes.setdefault(key, []).append(command)
                out += (tuple(members) for members in classes.values())
            cached = self._members[signature] = tuple(out)
        return cached

    def _group(self, keyed: list[tuple[Hashable, cmd.Command]]) -> list[Entry]:
        if not self.classes:
            return [(c, 1) for _, c in keyed]
        classes: dict[Hashable, list[cmd.Command]] = {}
        for key, command in keyed:
            classes.setdefault(key, []).append(command)
        return [(members[0], len(members)) for members in classes.values()]

    def _decisions(self, batch: Messages, live: bool) -> list[tuple[Hashable, cmd.Command]]:
        # The agent reads a chain only through run_chain, and not at all once the turn is aborted.
        return [(("decide", ls.run_chain(batch, chain) if live else None), cmd.Decide(chain))
                for chain in self.chains(batch)]

    def _cancels(self, writes_cause: bool) -> list[tuple[Hashable, cmd.Command]]:
        return [(("cancel", keep, cause if writes_cause else None), cmd.Cancel(cause, keep))
                for keep in (False, True) for cause in CAUSES]

    def _wrong(self, phase: str) -> list[tuple[Hashable, cmd.Command]]:
        # One answer per await point the agent is not at: the table has no row there (INPUT-4).
        wrong: dict[str, cmd.Command] = {DECIDING: cmd.Decide(), STEPPING: cmd.Stop(),
                                         STOPPING: cmd.TurnStopping()}
        return [(("wrong", at), answer) for at, answer in wrong.items() if at != phase]

    def _edits(self, inbox: InboxState) -> list[tuple[Hashable, cmd.Command]]:
        # The named edits first, so a class's representative is the named API, not the raw splice.
        out: list[tuple[Hashable, cmd.Command]] = []
        for i, m in enumerate(self.messages):
            where = locate(inbox, m.id)
            for j in range(len(self.messages)):
                new, which = (self.edited[i], ("edited", i)) if i == j else (self.messages[j], 1 + j)
                key = ("noop",) if where is None else ("splice", where[0], where[1], 1, False, which)
                out.append((key, cmd.Replace(m.id, new)))
            key = ("noop",) if where is None else ("splice", where[0], where[1], 1, False, 0)
            out.append((key, cmd.Remove(m.id)))
        out.append((("clear",), cmd.Clear()))
        for target in InboxTarget:
            length = len(inbox.lane(target))
            for i, m in enumerate(self.messages):
                out.append((_splice_key(target, length, length, 0, 1 + i), cmd.Append(target, m)))
                out.append((_splice_key(target, length, 0, 0, 1 + i), cmd.Prepend(target, m)))
            for start in coordinates(length):
                for count in coordinates(length):
                    for index, inserted in enumerate(self.inserts):
                        out.append((_splice_key(target, length, start, count, index),
                                    cmd.Splice(target, start, count, inserted)))
        return out


def _splice_key(target: InboxTarget, length: int, start: JsNumber, count: JsNumber, inserted: int) -> Hashable:
    """The class of a public edit: what ``mutate`` sees after ``normalize`` (SPLICE-2's no-op elided).

    ``inserted`` indexes :attr:`Alphabet.inserts` (0 is nothing inserted).
    """
    where = normalize(start, count, length)
    if where.delete_count == 0 and inserted == 0:
        return ("noop",)
    return ("splice", target, where.start, where.delete_count, where.negative_zero_start, inserted)
