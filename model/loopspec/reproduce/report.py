"""Reporting outcomes: one block per recording and a summary line, as text or JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from loopspec.reproduce.run import Outcome, exit_code
from loopspec.vectors.observation import first_difference

FORMATS = ("text", "json")


LONGEST_SHOWN = 240
"""Characters of a recorded or modelled value a text report shows; ``--format json`` holds it whole."""


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) <= LONGEST_SHOWN:
        return text
    return f"{text[:LONGEST_SHOWN - 1]}… ({len(text):,} characters; --format json holds it whole)"


def _text_block(outcome: Outcome) -> list[str]:
    if outcome.status == "reproduced":
        return [f"{outcome.name}: reproduced ({outcome.records} live records, {outcome.events} events"
                + (", final state)" if outcome.files and outcome.files.final else ")")]
    if outcome.problem is not None:
        where = f"{outcome.problem.path}" + (f":{outcome.problem.line}" if outcome.problem.line else "")
        return [f"{outcome.name}: UNUSABLE {where}: {outcome.problem.message}"]
    diff = outcome.difference
    assert diff is not None
    where = f"{diff.file}" + (f":{diff.line}" if diff.line is not None else "")
    seq = f" seq {diff.seq}" if diff.seq is not None else ""
    rule = f" [{diff.rule}]" if diff.rule else ""
    # Where the two values part, as a JSON path (as vectors run says it), before the values themselves.
    path = first_difference(diff.model, diff.recording, words=("the model", "the recording"))
    return [f"{outcome.name}: DIFFERENT at {where}{seq}: {diff.what}{rule}",
            *([f"    first difference: {path}"] if path and not path.startswith("$: ") else []),
            f"    recording: {_shown(diff.recording)}",
            f"    model:     {_shown(diff.model)}"]


def _summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    counts = Counter(o.status for o in outcomes)
    return {"recordings": len(outcomes), **{s: counts[s] for s in ("reproduced", "different", "unusable")}}


def _json_outcome(outcome: Outcome) -> dict[str, object]:
    files = outcome.files
    return {
        "name": outcome.name,
        "status": outcome.status,
        "files": None if files is None else {"events": str(files.events), "live": str(files.live),
                                             "final": None if files.final is None else str(files.final)},
        "difference": None if outcome.difference is None else outcome.difference.to_json(),
        "problem": None if outcome.problem is None else outcome.problem.to_json(),
    }


def render(fmt: str, outcomes: Sequence[Outcome]) -> str:
    """The report in ``fmt`` (``text`` or ``json``), ending with a newline."""
    summary = _summary(outcomes)
    if fmt == "json":
        body = {"recordings": [_json_outcome(o) for o in outcomes], "summary": summary, "exit": exit_code(outcomes)}
        return json.dumps(body, ensure_ascii=False, indent=2) + "\n"
    lines = [line for o in outcomes for line in _text_block(o)]
    lines.append("reproduce: " + ", ".join(f"{summary[s]} {s}" for s in ("reproduced", "different", "unusable"))
                 + f" of {summary['recordings']} recording(s)")
    return "\n".join(lines) + "\n"
