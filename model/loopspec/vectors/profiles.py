"""Capability profiles: which commands an implementation under test answers (``spec/adapter-protocol.md``).

An adapter's ``hello`` names one profile.  The conformance tools then send only the commands of
that profile: a vector case that needs another command is reported *not run* (outside the
profile) and does not fail the run; ``drive`` generates the profile's commands only.

* ``inbox`` — the durable inbox without the loop: the six public edits and the loop's claim as a
  command of its own (``claim``), for implementations that have an inbox but no loop yet;
* ``loop`` — the loop without public inbox edits: sends, cancel and the environment's answers
  (listener actions are then sends and cancels only);
* ``full`` — the inbox's public edits and the loop (the claim is exercised by the loop's own
  boundaries, so ``claim`` is not a command here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

import attrs

EDIT_OPS = ("append", "prepend", "splice", "replace", "remove", "clear")
INPUT_OPS = ("send", "followup", "steer", "inject", "cancel")
ANSWER_OPS = ("decide", "step-result", "turn-stopping", "restart")
# The loop's hops (spec/loop-grain.md): ``advance`` goes on from one; ``stop`` is not an op but a
# command's field, listed here so that a case stopping at a hop needs a profile with the loop.
HOP_OPS = ("advance", "stop")
CLAIM_OP = "claim"
STATE_KEYS = ("inbox", "phase", "status", "lastTurn")
LISTENER_ACTIONS = ("before", "after", "afterEnter", "afterReject")  # a listener's action lists


@attrs.frozen
class Profile:
    """One profile: its commands, the keys of the state it reports, and what the log audit skips.

    ``unaudited`` are rules whose log or live check presupposes a part the profile lacks: an
    inbox without a loop claims outside any turn, which the checker (reading a whole agent's
    log) calls CLAIM-3, and it cannot place the claimed notifications by a turn (CLAIM-4,
    CLAIM-6).  The order of those notifications is still compared exactly (``nextSeq``).
    """

    name: str
    ops: frozenset[str]
    state_keys: tuple[str, ...]
    summary: str
    unaudited: frozenset[str] = frozenset()

    def runs(self, ops: Iterable[str]) -> bool:
        return set(ops) <= self.ops

    def missing(self, ops: Iterable[str]) -> tuple[str, ...]:
        return tuple(sorted(set(ops) - self.ops))

    def state(self, state: object) -> object:
        """The part of a STATE object this profile reports (the inbox profile has no loop)."""
        if not isinstance(state, dict):
            return state
        return {k: v for k, v in state.items() if k in self.state_keys}


PROFILES: Mapping[str, Profile] = MappingProxyType({
    "inbox": Profile("inbox", frozenset((*EDIT_OPS, CLAIM_OP)), ("inbox",),
                     "the inbox without the loop: the six public edits and claim",
                     frozenset({"CLAIM-3", "CLAIM-4", "CLAIM-6"})),
    "loop": Profile("loop", frozenset((*INPUT_OPS, *ANSWER_OPS, *HOP_OPS)), STATE_KEYS,
                    "the loop without public inbox edits: sends, cancel and the environment's answers"),
    "full": Profile("full", frozenset((*EDIT_OPS, *INPUT_OPS, *ANSWER_OPS, *HOP_OPS)), STATE_KEYS,
                    "the inbox's public edits and the loop"),
})
PROFILE_NAMES = tuple(PROFILES)
DEFAULT_PROFILE = "full"


def ops_of(command: object) -> set[str]:
    """Every op a JSON command uses, its listeners' and turn-stopping actions included."""
    if not isinstance(command, dict):
        return set()
    ops = {str(command.get("op"))} | ({"stop"} if "stop" in command else set())
    actions: list[object] = []
    raw_actions = command.get("actions")
    if isinstance(raw_actions, list):
        actions.extend(raw_actions)
    listeners = command.get("listeners")
    for listener in listeners if isinstance(listeners, list) else ():
        if isinstance(listener, dict):
            for key in LISTENER_ACTIONS:
                part = listener.get(key)
                if isinstance(part, list):
                    actions.extend(part)
    for action in actions:
        ops |= ops_of(action)
    return ops


def case_ops(steps: Iterable[object]) -> set[str]:
    """Every op the commands of a case's steps use."""
    ops: set[str] = set()
    for step in steps:
        if isinstance(step, dict):
            ops |= ops_of(step.get("command"))
    return ops


def profiles_running(ops: Iterable[str]) -> tuple[str, ...]:
    """The profiles whose adapters can run commands using ``ops``."""
    used = set(ops)
    return tuple(name for name, profile in PROFILES.items() if profile.runs(used))
