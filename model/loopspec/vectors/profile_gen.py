"""Commands for one capability profile, on top of :class:`~loopspec.vectors.command_gen.Generator`.

* ``full`` — the generator as it is;
* ``loop`` — the same commands with every public inbox edit taken out: a top-level edit becomes a
  send, and listeners' and turn-stopping actions keep only their sends and cancels (the loop
  profile has no public edits);
* ``inbox`` — edits and the inbox profile's ``claim`` (all of next-step, plus one next-turn
  message when claiming for a turn's first boundary; CLAIM-1), over an inbox-only model.

Edits are removed *after* generation rather than never drawn, so the loop profile reuses the
generator's choices unchanged and follows whatever weighting it has.
"""

from __future__ import annotations

import attrs

from loopspec.data.errors import CommandRefused
from loopspec.data.messages import InboxTarget
from loopspec.inbox.session import InboxSession
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.commands import Advance, Stopping
from loopspec.loop.lifecycle import advance, hops_passed, step
from loopspec.loop.phase_names import FAILING, HOPS
from loopspec.loop.state import Agent, AgentTransition
from loopspec.vectors.command_gen import AT_HOP_CHOICES, Chooser, Generator
from loopspec.vectors.command_hints import hop_call
from loopspec.vectors.reference_model import Claim, Model, VectorCommand
from loopspec.vectors.swarm import Swarm

EDITS = (cmd.Append, cmd.Prepend, cmd.Splice, cmd.Replace, cmd.Remove, cmd.Clear)
CLAIM_TURNS = 3  # a few turn numbers: the claimed notifications must carry the one given


def _actions(actions: tuple[cmd.ListenerActionT, ...]) -> tuple[cmd.ListenerActionT, ...]:
    return tuple(a for a in actions if not isinstance(a, EDITS))


def _listener(listener: ls.Listener) -> ls.Listener:
    if isinstance(listener, ls.Wrap):
        return attrs.evolve(listener, before=_actions(listener.before), after=_actions(listener.after),
                            after_enter=_actions(listener.after_enter), after_reject=_actions(listener.after_reject))
    return attrs.evolve(listener, before=_actions(listener.before))


def without_edits(command: cmd.Command) -> cmd.Command | None:
    """``command`` with its public edits taken out; None when it is an edit itself."""
    if isinstance(command, EDITS):
        return None
    if isinstance(command, cmd.Decide):
        return cmd.Decide(tuple(_listener(x) for x in command.listeners))
    if isinstance(command, cmd.TurnStopping):
        return attrs.evolve(command, actions=_actions(command.actions))
    return command


def _fails(command: cmd.Command | None) -> bool:
    """Whether ``command`` is an answer that fails the turn (END-2) unless the turn was aborted."""
    if isinstance(command, cmd.Fail) or (isinstance(command, cmd.RequestError) and not command.retry):
        return True
    if isinstance(command, cmd.TurnStopping):
        return command.raises is not None
    return isinstance(command, cmd.Decide) and any(isinstance(x, ls.Throw) for x in command.listeners)


class ProfileGenerator:
    """The next command for a profile's model (an :class:`Agent`, or an :class:`InboxSession` for ``inbox``)."""

    def __init__(self, chooser: Chooser, profile: str = "full", serial: int = 0, swarm: Swarm | None = None,
                 stops: tuple[str, ...] = ()) -> None:
        self.gen = Generator(chooser, serial, swarm)
        self.ch = chooser
        self.profile = profile
        # How often a command stops at a hop it passes: "run" or "hop" per option (command_gen's
        # STOP_CHOICES, say); none, the default, never stops, so that every implementation can run
        # the commands, hop stops or not (a lacked capability).
        self.stops = stops

    def next_command(self, model: Model) -> VectorCommand:
        if isinstance(model, InboxSession):
            return self.inbox_command(model)
        # At a hop after an abort, a call is likelier than going on: what lands there decides the end
        # (a wake redirected and latched, or not; CANCEL-4).
        aborted = model.running is not None and model.running.aborted is not None
        if model.phase in HOPS and self.gen.choose("at-hop", AT_HOP_CHOICES[::-1] if aborted else AT_HOP_CHOICES) \
                == "advance":
            return self.stopped(model, None)
        # At a hop, half the calls are the ones that land there in the real loop (a wake, a cancel, a
        # removal of what the loop is about to take, a crash): each hop's rows come up in short walks.
        at_hop = model.phase in HOPS and self.ch.pick((True, False))
        command = hop_call(self.gen, model) if at_hop else self.gen.next_command(model)
        if self.profile == "loop":
            kept = without_edits(command)
            command = kept if kept is not None else self.gen.send(model)
        return self.stopped(model, command)

    def stopped(self, agent: Agent, command: cmd.Command | None) -> VectorCommand:
        """``command`` (``advance`` when None), now and then stopping at one of the hops its run passes.

        The hops are found by running the model once: only the loop knows which it passes."""
        plain: VectorCommand = Advance() if command is None else command
        if not self.stops:
            return plain
        # A failing answer stops at failing half the time besides: only a call landing there
        # (between agent/error and the error end) shows END-3, and the other failures are rare.
        failing = _fails(command) and self.ch.pick((True, False))
        if self.gen.choose("stop", self.stops) == "run" and not failing:
            return plain
        try:
            passed: AgentTransition = advance(agent) if command is None else step(agent, command)
        except CommandRefused:
            return plain
        hops = hops_passed(passed)
        if not hops:
            return plain
        if failing and FAILING in hops:
            return Stopping(command, FAILING) if command is not None else Advance(FAILING)
        # Mostly the first hop passed: the point right after what the command itself wrote, where a
        # listener of its last notification (or a host's continuation) acts.
        hop = hops[0] if self.ch.pick((True, False)) else self.ch.pick(hops)
        return Advance(hop) if command is None else Stopping(command, hop)

    def inbox_command(self, session: InboxSession) -> VectorCommand:
        view = Agent(inbox=session.inbox)  # the generator reads nothing of an agent but its inbox
        if self.ch.integer(0, 3) == 0:
            return Claim(self.ch.pick(tuple(InboxTarget)), self.ch.integer(1, CLAIM_TURNS))
        return self.gen.edit(view)
