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

from loopspec.data.messages import InboxTarget
from loopspec.inbox.session import InboxSession
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.loop.state import Agent
from loopspec.vectors.command_gen import Chooser, Generator
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


class ProfileGenerator:
    """The next command for a profile's model (an :class:`Agent`, or an :class:`InboxSession` for ``inbox``)."""

    def __init__(self, chooser: Chooser, profile: str = "full", serial: int = 0, swarm: Swarm | None = None) -> None:
        self.gen = Generator(chooser, serial, swarm)
        self.ch = chooser
        self.profile = profile

    def next_command(self, model: Model) -> VectorCommand:
        if isinstance(model, InboxSession):
            return self.inbox_command(model)
        command = self.gen.next_command(model)
        if self.profile != "loop":
            return command
        kept = without_edits(command)
        return kept if kept is not None else self.gen.send(model)

    def inbox_command(self, session: InboxSession) -> VectorCommand:
        view = Agent(inbox=session.inbox)  # the generator reads nothing of an agent but its inbox
        if self.ch.integer(0, 3) == 0:
            return Claim(self.ch.pick(tuple(InboxTarget)), self.ch.integer(1, CLAIM_TURNS))
        return self.gen.edit(view)
