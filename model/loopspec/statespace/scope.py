"""A bounded scope of exploration: how many message ids, how many commands, which command families.

The small-scope hypothesis (Jackson): most design bugs show up with a few messages and a few
steps, so a scope small enough to exhaust says more than a large one sampled.  The named scopes
are the ones the test profiles run and ``docs/exploration.md`` records.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

# Command families, each a part of the command language (spec/command-language.md).
EDITS = "edits"  # append, prepend, splice (boundary coordinates), replace, remove, clear
SENDS = "sends"  # send of each target and wake (followup, steer, inject, non-waking next-turn)
CANCELS = "cancels"  # cancel with and without keepInbox, each cause kind
DECISIONS = "decisions"  # pre-step listener chains: each decision shape and listener behaviour
RESULTS = "results"  # step results of every kind, tool calls inside a step
STOPPING_ANSWERS = "stopping"  # turn-stopping answers: nothing, steering, a throw
RESTARTS = "restarts"  # a crash and reload at any point
WRONG = "wrong-answers"  # an await point's answer where the table has no row (INPUT-4 refusals)
HOP_STOPS = "hops"  # each command stopping at each hop it passes, and advance (spec/loop-grain.md)
KINDS = (EDITS, SENDS, CANCELS, DECISIONS, RESULTS, STOPPING_ANSWERS, RESTARTS, WRONG, HOP_STOPS)


def _kinds(value: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [k for k in value if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown command famil{'ies' if len(unknown) > 1 else 'y'} {unknown}; known: {list(KINDS)}")
    return tuple(k for k in KINDS if k in value)  # canonical order


# The message ids a scope can use: the alphabet names this many (loopspec explore --ids states it).
MAX_IDS = 6


@attrs.frozen
class Scope:
    """``ids`` message ids, executions of up to ``depth`` commands, the command families ``kinds``."""

    ids: int = attrs.field(validator=attrs.validators.in_(range(1, MAX_IDS + 1)))
    depth: int = attrs.field(validator=attrs.validators.ge(0))
    kinds: tuple[str, ...] = attrs.field(default=KINDS, converter=_kinds)

    def describe(self) -> str:
        kinds = "every command family" if self.kinds == KINDS else "the families " + ", ".join(self.kinds)
        return f"all executions of up to {self.depth} commands over {self.ids} message id(s), {kinds}"

    def label(self) -> str:
        suffix = "" if self.kinds == KINDS else " --commands " + ",".join(self.kinds)
        return f"--ids {self.ids} --depth {self.depth}{suffix}"


# The scopes the test profiles exhaust (HYPOTHESIS_PROFILE) and docs/exploration.md records.
SCOPES: Mapping[str, Scope] = MappingProxyType({
    "dev": Scope(1, 4),
    "ci": Scope(2, 6),
    "thorough": Scope(3, 7),
})
