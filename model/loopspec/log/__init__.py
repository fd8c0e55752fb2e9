"""The durable session log (spec area LOG).

The event envelope and the ``agent/inbox/spliced`` record, the append-only log value, and the
reader of real JSONL logs.  Imports only :mod:`loopspec.data`.
"""
