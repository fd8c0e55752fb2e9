"""``loopspec reproduce``: drive the model with the calls a recording of a real run holds.

A recording (``examples/recordings/README.md`` documents the format) is a durable log
``NAME.events.jsonl``, the run in emission order ``NAME.live.jsonl`` and optionally the end
state ``NAME.final.json``.  The modules, in the order a run uses them:

* :mod:`~loopspec.reproduce.files` — which files make a recording (``LOG --live``, or a folder);
* :mod:`~loopspec.reproduce.reading`, :mod:`~loopspec.reproduce.final_state` — reading and
  validating them into the frozen records of :mod:`~loopspec.reproduce.records` (unusable input
  is refused before any comparison);
* :mod:`~loopspec.reproduce.calls` — the public calls as model commands, a registry keyed by
  call name;
* :mod:`~loopspec.reproduce.engine`, :mod:`~loopspec.reproduce.pre_steps`,
  :mod:`~loopspec.reproduce.processes` — the handlers of each record kind (registered by class in
  :mod:`~loopspec.reproduce.run`), process boundaries and the end state;
* :mod:`~loopspec.reproduce.answers` — what the log says about the await points the recording
  does not spell out (a step's result, turn stopping, edits outside any call);
* :mod:`~loopspec.reproduce.compare` — what is compared and which rule a difference names;
* :mod:`~loopspec.reproduce.run`, :mod:`~loopspec.reproduce.report` — the in-process API and
  the text / JSON report.

Layer: imports loop, inbox, log and data; only the command line imports it.
"""
