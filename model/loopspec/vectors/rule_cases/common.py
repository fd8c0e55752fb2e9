"""What the hand-written case tables share: message and event names, the common commands."""

from __future__ import annotations

from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.log.kinds import (
    AGENT_ERROR,
    AGENT_STATUS,
    CLAIMED,
    DISCARDED,
    END_SEED,
    INSERTED,
    SPLICED,
    STEP_END,
    STEP_START,
    TURN_END,
    TURN_START,
    USER_MESSAGE,
)
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.case import CaseSpec, Probe
from loopspec.vectors.command_gen import message
from loopspec.vectors.reference_model import VectorCommand

NT, NS = InboxTarget.NEXT_TURN, InboxTarget.NEXT_STEP
SPL, TS, TE, SS, SE, UM, SEED = (
    SPLICED, TURN_START, TURN_END, STEP_START, STEP_END, USER_MESSAGE, END_SEED)
INS, DIS, CLM, STAT, ERR = (
    INSERTED, DISCARDED, CLAIMED, AGENT_STATUS, AGENT_ERROR)
ENTER = cmd.Decide()
REJECT = cmd.Decide((ls.Veto(ls.Reject()),))
ENTER_NOTHING = cmd.Decide((ls.Veto(ls.Enter()),))
STOP = cmd.Stop()
TOOLS = cmd.ToolCalls()
TOOL_CALL, TOOL_RESULT = cmd.ToolCall(), cmd.ToolResult()
STOPPING = cmd.TurnStopping()
KEEP = cmd.Cancel(keep_inbox=True)
EMPTY: dict[str, list[str]] = {"next-turn": [], "next-step": []}
MINUS_ZERO_TEXT = "session event \"agent/inbox/spliced\" carries non-JSON-serializable data"


def m(mid: str) -> UserMessage:
    return message(mid)


def nt(*ids: str) -> tuple[cmd.Command, ...]:
    """Append messages to next-turn (public edits: no wake)."""
    return tuple(cmd.Append(NT, m(i)) for i in ids)


def throwing(text: str = "listener broke", *before: cmd.ListenerActionT) -> cmd.Decide:
    return cmd.Decide((ls.Throw(text, before),))


def acting(*before: cmd.ListenerActionT) -> cmd.Decide:
    """A pre-step listener that performs ``before`` and then lets the default enter the batch."""
    return cmd.Decide((ls.Wrap(before=before),))


def error_reason(text: str) -> dict[str, object]:
    return {"kind": "error", "error": {"message": text, "code": "UNKNOWN"}}


def case(path: str, rules: tuple[str, ...], description: str, commands: tuple[VectorCommand, ...],
         probe: Probe) -> CaseSpec:
    return CaseSpec(path, "rule", rules, description, commands, probe)
