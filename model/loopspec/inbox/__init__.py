"""The two-list inbox (spec areas NORM, SPLICE, CLAIM, FOLD).

Coordinate normalization with JavaScript number semantics, the public edits, ``claim`` (the
atomic ownership transfer at a boundary), the projection fold of ``agent/inbox/spliced`` records
and the inbox paired with its log.  Imports :mod:`loopspec.log` and :mod:`loopspec.data`.
"""
