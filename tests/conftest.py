"""Shared test configuration: Hypothesis profiles and paths to the repository's data.

Profiles (chosen by ``HYPOTHESIS_PROFILE``):
* ``dev`` — fast feedback while editing (the default outside CI);
* ``ci`` — what CI runs: at least 500 examples per state machine, 50+ steps, sized so the
  whole suite stays well under 20 minutes on 2 cores;
* ``thorough`` — long local runs before a release.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, stateful_step_count=30, deadline=None)
settings.register_profile(
    "ci",
    max_examples=500,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=5000,
    stateful_step_count=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True, scope="session")
def _row_pairs_walked_once_per_process() -> Iterator[None]:
    """The row-pair walk (``reachable_pairs``) is a pure function of the model that takes seconds,
    and some twenty tests generate a suite: each process walks once and every generation reads that.
    No test generates a suite from a changed model; one that does must undo this patch first."""
    from loopspec.vectors import row_pairs, suite

    walked = functools.cache(row_pairs.reachable_pairs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(row_pairs, "reachable_pairs", walked)
        patch.setattr(suite, "reachable_pairs", walked)
        yield


REPO = Path(__file__).resolve().parent.parent
# Session logs, live recordings and final states recorded from the real implementation
# (examples/recordings/README.md says how); the tests read them from inside the repository only.
REAL_TRACES = REPO / "examples" / "recordings"


def run_loopspec(*argv: object, cwd: Path | None = None, timeout: float = 300,
                 columns: int = 100) -> subprocess.CompletedProcess[str]:
    """``loopspec ARGV...`` as a user runs it: a process of its own, its words and exit code captured."""
    env = {**os.environ, "COLUMNS": str(columns), "LOOPSPEC_TRACEBACK": ""}
    return subprocess.run([sys.executable, "-m", "loopspec", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env, check=False)
