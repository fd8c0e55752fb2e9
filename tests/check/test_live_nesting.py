"""LOG-13: how listener windows end at a process boundary (loopspec.check.live_nesting).

A crash ends every window unreturned; a graceful shutdown ends none, because the agent's teardown
waits for the loop to go idle and so hears a waiting listener out; a resumed agent waits for that
teardown, so no window of the ending process may still be open when the next process starts.
"""

from __future__ import annotations

import pytest

from loopspec.check.live_nesting import NESTING, Nesting

Record = dict[str, object]

INVOKED: Record = {"kind": "live", "type": "agent/pre-step", "phase": "invoked", "nextSeq": 3, "turn": 1, "step": 1,
           "messageIds": ["u1"]}
DECIDED: Record = {"kind": "live", "type": "agent/pre-step", "phase": "decided", "nextSeq": 3, "turn": 1, "step": 1,
           "decision": {"kind": "enter", "messageIds": ["u1"]}}
THREW: Record = {"kind": "live", "type": "agent/pre-step", "phase": "threw", "nextSeq": 3, "turn": 1, "step": 1,
         "error": "AbortError: the host is shutting down"}
STOPPING: Record = {"kind": "live", "type": "agent/turn-stopping", "phase": "invoked", "nextSeq": 9, "turn": 1}
STOPPING_THREW: Record = {"kind": "live", "type": "agent/turn-stopping", "phase": "threw", "nextSeq": 9, "turn": 1,
                  "error": "AbortError: the host is shutting down"}
GRACEFUL: Record = {"kind": "note", "text": "the process is shut down here", "crash": False}
CRASH: Record = {"kind": "note", "text": "the process is killed here", "crash": True}
NEXT: Record = {"kind": "note", "text": "the next process loaded the log"}


def _walk(*records: Record) -> list[str | None]:
    nesting = Nesting()
    return [nesting.feed(line, dict(rec)) for line, rec in enumerate(records, 1)]


def test_the_rule_of_a_misplaced_record_is_its_own() -> None:
    assert NESTING == "LOG-13"


@pytest.mark.rule("LOG-13")
@pytest.mark.parametrize(("closing", "opening"), [(DECIDED, INVOKED), (THREW, INVOKED),
                                                  (STOPPING_THREW, STOPPING)])
def test_a_graceful_shutdown_lets_a_waiting_listener_return(closing: Record, opening: Record) -> None:
    assert _walk(opening, GRACEFUL, closing, NEXT) == [None, None, None, None]


@pytest.mark.rule("LOG-13")
def test_a_crash_ends_the_window_unreturned() -> None:
    said = _walk(INVOKED, CRASH, DECIDED)
    assert said[:2] == [None, None]
    assert said[2] == "agent/pre-step decided with no agent/pre-step listener invoked"


@pytest.mark.rule("LOG-13")
def test_a_window_still_open_when_the_next_process_starts_is_misplaced() -> None:
    said = _walk(INVOKED, GRACEFUL, NEXT)
    assert said[:2] == [None, None]
    assert said[2] is not None
    assert said[2].startswith("the next process starts while the agent/pre-step listener invoked on line 1 "
                              "(turn 1 step 1) has not returned")


@pytest.mark.rule("LOG-13")
def test_the_next_process_opens_windows_of_its_own() -> None:
    # After the graceful boundary closed its window, the next process's listener is a new window;
    # after the next process's note the walk no longer waits for anything of the ended one.
    assert _walk(INVOKED, GRACEFUL, DECIDED, NEXT, INVOKED, DECIDED) == [None] * 6
    assert _walk(INVOKED, GRACEFUL, DECIDED, NEXT, NEXT) == [None] * 5


@pytest.mark.rule("LOG-13")
def test_a_crash_after_a_graceful_note_voids_what_it_waited_for() -> None:
    # The teardown was itself cut short by a kill: nothing returns, and the next process owes nothing.
    assert _walk(INVOKED, GRACEFUL, CRASH, NEXT) == [None] * 4
