"""A mutant as the reference model plus one patched function, served like the model itself.

The bug is installed only *while the mutant handles a request* and removed right after, so a
mutant can share a process with the model it is compared against (``InProcessAdapter``): the
oracle never runs with a patch in place.  Patches replace an attribute that the model looks up at
call time (``loopspec.inbox.operations.claim``, ``loopspec.loop.lifecycle.EFFECTS``, the driver's
table lookup ``rows_for``, its guard and prelude registries ``GUARDS`` and ``PRELUDES``, a record's
``to_json``, ...); the model's files are never edited.  A mutant changes one behaviour, which takes
one attribute or, when the behaviour spans two places (a claim moved from one command to another),
two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType, ModuleType

import attrs

from loopspec.data.errors import InvalidEvent
from loopspec.loop import lifecycle as model_lifecycle
from loopspec.loop.effects import EFFECTS
from loopspec.loop.guards import GUARDS, Guard
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.phases import Row
from loopspec.loop.preludes import PRELUDES, PreludeFunction
from loopspec.loop.work import Work
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.json_reading import Json
from loopspec.vectors.reference_model import VectorCommand

Effect = Callable[[Work, str], None]
Witness = Callable[[Json, Json], bool]


@attrs.frozen(eq=False)  # identity semantics: a replacement may be an unhashable mapping
class Patch:
    """Replace ``module.name`` by ``replacement`` while a mutant handles a request."""

    module: ModuleType | type
    name: str
    replacement: object


def effect_patch(replacements: Mapping[str, Effect]) -> Patch:
    """Swap named effects of the lifecycle table (the table's rows and guards stay the model's)."""
    effects: Mapping[str, Effect] = MappingProxyType({**EFFECTS, **replacements})
    return Patch(model_lifecycle, "EFFECTS", effects)


def guard_patch(replacements: Mapping[str, Guard]) -> Patch:
    """Swap named guards of the lifecycle table (rows and effects stay the model's)."""
    guards: Mapping[str, Guard] = MappingProxyType({**GUARDS, **replacements})
    return Patch(model_lifecycle, "GUARDS", guards)


def prelude_patch(replacements: Mapping[str, PreludeFunction]) -> Patch:
    """Swap named preludes of the lifecycle table (what an await point's answer does first)."""
    preludes: Mapping[str, PreludeFunction] = MappingProxyType({**PRELUDES, **replacements})
    return Patch(model_lifecycle, "PRELUDES", preludes)


def table_patch(rewrite: Callable[[tuple[Row, ...]], tuple[Row, ...]]) -> Patch:
    """Run the agent on a rewritten table (rows reordered, dropped, added or given other effects)."""
    rows = rewrite(TABLE)

    def rows_for(phase: str, input_name: str) -> tuple[Row, ...]:
        return tuple(row for row in rows if row.phase == phase and row.input == input_name)

    return Patch(model_lifecycle, "rows_for", rows_for)


def with_effects(key: str, effects: tuple[str, ...]) -> Callable[[tuple[Row, ...]], tuple[Row, ...]]:
    """A table rewrite giving the row ``key`` other effects."""
    def rewrite(table: tuple[Row, ...]) -> tuple[Row, ...]:
        assert any(row.key == key for row in table), key
        return tuple(attrs.evolve(row, effects=effects) if row.key == key else row for row in table)

    return rewrite


@contextmanager
def installed(patches: tuple[Patch, ...]) -> Iterator[None]:
    saved = [(p, getattr(p.module, p.name)) for p in patches]
    try:
        for p in patches:
            setattr(p.module, p.name, p.replacement)
        yield
    finally:
        for p, original in reversed(saved):
            setattr(p.module, p.name, original)


@attrs.frozen
class Mutant:
    """One realistic bug: the rule it breaks and how to recognise the observation it changes.

    ``differs`` is a predicate over the first differing command's expected (model) and actual
    (mutant) observations — or ``{"state": ...}`` pairs when the observations agree and the states
    after the command do not; it says "this difference is the one my bug makes".
    """

    name: str
    rule: str
    bug: str
    patches: tuple[Patch, ...]
    differs: Witness
    needs: str | None = None
    """``"v2"`` when only protocol v2's observation (notification order, event times) shows the bug."""
    unseen: Callable[[Json], bool] | None = None
    """Commands whose outcome reads what the bug changes where neither observation nor state shows it
    (the step number a listener's ``when`` is matched against): a first difference at such a command,
    the states before it agreeing, is the hallmark too."""

    def recognises(self, command: Json, expected: Json, actual: Json) -> bool:
        """The first difference, made at ``command``, is this bug's hallmark."""
        return self.differs(expected, actual) or (self.unseen is not None and self.unseen(command))


class MutantHandler(ModelHandler):
    """The reference handler with the mutant's patches in place during each request."""

    def __init__(self, mutant: Mutant) -> None:
        super().__init__()
        self.mutant = mutant
        self.implementation = f"loopspec-mutant {mutant.name} (breaks {mutant.rule})"

    def handle(self, request: object) -> Json:
        # The whole request, not only the command: some bugs are in how the state is reported.
        with installed(self.mutant.patches):
            return super().handle(request)

    def apply(self, command: VectorCommand) -> Json:
        """As the model, except that a mutant's own log may no longer fold when a restart reloads it
        (its bug wrote what the rules forbid): it then refuses to reload, naming the rule, as an
        implementation whose store holds a corrupt session would, and the case fails there."""
        try:
            return super().apply(command)
        except InvalidEvent as broken:
            return {"ok": False, "code": broken.rule, "message": f"the session does not reload: {broken.message}"}
