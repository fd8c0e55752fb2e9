"""The model's state space: a scope, its command alphabet, canonical states and breadth-first search.

* :mod:`.scope` — a bounded scope (message ids, depth, command families) and the named scopes;
* :mod:`.alphabet` — every command the scope allows at an agent state, grouped into classes of
  commands the model cannot tell apart (same normalized coordinates, same listener outcome);
* :mod:`.canon` — the canonical key of an agent, with symmetry reduction over message ids;
* :mod:`.search` — the one breadth-first search, shared by ``loopspec explore`` (every execution
  of a scope) and the trace-validation judge (a run that writes a given log);
* :mod:`.pairs` — lifecycle-table rows and row pairs reached, with a shortest witness each.

Layer: imports :mod:`loopspec.loop` and below only; the invariants, the log checker and the
command line live one layer up, in :mod:`loopspec.explore`.
"""
