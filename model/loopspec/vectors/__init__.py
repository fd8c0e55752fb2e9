"""Conformance vectors: the command language, the adapter protocol, suites and the driver.

* :mod:`.codec`, :mod:`.command_decoding`, :mod:`.json_reading`, :mod:`.observation` — commands,
  observations and state in JSON (``spec/command-language.md``);
* :mod:`.adapter.client`, :mod:`.adapter.reference` — the adapter protocol's client and server sides
  (``spec/adapter-protocol.md``);
* :mod:`.case`, :mod:`.rule_cases` (a case for every observable rule, :mod:`.rule_cases.observability`
  for the rest), :mod:`.row_pairs` (reachable pairs of lifecycle-table rows), :mod:`.coverage`,
  :mod:`.command_gen`, :mod:`.suite` — ``loopspec vectors generate``;
* :mod:`.runner` — ``loopspec vectors run``; :mod:`.drive` — ``loopspec drive``, whose examples
  each get a :mod:`.swarm` mix and follow :mod:`.command_hints` now and then.
"""
