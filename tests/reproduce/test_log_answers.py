"""Readings of what the log answers (decisions E1, E2), each on a recording of its own under
``tests/reproduce/recordings`` that must reproduce.

* ``tool_step_then_prestep_reject``: a tool step, then the next boundary's pre-step rejects
  (nothing steered, so no claim): the ``blocked`` end after the step's ``step/end`` is the
  rejection, not a tool concluding the turn (E1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from loopspec.reproduce.files import in_folder
from loopspec.reproduce.run import Outcome, reproduce

RECORDINGS = Path(__file__).parent / "recordings"


def _reproduce(name: str) -> Outcome:
    found, unusable = in_folder(RECORDINGS)
    assert not unusable
    (files,) = [f for f in found if f.name == name]
    return reproduce(files)


@pytest.mark.rule("RESULT-2", "DECIDE-5")
def test_a_blocked_end_after_a_tool_step_is_the_next_pre_step_rejecting() -> None:
    outcome = _reproduce("tool_step_then_prestep_reject")
    assert outcome.status == "reproduced", outcome.difference or outcome.problem

