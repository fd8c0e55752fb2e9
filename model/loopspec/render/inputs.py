"""Whether ``loopspec render``'s files can be drawn together: a session log, and its own live recording.

A file in which no line is an event is not a session log, as ``loopspec check`` says (exit 2), not
a picture of unreadable lines.  Another session's live recording
(:func:`loopspec.check.input_kind.foreign_marker`) would be drawn over this log without a word, so
it is refused the same way.
"""

from __future__ import annotations

from pathlib import Path

from loopspec.check.input_kind import LIVE_NOT_A_LOG, foreign_marker, is_live_recording, live_stream_problem
from loopspec.check.reader import holds_an_event


def input_problem(log: Path, live: Path | None) -> str:
    """Why the log (with ``live``) cannot be drawn, or "" when it can; OSError when a file cannot be read."""
    if not holds_an_event(log):
        return (f"{log}: not a session log: no line of it is a JSON object (loopspec check {log} says the "
                "same); nothing to draw")
    if is_live_recording(log):
        return f"{log}: {LIVE_NOT_A_LOG}"
    if live is None:
        return ""
    if wrong := live_stream_problem(live):
        return f"--live {live}: {wrong}"
    if foreign := foreign_marker(log, live):
        return f"{live} is not the live recording of {log}: {foreign[1]}"
    return ""
