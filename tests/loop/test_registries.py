"""The lifecycle table names, the registries resolve (issue 9).

Every guard a row of :data:`loopspec.loop.lifecycle.TABLE` names has a predicate in
:data:`loopspec.loop.guards.GUARDS`, every effect an entry in :data:`loopspec.loop.effects.EFFECTS`,
every effect argument (``end-turn:aborted``) an entry in ``EFFECT_ARGUMENTS``; and the other way
round, nothing is registered that no row names, and no guard or effect function is written
without being registered.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType

from loopspec.loop import effects, guards
from loopspec.loop.lifecycle import TABLE
from loopspec.loop.phases import Row


def registry_gaps(
    rows: Iterable[Row],
    guard_names: Iterable[str],
    effect_names: Iterable[str],
    effect_arguments: Mapping[str, frozenset[str]],
) -> list[str]:
    """Every disagreement between the rows and the registries, one sentence each (empty: none)."""
    rows = tuple(rows)
    gaps: list[str] = []
    used_guards = {row.guard for row in rows}
    used_effects: set[str] = set()
    used_arguments: set[tuple[str, str]] = set()
    for row in rows:
        for effect in row.effects:
            name, _, argument = effect.partition(":")
            used_effects.add(name)
            if name not in effect_arguments and argument:
                gaps.append(f"row {row.key}: effect {name!r} takes no argument, the row gives {argument!r}")
            elif name in effect_arguments:
                used_arguments.add((name, argument))
                if argument not in effect_arguments[name]:
                    gaps.append(f"row {row.key}: effect {name!r} has no argument {argument!r}")
    gaps += [f"guard {name!r} is named by a row but not registered" for name in sorted(used_guards - set(guard_names))]
    gaps += [f"guard {name!r} is registered but no row uses it" for name in sorted(set(guard_names) - used_guards)]
    effect_names = set(effect_names)
    gaps += [f"effect {name!r} is named by a row but not registered" for name in sorted(used_effects - effect_names)]
    gaps += [f"effect {name!r} is registered but no row uses it" for name in sorted(effect_names - used_effects)]
    unknown = sorted(set(effect_arguments) - effect_names)
    gaps += [f"effect arguments registered for unknown effect {name!r}" for name in unknown]
    for name, accepted in sorted(effect_arguments.items()):
        unused = sorted(arg for arg in accepted if (name, arg) not in used_arguments)
        gaps += [f"effect argument {name}:{arg} is registered but no row uses it" for arg in unused]
    return gaps


def test_table_and_registries_agree() -> None:
    gaps = registry_gaps(TABLE, guards.GUARDS, effects.EFFECTS, effects.EFFECT_ARGUMENTS)
    assert not gaps, "\n".join(gaps)


def _functions_of(module: ModuleType, keep: Callable[[inspect.Signature], bool]) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__ and keep(inspect.signature(value))
    }


def test_every_guard_function_is_registered() -> None:
    """A public predicate of guards.py that the registry does not name is dead code or a forgotten row."""
    written = {name for name in _functions_of(guards, lambda _: True) if not name.startswith("_")}
    registered = {function.__name__ for function in guards.GUARDS.values()}
    assert written - registered == set(), "guard functions no registry entry names"


def test_every_effect_function_is_registered() -> None:
    """Every module-level ``(work, arg) -> None`` function of effects.py is an entry of EFFECTS."""

    def is_effect(signature: inspect.Signature) -> bool:
        annotations = [parameter.annotation for parameter in signature.parameters.values()]
        return annotations == ["Work", "str"] and signature.return_annotation == "None"

    written = _functions_of(effects, is_effect)
    registered = {function.__name__ for function in effects.EFFECTS.values()}
    assert written, "no effect function found: the signature filter is wrong"
    assert written - registered == set(), "effect functions no registry entry names"


def test_gaps_are_found_in_a_toy_table() -> None:
    """The check can fail: each kind of disagreement is reported."""
    rows = (
        Row("idle", "send", "ready", ("insert", "end-turn:blocked"), "idle", ()),
        Row("idle", "edit", "always", ("edit:x", "end-turn:lost"), "idle", ()),
    )
    gaps = registry_gaps(
        rows,
        guard_names=("always", "spare"),
        effect_names=("insert", "edit", "end-turn", "unused"),
        effect_arguments={"end-turn": frozenset({"blocked", "finished"}), "ghost": frozenset({"a"})},
    )
    assert gaps == [
        "row idle/edit/always: effect 'edit' takes no argument, the row gives 'x'",
        "row idle/edit/always: effect 'end-turn' has no argument 'lost'",
        "guard 'ready' is named by a row but not registered",
        "guard 'spare' is registered but no row uses it",
        "effect 'unused' is registered but no row uses it",
        "effect arguments registered for unknown effect 'ghost'",
        "effect argument end-turn:finished is registered but no row uses it",
        "effect argument ghost:a is registered but no row uses it",
    ]
    agreeing = registry_gaps(rows[:1], ("ready",), ("insert", "end-turn"), {"end-turn": frozenset({"blocked"})})
    assert agreeing == []
