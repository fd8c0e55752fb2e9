"""Symbolic values for CrossHair: how to build messages, events, logs and listeners for the PEP 316 contracts.

CrossHair cannot build these values from their type hints (a message body is recursive frozen
JSON, a listener's actions are commands), and the logs it would build are tuples of independent
events, in which a claim inside a turn almost never occurs.  So:

* :mod:`.values` — messages get one of three ids; a single event is a symbolic splice, a turn/step
  boundary or a foreign type;
* :mod:`.log_writer` and :mod:`.logs` — a log is written by a small agent that follows the real
  loop's protocol, move by move;
* :mod:`.listeners` — the pre-step listeners are small symbolic chains;
* :mod:`.crosshair_internals` — the two CrossHair internals the search relies on.

The plugin files CrossHair loads (``scripts/crosshair_plugins/*.py``, see ``scripts/crosshair.sh``)
register these creators.  What this explores, how far, and why: docs/contracts.md.
"""
