"""Conformance vectors: the command language, the adapter protocol, suites and the driver.

* :mod:`.codec`, :mod:`.command_decoding`, :mod:`.json_reading`, :mod:`.observation` — commands,
  observations and state in JSON (``spec/command-language.md``);
* :mod:`.adapter.client`, :mod:`.adapter.reference` — the adapter protocol's client and server sides
  (``spec/adapter-protocol.md``);
* :mod:`.case`, :mod:`.rule_cases.inbox`, :mod:`.rule_cases.loop`, :mod:`.command_gen`,
  :mod:`.suite` — ``loopspec vectors generate``;
* :mod:`.runner` — ``loopspec vectors run``; :mod:`.drive` — ``loopspec drive``.
"""
