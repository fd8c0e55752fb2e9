"""The names of the loop's phases and choice points (spec area INPUT), and nothing else.

:mod:`loopspec.loop.phases` (which re-exports them) describes the lifecycle table's rows with
frozen attrs classes; the log checker names three of these phases for its own (``check.state``)
and imports them from here, so a plain ``loopspec check`` never loads attrs (about 30 ms of
start-up, docs/performance.md).
"""

from __future__ import annotations

IDLE, DECIDING, STEPPING, STOPPING = "idle", "deciding", "stepping", "stopping"
BOUNDARY, TURN_ENDED = "boundary", "turn-ended"
PHASES = (IDLE, DECIDING, STEPPING, STOPPING)
CHOICES = (BOUNDARY, TURN_ENDED)
RUNNING = (DECIDING, STEPPING, STOPPING)
