"""The durable session log (spec area LOG).

The event envelope and the ``agent/inbox/spliced`` record, the append-only log value, and the
reader of real JSONL logs; the wire format's event kinds (:mod:`.kinds`), the readers of parsed
records (:mod:`.wire`), the one reader of a splice's data (:mod:`.splice_data`) and the fold of one
step's records (:mod:`.step_summary`).  Imports only :mod:`loopspec.data`.
"""
