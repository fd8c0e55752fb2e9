"""The message ids a command mentions, for the alphabet's reduction of commands over unused ids.

Commands that differ only in which *unused* ids they mention lead to states equal up to renaming
ids (:mod:`.canon`), so the alphabet steps the one that mentions the first unused ids in order of
mention (:func:`canonical`) and counts the rest.
"""

from __future__ import annotations

from loopspec.data.messages import MessageId, UserMessage
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls


def canonical(command: cmd.Command, fresh: tuple[str, ...]) -> bool:
    """Whether the unused ids ``command`` mentions are the first unused ones, in order of mention."""
    order: list[str] = []
    for name in mentioned(command):
        if name in fresh and name not in order:
            order.append(name)
    return tuple(order) == fresh[: len(order)]


def mentioned(command: object) -> list[str]:
    """Every message id a command mentions, in the order its fields list them."""
    if isinstance(command, UserMessage):
        return [command.id.value]
    if isinstance(command, MessageId):
        return [command.value]
    if isinstance(command, tuple):
        return [name for item in command for name in mentioned(item)]
    if isinstance(command, cmd.Send | cmd.Append | cmd.Prepend):
        return mentioned(command.message)
    if isinstance(command, cmd.Splice):
        return mentioned(command.inserted)
    if isinstance(command, cmd.Replace):
        return [command.message_id.value, *mentioned(command.message)]
    if isinstance(command, cmd.Remove):
        return [command.message_id.value]
    if isinstance(command, cmd.Decide):
        return mentioned(command.listeners)
    if isinstance(command, cmd.StepResult):
        return mentioned(command.context) if isinstance(command, cmd.ToolCalls) else []
    if isinstance(command, cmd.TurnStopping):
        return mentioned(command.actions)
    if isinstance(command, ls.Wrap):
        return [*mentioned(command.before), *mentioned(command.transform), *mentioned(command.after)]
    if isinstance(command, ls.Veto | ls.Throw):
        return [*mentioned(command.before), *mentioned(getattr(command, "decision", ()))]
    if isinstance(command, ls.Replace):
        return mentioned(command.decision)
    if isinstance(command, ls.Enter | ls.Add):
        return mentioned(command.messages)
    if isinstance(command, ls.Drop):
        return mentioned(command.ids)
    return []
