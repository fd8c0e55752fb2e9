"""The exploration of the active Hypothesis profile's scope, run once per test session.

``dev`` explores the tiny scope, ``ci`` the CI scope (every lifecycle row and row pair), ``thorough``
the large one (``loopspec.statespace.scope.SCOPES``).  Several tests read the same exploration:
its verdict and counts, and the (phase, kind) pairs the log checker met while it ran.
"""

from __future__ import annotations

import functools
import os

import pytest

from check.phase_moves import PhaseMoves, recording_phase_moves
from loopspec.explore.result import Exploration
from loopspec.explore.run import explore
from loopspec.statespace.scope import SCOPES

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
SCOPE_NAME = PROFILE if PROFILE in SCOPES else "dev"
# The tests that read it run in one xdist worker (scripts/test.sh passes --dist loadgroup), so the
# cache below explores the scope once per session, not once per worker.
SHARES_THE_EXPLORATION = pytest.mark.xdist_group("profile-exploration")


@functools.cache
def _profile_run() -> tuple[Exploration, PhaseMoves]:
    # In this process (one worker): the checker's moves are recorded here, and under xdist the
    # other core runs other tests anyway, so a second exploring process would only contend.
    with recording_phase_moves() as moves:
        result = explore(SCOPES[SCOPE_NAME], workers=1)
    return result, moves


def profile_exploration() -> Exploration:
    """The profile's scope, explored with every invariant checked."""
    return _profile_run()[0]


def profile_phase_moves() -> PhaseMoves:
    """What the log checker met reading every log of that exploration."""
    return _profile_run()[1]
