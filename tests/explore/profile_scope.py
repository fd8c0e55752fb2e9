"""The exploration of the active Hypothesis profile's scope, run once per test session.

``dev`` explores the tiny scope, ``ci`` the CI scope (every lifecycle row and row pair), ``thorough``
the large one (``loopspec.statespace.scope.SCOPES``).  Several tests read the same exploration.
"""

from __future__ import annotations

import functools
import os

import pytest

from loopspec.explore.result import Exploration
from loopspec.explore.run import explore
from loopspec.statespace.scope import SCOPES

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
SCOPE_NAME = PROFILE if PROFILE in SCOPES else "dev"
# The tests that read it run in one xdist worker (scripts/test.sh passes --dist loadgroup), so the
# cache below explores the scope once per session, not once per worker.
SHARES_THE_EXPLORATION = pytest.mark.xdist_group("profile-exploration")


@functools.cache
def profile_exploration() -> Exploration:
    """The profile's scope, on both cores where there are two (the counts do not depend on it)."""
    workers = 2 if SCOPE_NAME != "dev" and (os.cpu_count() or 1) > 1 else 1
    return explore(SCOPES[SCOPE_NAME], workers=workers)
