"""The lifecycle model reproduces every recording of the real system in ``examples/recordings``.

Each recording is driven through ``loopspec reproduce`` (its in-process API,
:mod:`loopspec.reproduce.run`): the model gets the recorded public calls and pre-step decisions,
the log answers its await points (how each step ended, what turn-stopping did), the events it
does not model pass through, and a crash note restarts it.  Everything it emits is compared with
the recording: the durable events of its types (``agent/inbox/spliced``, ``turn/*``, ``step/*``,
``user/message``, ``session/end-seed``, crash repair's closers) field by field, the inbox, status
and error notifications with their interleaving (every ``nextSeq``), the calls' results and
refusal texts, every observation note, and ``NAME.final.json`` including the state around a
restart.  How each record kind is translated is the engine's docstrings'
(``model/loopspec/reproduce/``); the engine's own tests are in ``tests/reproduce/``.
"""

from __future__ import annotations

import pytest

from conftest import REPO
from loopspec.reproduce.files import RecordingFiles, in_folder
from loopspec.reproduce.run import Outcome, reproduce

RECORDINGS = REPO / "examples" / "recordings"
FOUND, PROBLEMS = in_folder(RECORDINGS)


def test_eight_real_recordings_each_with_a_final_state() -> None:
    assert not PROBLEMS
    assert len(FOUND) == 8
    assert all(files.final is not None for files in FOUND)


@pytest.fixture(scope="module", params=FOUND, ids=[files.name for files in FOUND])
def outcome(request: pytest.FixtureRequest) -> Outcome:
    files: RecordingFiles = request.param
    return reproduce(files)


@pytest.mark.rule(
    "FOLD-5", "CLAIM-1", "CLAIM-2", "CLAIM-4", "DECIDE-1", "DECIDE-5", "DECIDE-8", "CANCEL-1", "CANCEL-3",
    "REPAIR-1", "REPAIR-2", "REPAIR-4", "NOTIFY-1", "NOTIFY-2", "NOTIFY-3", "NOTIFY-4", "INPUT-2", "STATUS-1",
    "END-2", "CHAIN-1", "CHAIN-2", "CLAIM-5", "SPLICE-3", "SPLICE-7", "SPLICE-9", "NORM-2", "NORM-4",
)
def test_the_model_reproduces_the_recording(outcome: Outcome) -> None:
    assert outcome.status == "reproduced", outcome.difference or outcome.problem
    assert outcome.records > 0
    assert outcome.events > 0
