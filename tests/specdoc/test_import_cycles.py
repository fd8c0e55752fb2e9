"""No import cycles anywhere in loopspec (issue 9), and the detector that says so can fail.

The layer contract (``lint-imports``) forbids upward imports between packages; this test forbids
cycles everywhere else too, including between modules of one package, where the contract says
nothing.  TYPE_CHECKING imports count: a cycle that only the type checker sees still ties the
modules' meanings together.
"""

from __future__ import annotations

import grimp

from specdoc.import_cycles import ImportGraph, import_cycles, strongly_connected_components


def loopspec_import_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("loopspec", cache_dir=None)
    return {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}


def test_loopspec_has_no_import_cycle() -> None:
    graph = loopspec_import_graph()
    assert "loopspec.loop.lifecycle" in graph, "the import graph misses the model"
    assert graph["loopspec.loop.lifecycle"], "the import graph has no edges"
    cycles = import_cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


def test_detector_names_a_two_module_cycle() -> None:
    graph: ImportGraph = {"m.agent": {"m.effects", "m.data"}, "m.effects": {"m.agent"}, "m.data": set()}
    assert import_cycles(graph) == [("m.agent", "m.effects", "m.agent")]


def test_detector_names_the_shortest_cycle_of_a_larger_component() -> None:
    # a -> b -> c -> a and a -> c -> a: one component, the named cycle is the shorter one.
    graph: ImportGraph = {"a": {"b", "c"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [("a", "c", "a")]
    assert {frozenset({"a", "b", "c"}), frozenset({"d"})} == set(strongly_connected_components(graph))


def test_detector_finds_every_component_and_accepts_a_dag() -> None:
    two_cycles: ImportGraph = {"a": {"b"}, "b": {"a"}, "x": {"y"}, "y": {"z"}, "z": {"x", "a"}}
    assert import_cycles(two_cycles) == [("a", "b", "a"), ("x", "y", "z", "x")]
    dag: ImportGraph = {"cli": {"check", "loop"}, "check": {"loop", "data"}, "loop": {"data"}, "data": set()}
    assert import_cycles(dag) == []


def test_detector_survives_a_chain_deeper_than_the_recursion_limit() -> None:
    chain: dict[str, set[str]] = {f"m{i}": {f"m{i + 1}"} for i in range(5000)}
    assert import_cycles(chain) == []
    chain["m5000"] = {"m0"}
    (cycle,) = import_cycles(chain)
    assert len(cycle) == 5002
