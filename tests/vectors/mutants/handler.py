"""A mutant as the reference model plus one patched function, served like the model itself.

The bug is installed only *while the mutant handles a request* and removed right after, so a
mutant can share a process with the model it is compared against (``InProcessAdapter``): the
oracle never runs with a patch in place.  Patches replace a module attribute that the model looks
up at call time (``loopspec.inbox.operations.claim``, ``loopspec.loop.agent.EFFECTS``, ...); the model's files
are never edited.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType, ModuleType

import attrs

from loopspec.loop import agent as model_agent
from loopspec.loop.effects import EFFECTS
from loopspec.loop.work import Work
from loopspec.vectors.adapter.reference import ModelHandler
from loopspec.vectors.json_reading import Json
from loopspec.vectors.reference_model import VectorCommand

Effect = Callable[[Work, str], None]


@attrs.frozen(eq=False)  # identity semantics: a replacement may be an unhashable mapping
class Patch:
    """Replace ``module.name`` by ``replacement`` while a mutant handles a request."""

    module: ModuleType
    name: str
    replacement: object


def effect_patch(replacements: Mapping[str, Effect]) -> Patch:
    """Swap named effects of the lifecycle table (the table's rows and guards stay the model's)."""
    effects: Mapping[str, Effect] = MappingProxyType({**EFFECTS, **replacements})
    return Patch(model_agent, "EFFECTS", effects)


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
    (mutant) observations; it says "this difference is the one my bug makes".
    """

    name: str
    rule: str
    bug: str
    patches: tuple[Patch, ...]
    differs: Callable[[Json, Json], bool]


class MutantHandler(ModelHandler):
    """The reference handler with the mutant's patches in place during each command."""

    def __init__(self, mutant: Mutant) -> None:
        super().__init__()
        self.mutant = mutant
        self.implementation = f"loopspec-mutant {mutant.name} (breaks {mutant.rule})"

    def apply(self, command: VectorCommand) -> Json:
        with installed(self.mutant.patches):
            return super().apply(command)
