"""Conformance vectors: the command language, the adapter protocol, suites and the driver.

* :mod:`.codec`, :mod:`.command_decoding`, :mod:`.json_reading`, :mod:`.observation` — commands,
  observations and state in JSON (``spec/command-language.md``);
* :mod:`.reference_model` — the model each capability profile is compared with (the agent, or an
  inbox-only session answering ``claim``); :mod:`.profiles` — the profiles' commands;
* :mod:`.adapter.client`, :mod:`.adapter.reference` — the adapter protocol's client and server sides
  (``spec/adapter-protocol.md``);
* :mod:`.audit` — the time policy, the log checker and the live checker over what an adapter wrote;
* :mod:`.case`, :mod:`.rule_cases`, :mod:`.command_gen`, :mod:`.profile_gen`, :mod:`.suite` —
  ``loopspec vectors generate``;
* :mod:`.runner`, :mod:`.run_report` — ``loopspec vectors run``; :mod:`.drive`, :mod:`.drive_draws`,
  :mod:`.drive_check` — ``loopspec drive``.
"""
