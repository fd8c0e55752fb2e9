"""``loopspec reproduce``: drive the model with the calls a recording of a real run holds.

A recording (``examples/recordings/README.md`` documents the format) is a durable log
``NAME.events.jsonl``, the run in emission order ``NAME.live.jsonl`` and optionally the end
state ``NAME.final.json``.  The engine reads and validates it into frozen records
(:mod:`~loopspec.reproduce.records`, :mod:`~loopspec.reproduce.reading`), turns the public calls
into model commands through a registry keyed by call name (:mod:`~loopspec.reproduce.calls`),
answers the loop's await points from what the log shows (:mod:`~loopspec.reproduce.answers`),
walks the records with a registry of handlers keyed by record kind
(:mod:`~loopspec.reproduce.engine`, :mod:`~loopspec.reproduce.processes` for process
boundaries), compares what the model emits with what was recorded
(:mod:`~loopspec.reproduce.compare`) and reports the first difference
(:mod:`~loopspec.reproduce.report`).

Layer: imports check, loop, inbox, log, data and rules; only the command line imports it.
"""
