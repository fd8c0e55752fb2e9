"""Conformance by transition tour: every class of command at every model state, sent in long walks.

``loopspec explore --tour -- ADAPTER`` is the exhaustive conformance search of :mod:`.conformance`
made affordable for a scope as large as ``ci``.  That search sends one fresh case per explored
path, and against a real implementation the fresh case is most of the cost (an agent, a session
and a store).  A tour sends few, long cases instead: from a fresh adapter it walks the model's
state graph (:mod:`.tour_plan`), at each state first sending every class of command not yet sent
there that leaves the state where it is (refusals, edits that change nothing: one after another),
then one that moves on, preferring a state with classes still to send; where nothing is left to
send it takes one or two commands to a state that has, and only when none is that close does it
start a fresh case, walking the shortest way to the first state left.  Every command sent is
compared with the model's answer from the state the walk has brought the model to.

**What it covers.**  Every class of :class:`~loopspec.statespace.alphabet.Alphabet` is sent at
every state of the scope (ids as they are: no symmetry reduction), each time a different member
of the class, so across the tour every member is sent too, at some state.  What it gives up, and
where that is covered instead: a class is sent at a state once, in whichever history the walk
reached it by, so a difference that shows only after one particular history (an implementation
remembering what the model forgets) is found when the walk happens to take it; the breadth-first
search of :mod:`.conformance`, whose key holds the rows fired since the agent was last idle, and
``drive``'s random histories are what look for those.

**A disagreement** stops the tour.  It is reported with the shortest way to the state it was met
at followed by the command, when that shorter case disagrees too; otherwise (the difference
depends on the walk's history) with the walk up to the command.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import attrs

from loopspec.explore.adapter_pool import Checks
from loopspec.explore.conformance import CONFORMS, problem_of
from loopspec.explore.invariants import Problem
from loopspec.explore.result import Counterexample, TourResult
from loopspec.explore.tour_plan import TourPlan
from loopspec.loop import commands as cmd
from loopspec.loop.state import Agent
from loopspec.statespace.scope import Scope
from loopspec.vectors.capabilities import needs_lacked
from loopspec.vectors.codec import encode_command
from loopspec.vectors.drive_check import Expected, expectations
from loopspec.vectors.observation import observe, state_of
from loopspec.vectors.profiles import ops_of

FRESH_CASE = 3  # what a fresh case costs, in commands (a real one's reset is a few commands' time)
# Commands in one case: long enough to share the fresh start, short enough that a restart (which
# reloads the whole session, in the model and in a real implementation) stays cheap.
LONGEST = 300
BATCH = 4_000  # commands per worker handed to the checks at once
SHRINK_ROUNDS = (1, 8, 64, LONGEST + 1)


@attrs.frozen
class Walk:
    """One case of the tour: its commands with the model's answers, and where each was sent from."""

    steps: tuple[Expected, ...]
    keys: tuple[int, ...]  # the state each command was sent at
    commands: tuple[cmd.LoopCommand, ...]


@attrs.define
class _Walking:
    """A walk being planned."""

    steps: list[Expected] = attrs.Factory(list)
    keys: list[int] = attrs.Factory(list)
    commands: list[cmd.LoopCommand] = attrs.Factory(list)

    def done(self) -> Walk:
        return Walk(tuple(self.steps), tuple(self.keys), tuple(self.commands))


class Tour:
    """The walks of one tour, planned as they are taken (the model's side only: nothing is sent here).

    Where the state a walk is at has nothing left to send, it follows signposts: for every state
    of the map, the first command of a shortest way to a state with classes left (a breadth-first
    search backwards from all of those at once).  Classes only ever get sent, so a signpost can
    only be too hopeful: a way that ends at a state with nothing left any more redraws them.
    """

    def __init__(self, plan: TourPlan, checks: Checks) -> None:
        self.plan = plan
        self.profile, self.lacks = checks.profile, checks.lacks
        # Per expanded state, the classes not yet sent there (in alphabet order).
        self.left: dict[int, list[int]] = {key: list(range(len(c))) for key, c in plan.classes.items()}
        self.root = next(iter(plan.classes))
        self.turn = 0  # which member of a class to send next: each time another
        self.sent = 0
        self.skipped = 0
        self._runs: dict[cmd.LoopCommand, bool] = {}
        self.forward = {key: self._moves_from(key) for key in plan.classes}
        self.backward: dict[int, list[tuple[int, cmd.LoopCommand]]] = {}
        for key, moves in self.forward.items():
            for after, command in moves:
                self.backward.setdefault(after, []).append((key, command))
        reachable = self._distances([self.root], self.forward)
        for key in plan.classes:
            if key not in reachable:  # no way there the adapter can take: nothing there is sent
                self.skipped += len(self.left[key])
                self.left[key] = []
        self.signposts: dict[int, tuple[int, cmd.LoopCommand | None, int]] = {}
        self._redraw()

    def _moves_from(self, key: int) -> list[tuple[int, cmd.LoopCommand]]:
        """The distinct other states of the map one command from ``key``, by a command the adapter can take."""
        agent, seen = self.plan.agents[key], {}
        for members, after in zip(self.plan.classes[key], self.plan.successors[key], strict=True):
            if after is None or after == key or after in seen or not self.plan.expanded(after):
                continue
            command = next((m for m in members if self._runs_here(agent, m)), None)
            if command is not None:
                seen[after] = command
        return list(seen.items())

    @staticmethod
    def _distances(sources: list[int], edges: dict[int, list[tuple[int, cmd.LoopCommand]]]) -> dict[
            int, tuple[int, cmd.LoopCommand | None, int]]:
        """Breadth first from ``sources`` along ``edges``: per state, its distance and the edge it was reached by."""
        out: dict[int, tuple[int, cmd.LoopCommand | None, int]] = {k: (0, None, k) for k in sources}
        frontier, distance = sources, 0
        while frontier:
            distance += 1
            level = []
            for key in frontier:
                for other, command in edges.get(key, ()):
                    if other not in out:
                        out[other] = (distance, command, key)
                        level.append(other)
            frontier = level
        return out

    def _redraw(self) -> None:
        """The signposts: backwards from every state with classes left, the way there."""
        self.signposts = self._distances([k for k, left in self.left.items() if left], self.backward)

    def paths(self) -> Callable[[int], tuple[cmd.LoopCommand, ...] | None]:
        """Shortest ways from a fresh agent by commands the adapter can take: per state, one (None: none)."""
        ways = self._distances([self.root], self.forward)

        def path(key: int) -> tuple[cmd.LoopCommand, ...] | None:
            if key not in ways:
                return None
            out: list[cmd.LoopCommand] = []
            while (way := ways[key])[1] is not None:
                out.append(way[1])
                key = way[2]
            return tuple(reversed(out))

        return path

    def walks(self) -> Iterator[Walk]:
        while self.root in self.signposts:
            done = self.sent + self.skipped
            walk = self._walk()
            if walk.steps:
                yield walk
            if self.sent + self.skipped == done:
                break  # a walk that sent no class would be walked again and again: the rest is out of reach
        for left in self.left.values():  # what no walk from a fresh agent reaches by commands it can take
            self.skipped += len(left)
            left.clear()

    def _walk(self) -> Walk:
        walk = _Walking()
        agent = Agent()
        key = self.plan.state(agent)
        self._check_signpost(key)
        if self.root not in self.signposts:
            return walk.done()
        fresh = self.signposts[self.root][0] + FRESH_CASE  # beyond this many commands a fresh case is nearer
        while len(walk.steps) < LONGEST:
            if self.left.get(key):
                agent, key = self._cover(agent, key, walk)
                continue
            self._check_signpost(key)
            command = self._way(agent, key, fresh)
            if command is None:
                break
            agent, key = self._send(agent, key, command, walk)
        return walk.done()

    def _check_signpost(self, key: int) -> None:
        """Redraw the signposts if they say ``key`` has classes left and it has none any more."""
        if self.signposts.get(key, (1,))[0] == 0 and not self.left.get(key):
            self._redraw()

    def _cover(self, agent: Agent, key: int, walk: _Walking) -> tuple[Agent, int]:
        """Send the classes left at ``key`` that stay there, then one that moves (to a state with some left)."""
        left, successors = self.left[key], self.plan.successors[key]
        stays = [i for i in left if successors[i] is None or successors[i] == key]
        moves = [i for i in left if not (successors[i] is None or successors[i] == key)]
        for index in stays:
            agent, now = self._class(agent, key, index, walk)
            left.remove(index)
            if now != key:  # not where the map says this class leads: go on from where it did
                return agent, now
        if not moves:
            return agent, key
        ahead = [i for i in moves if self.left.get(successors[i] or 0)]  # a move's successor is never None
        chosen = (ahead or moves)[0]
        left[:] = [i for i in moves if i != chosen]
        return self._class(agent, key, chosen, walk)

    def _class(self, agent: Agent, key: int, index: int, walk: _Walking) -> tuple[Agent, int]:
        """Send one member of class ``index`` at ``key`` (another each time), or count the class skipped."""
        members = self.plan.classes[key][index]
        self.turn += 1
        for offset in range(len(members)):
            command = members[(self.turn + offset) % len(members)]
            if self._runs_here(agent, command):
                self.sent += 1
                return self._send(agent, key, command, walk)
        self.skipped += 1
        return agent, key

    def _runs_here(self, agent: Agent, command: cmd.LoopCommand) -> bool:
        runs = self._runs.get(command)
        if runs is None:
            runs = self._runs[command] = self.profile.runs(ops_of(encode_command(command)))
        return runs and not needs_lacked(self.lacks, agent, command)

    def _way(self, agent: Agent, key: int, fresh: int) -> cmd.LoopCommand | None:
        """The next command towards a state with classes left, or None (a fresh case is nearer)."""
        if self.plan.expanded(key):
            post = self.signposts.get(key)
            if post is None or post[0] > fresh or post[1] is None or not self._runs_here(agent, post[1]):
                return None
            return post[1]
        # Past the depth bound: one command back into the map, to the state nearest one left.
        best: tuple[int, cmd.LoopCommand] | None = None
        for after, command in self.plan.moves_beyond(key, agent):
            post = self.signposts.get(after)
            if post is not None and post[0] < fresh and (best is None or post[0] < best[0]) \
                    and self._runs_here(agent, command):
                best = (post[0], command)
        return None if best is None else best[1]

    def _send(self, agent: Agent, key: int, command: cmd.LoopCommand, walk: _Walking) -> tuple[
            Agent, int]:
        after, observation = observe(agent, command)
        walk.steps.append(Expected(command, encode_command(command), observation,
                                   self.profile.state(state_of(after))))
        walk.keys.append(key)
        walk.commands.append(command)
        return after, (key if after is agent else self.plan.state(after))


def tour(scope: Scope, checks: Checks, *, seconds: float | None = None) -> TourResult:
    """Send every class of command at every state of ``scope`` to the implementation behind ``checks``."""
    started, cpu = time.perf_counter(), time.process_time()
    plan = TourPlan(scope)
    walker = Tour(plan, checks)
    deadline = None if seconds is None else started + seconds
    cases = commands = 0
    found: Counterexample | None = None
    complete = True
    batch: list[Walk] = []
    batched = 0  # the commands of the walks in the batch
    walks = walker.walks()
    while True:
        walk = next(walks, None)
        if walk is not None:
            batch.append(walk)
            batched += len(walk.steps)
            if batched < BATCH * checks.workers:
                continue
        if not batch:
            break
        cases, commands = cases + len(batch), commands + batched
        findings = checks.run([w.steps for w in batch])
        hit = next(((w, f) for w, f in zip(batch, findings, strict=True) if f is not None), None)
        batch, batched = [], 0
        if hit is not None:
            found = _shrunk(walker, checks, *hit)
            break
        if walk is None:
            break
        if deadline is not None and time.perf_counter() > deadline:
            complete = False
            break
    classes = sum(len(c) for c in plan.classes.values())
    return TourResult(scope, plan.outcome.states, len(plan.classes), classes, walker.sent, walker.skipped, cases,
                      commands, time.perf_counter() - started, time.process_time() - cpu + checks.cpu_seconds,
                      checks.workers, complete and found is None, found)


def _shrunk(walker: Tour, checks: Checks, walk: Walk, finding: tuple[str, int]) -> Counterexample:
    """The disagreement as a short case: a shortest way to a state of the walk, then the walk from there.

    Tried for every state the walk passed before the disagreeing command, the nearest first and
    in rounds of growing size (one, then 8, 64, all): the shortest way there followed by the rest
    of the walk up to that command.  The expectations of each are
    the model's, so any that disagrees is a counterexample; the shortest is kept, the one right
    before the command (a shortest way to its state) first among equals.  When none disagrees the
    difference needs the walk's own history, and the walk up to the command is the case.
    """
    needed, path = finding[1], walker.paths()
    tried: list[tuple[cmd.LoopCommand, ...]] = []
    for start in range(needed - 1, -1, -1):
        way = path(walk.keys[start])
        if way is not None:
            tried.append((*way, *walk.commands[start:needed]))
    best: tuple[tuple[cmd.LoopCommand, ...], Problem] | None = None
    done = 0
    for size in SHRINK_ROUNDS:  # the short tails first: a long one is tried only when they all agree
        batch, done = tried[done:size], max(done, min(size, len(tried)))
        for commands, again in zip(batch, checks.run([expectations(c, checks.profile) for c in batch]),
                                   strict=True):
            problem = problem_of(again, len(commands))
            if problem is not None and again is not None and (best is None or again[1] < len(best[0])):
                best = (commands[: again[1]], problem)
        if best is not None:
            break
    if best is not None:
        return Counterexample(*best)
    problem = problem_of(finding, needed)
    assert problem is not None
    assert problem.invariant == CONFORMS
    history = attrs.evolve(problem, message=f"{problem.message} (after this walk only: a shortest way to any "
                                            "state of it, then the rest of the walk, answers as the model does)")
    return Counterexample(walk.commands[:needed], history)
