"""The command generator's registries name exactly the options its choices draw (issue 9).

Each choice of :class:`loopspec.vectors.command_gen.Generator` draws a name from an option tuple
and looks its builder up in a registry; a name without a builder would fail only when drawn, a
builder without a name would be dead.  Both ways are checked here, and the option tuples against
what exists: the command language's ops, the table's phases, the swarm's choices.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from loopspec.loop.phases import IDLE, PHASES
from loopspec.vectors import command_builders as builders
from loopspec.vectors import command_gen as gen
from loopspec.vectors.command_decoding import ACTION_OPS, ALIASES
from loopspec.vectors.command_hints import LONG_TURN_OPTIONS
from loopspec.vectors.swarm import SWARM_CHOICES, SWARM_MODES, Swarm


def test_each_choice_has_a_builder_per_option_and_no_other() -> None:
    assert set(builders.EDIT_BUILDERS) == set(gen.EDITS)
    assert set(builders.SEND_BUILDERS) == set(gen.SENDS)
    assert set(builders.ACTION_BUILDERS) == set(gen.ACTIONS)
    assert set(builders.LISTENER_BUILDERS) == set(gen.LISTENERS)
    assert set(builders.ANSWER_BUILDERS) == set(builders.ANSWERS.values())
    # "answer" is resolved to the phase's answer (or a send while idle) before the lookup.
    assert set(builders.MOVES) == (set(gen.MENU) - {"answer"}) | set(builders.ANSWERS.values())


def test_the_options_are_the_kinds_that_exist() -> None:
    """Edits and sends are the command language's actions (cancel is its own option); every
    phase but idle has an answer and long-turn inputs; each choice is one the swarm weighs."""
    assert set(gen.EDITS) | set(gen.SENDS) | {"cancel"} == set(ACTION_OPS)
    assert set(ALIASES) < set(gen.SENDS)
    assert set(builders.ANSWERS) == set(LONG_TURN_OPTIONS) == set(PHASES) - {IDLE}
    assert {"edit", "send", "action", "listener", "menu"} <= set(SWARM_CHOICES)
    assert set(SWARM_CHOICES["edit"]) == set(gen.EDITS)
    assert set(SWARM_CHOICES["send"]) == set(gen.SENDS)


@given(st.randoms(use_true_random=False))
def test_every_swarm_mode_weighs_every_option(rng: object) -> None:
    from loopspec.vectors.command_gen import RandomChooser

    chooser = RandomChooser(rng)  # type: ignore[arg-type]
    labels = ("a", "b", "c")
    for name, mode in SWARM_MODES.items():
        weights = mode(chooser, labels)
        assert len(weights) == len(labels), name
        assert all(w >= 0 for w in weights), name
    swarm = Swarm.draw(chooser)
    assert [name for name, _ in swarm.weights] == list(SWARM_CHOICES)


@given(st.randoms(use_true_random=False))
def test_a_swarm_mix_repeats_each_option_by_its_weight(rng: object) -> None:
    """Every option as many times as it weighs, in order; the options themselves when all weigh 0
    (and, without building anything, when all weigh 1)."""
    from loopspec.vectors.command_gen import RandomChooser

    swarm = Swarm.draw(RandomChooser(rng))  # type: ignore[arg-type]
    for name, weights in swarm.weights:
        labels = SWARM_CHOICES[name]
        expected = [label for label, w in zip(labels, weights, strict=True) for _ in range(w)] or list(labels)
        assert list(swarm.mix(name, labels)) == expected, name
