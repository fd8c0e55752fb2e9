"""Import cycles in a module graph: strongly connected components with more than one module.

The graph is a mapping from each module to the modules it imports (grimp builds it for the real
package, the tests build toy ones).  Tarjan's algorithm, written iteratively so a deep import
chain cannot exhaust Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

ImportGraph = Mapping[str, Set[str]]


def strongly_connected_components(graph: ImportGraph) -> list[frozenset[str]]:
    """Every strongly connected component of ``graph``, singletons included, in a stable order."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        # Each frame: a module and the iterator over its (sorted) imports still to visit.
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imports = work[-1]
            advanced = False
            for imported in imports:
                if imported not in index:
                    index[imported] = lowlink[imported] = len(index)
                    stack.append(imported)
                    on_stack.add(imported)
                    work.append((imported, iter(sorted(graph.get(imported, ())))))
                    advanced = True
                    break
                if imported in on_stack:
                    lowlink[module] = min(lowlink[module], index[imported])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[module])
            if lowlink[module] == index[module]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == module:
                        break
                components.append(frozenset(members))
    return components


def import_cycles(graph: ImportGraph) -> list[tuple[str, ...]]:
    """One concrete cycle per component of more than one module, as ``(a, b, ..., a)``.

    The cycle is the shortest one through the component's first module (breadth-first inside the
    component), so a failure message names a path a reader can follow import by import.
    """
    cycles = []
    for component in strongly_connected_components(graph):
        if len(component) > 1:
            cycles.append(_shortest_cycle(graph, component))
    return sorted(cycles)


def _shortest_cycle(graph: ImportGraph, component: frozenset[str]) -> tuple[str, ...]:
    start = min(component)
    paths: dict[str, tuple[str, ...]] = {start: (start,)}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for imported in sorted(graph.get(module, ())):
                if imported == start:
                    return (*paths[module], start)
                if imported in component and imported not in paths:
                    paths[imported] = (*paths[module], imported)
                    following.append(imported)
        frontier = following
    raise AssertionError(f"{sorted(component)} is not strongly connected")  # unreachable for a real SCC
