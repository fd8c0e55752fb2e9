"""``loopspec explore``: every execution of a bounded scope, every invariant at every state.

The search is :mod:`loopspec.statespace`'s; this layer adds what it checks and reports:

* :mod:`.invariants` — the four headline invariants (a claim is an ownership transfer; a rejection
  is balanced and opens no step; ids are unique across both lists; replay equals the live state),
  notifications that follow their records, and public edits that do what JavaScript's ``splice``
  does, checked on every transition;
* :mod:`.log_rules` — the log checker (:mod:`loopspec.check`) run incrementally along each path,
  its state part of the search key, so every log the model writes is judged;
* :mod:`.space` — the exploration space: step, check, key (with "no command raises anything but a
  rule refusal");
* :mod:`.run` and :mod:`.parallel` — one process or both cores, and the summary;
* :mod:`.report`, :mod:`.exploration_doc` — the counterexample as a vector case, the witnesses,
  ``docs/exploration.md``;
* :mod:`.conformance` and :mod:`.adapter_pool` — the same search against an implementation, each
  transition sent as a case (``loopspec explore -- ADAPTER``); :mod:`.tour` over :mod:`.tour_plan`
  — every class of command at every model state of a scope, sent in long walks (``--tour``);
* :mod:`.judge` — the second user of the same search: trace validation of a log (``loopspec check
  --exhaustive``), with :mod:`.judge_moves` (the commands a log allows), :mod:`.judge_compare`
  (what "writes exactly this event" means) and :mod:`.judge_scope` (what it cannot decide).

Layer: above :mod:`loopspec.vectors` and :mod:`loopspec.check`; only :mod:`loopspec.cli` imports it.
"""
