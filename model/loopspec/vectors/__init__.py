"""Conformance vectors: the command language, the adapter protocol, suites and the driver.

* :mod:`.codec`, :mod:`.command_decoding`, :mod:`.json_reading`, :mod:`.observation` — commands,
  observations and state in JSON (``spec/command-language.md``);
* :mod:`.reference_model` — the model each capability profile is compared with (the agent, or an
  inbox-only session answering ``claim``); :mod:`.profiles` — the profiles' commands;
* :mod:`.adapter.client`, :mod:`.adapter.reference` — the adapter protocol's client and server sides
  (``spec/adapter-protocol.md``);
* :mod:`.audit` — the time policy, the log checker and the live checker over what an adapter wrote;
* :mod:`.case`, :mod:`.rule_cases` (a case for every observable rule, :mod:`.rule_cases.observability`
  for the rest), :mod:`.row_pairs` (reachable pairs of lifecycle-table rows), :mod:`.coverage`,
  :mod:`.command_gen`, :mod:`.profile_gen`, :mod:`.suite` — ``loopspec vectors generate``;
* :mod:`.runner`, :mod:`.run_report` — ``loopspec vectors run``; :mod:`.drive`, :mod:`.drive_draws`,
  :mod:`.drive_check` — ``loopspec drive``, whose examples each get a :mod:`.swarm` mix and follow
  :mod:`.command_hints` now and then.
"""
