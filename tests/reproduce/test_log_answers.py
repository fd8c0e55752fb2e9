"""Readings of what the log answers (decisions E1, E2), each on a recording of its own under
``tests/reproduce/recordings`` that must reproduce.

* ``tool_step_then_prestep_reject``: a tool step, then the next boundary's pre-step rejects
  (nothing steered, so no claim): the ``blocked`` end after the step's ``step/end`` is the
  rejection, not a tool concluding the turn (E1);
* ``prestep_rewrite_keeps_ids``: a pre-step listener keeps the claimed id but changes the body;
  the ``decided`` record names the id only, and the step enters the rewritten body, which its
  ``user/message`` holds (E2);
* ``tool_concludes_then_turn_stopping_steers_on``: a tool concludes the turn and the
  turn-stopping listeners' wait sees input steered in, so the turn goes on: no turn/end follows
  the step, and the live stream's turn-stopping call is what shows the tool concluded (RESULT-2);
* ``prestep_listener_cancels_and_enters_its_own_message``: a pre-step listener cancels the turn,
  then a later one enters a message of its own that nothing ever writes; the aborted turn enters
  nothing, so the body is not needed (CANCEL-3). The run also clears the inbox (``inbox.clear``)
  while the pre-step is awaited, and the other walk sends with the general ``send`` call.
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


@pytest.mark.rule("DECIDE-3", "DECIDE-8")
def test_a_rewrite_that_keeps_the_ids_enters_the_bodies_the_step_wrote() -> None:
    outcome = _reproduce("prestep_rewrite_keeps_ids")
    assert outcome.status == "reproduced", outcome.difference or outcome.problem


@pytest.mark.rule("RESULT-2", "RESULT-4")
def test_a_concluding_tool_step_whose_turn_stopping_steers_on_is_read_from_the_live_stream() -> None:
    outcome = _reproduce("tool_concludes_then_turn_stopping_steers_on")
    assert outcome.status == "reproduced", outcome.difference or outcome.problem


@pytest.mark.rule("CANCEL-3", "SPLICE-8", "INPUT-1")
def test_an_aborted_turn_needs_no_body_for_what_its_decision_enters() -> None:
    outcome = _reproduce("prestep_listener_cancels_and_enters_its_own_message")
    assert outcome.status == "reproduced", outcome.difference or outcome.problem
