"""One conformance vector case: commands, the model's observation of each, and the final state.

A case's expectations are computed by running the model; what makes a *hand-written* case
worth having is its :data:`Probe`, a check of the rule's hallmark (this step is refused with
that code, that event carries this start, …) run when the suite is generated.  If the model
ever stops showing the hallmark, generation fails instead of silently writing a vector that
no longer demonstrates its rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import attrs

from loopspec.vectors.codec import encode_command
from loopspec.vectors.json_reading import Json
from loopspec.vectors.observation import observe_rows, state_of
from loopspec.vectors.profiles import case_ops, profiles_running
from loopspec.vectors.reference_model import Claim, VectorCommand, initial

CASE_FORMAT = "loopspec-vector/2"

Probe = Callable[[Sequence[Json], Json], "str | None"]
"""``(observations, final state) -> complaint or None``."""


class ProbeFailed(AssertionError):
    """A hand-written case no longer shows the hallmark of its rule."""


def no_probe(_: Sequence[Json], __: Json) -> str | None:
    return None


@attrs.frozen
class CaseSpec:
    """A case before the model has run it: where it goes, what it is for, its commands."""

    path: str
    kind: str
    rules: tuple[str, ...]
    description: str
    commands: tuple[VectorCommand, ...]
    probe: Probe = no_probe
    rows: tuple[str, ...] = ()


def build_case(spec: CaseSpec) -> Json:
    """Run the model over the commands and write down every observation and the final state.

    A case with a ``claim`` runs on the inbox profile's model (an inbox without a loop), every
    other case on the agent; ``profiles`` lists the profiles whose adapters can run it.
    """
    model = initial("inbox" if any(isinstance(c, Claim) for c in spec.commands) else "full")
    steps: list[Json] = []
    observations: list[Json] = []
    fired: list[str] = []
    for command in spec.commands:
        model, observation, fired_now = observe_rows(model, command)
        rows = list(fired_now)
        fired.extend(r for r in rows if r not in fired)
        observations.append(observation)
        steps.append({"command": encode_command(command), "expect": observation, "rows": rows})
    final = state_of(model)
    complaint = spec.probe(observations, final)
    if complaint is not None:
        raise ProbeFailed(f"{spec.path}: {complaint}")
    return {
        "format": CASE_FORMAT,
        "id": spec.path,
        "kind": spec.kind,
        "rules": list(spec.rules),
        "rows": list(spec.rows or fired),
        "negative": any(not o["ok"] for o in observations),
        "profiles": list(profiles_running(case_ops(steps))),
        "description": spec.description,
        "steps": steps,
        "final": final,
    }


def case_text(case: Json) -> str:
    """The file content of a case: one top-level key per line, one step per line; final newline.

    Compact enough to commit, and a diff shows which step's expectation changed.
    """

    def dump(obj: object) -> str:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))

    lines = []
    for key, item in case.items():
        if key == "steps" and isinstance(item, list):
            steps = ",\n".join("  " + dump(s) for s in item)
            lines.append(f' "steps": [\n{steps}\n ]')
        else:
            lines.append(f" {dump(key)}: {dump(item)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


# ---- probes: small checks of a rule's hallmark ----


def _step(observations: Sequence[Json], index: int) -> Json:
    return observations[index] if -len(observations) <= index < len(observations) else {}


def refused(index: int, code: str) -> Probe:
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        got = _step(obs, index)
        ok = got.get("ok") is False and got.get("code") == code
        return None if ok else f"step {index} should be refused with {code}, got {got.get('code', 'accepted')}"

    return probe


def event_types(index: int, *types: str) -> Probe:
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        events = _step(obs, index).get("events")
        got = [e["type"] for e in events] if isinstance(events, list) else None
        return None if got == list(types) else f"step {index} events should be {list(types)}, got {got}"

    return probe


def note_types(index: int, *types: str) -> Probe:
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        notes = _step(obs, index).get("notifications")
        got = [n["type"] for n in notes] if isinstance(notes, list) else None
        return None if got == list(types) else f"step {index} notifications should be {list(types)}, got {got}"

    return probe


def event_data(index: int, event: int, key: str, value: object) -> Probe:
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        events = _step(obs, index).get("events")
        try:
            got = events[event]["data"].get(key, "<absent>")  # type: ignore[index]
        except (IndexError, KeyError, TypeError, AttributeError):
            return f"step {index} has no event {event}"
        return None if got == value else f"step {index} event {event} {key} should be {value!r}, got {got!r}"

    return probe


def value(index: int, expected: object) -> Probe:
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        got = _step(obs, index).get("value", "<none>")
        if isinstance(got, list) and isinstance(expected, list):
            got = [m["id"] for m in got]
        return None if got == expected else f"step {index} value should be {expected!r}, got {got!r}"

    return probe


def final(key: str, expected: object) -> Probe:
    def probe(_: Sequence[Json], state: Json) -> str | None:
        got = state.get(key)
        if key == "inbox" and isinstance(got, dict):
            got = {lane: [m["id"] for m in ms] for lane, ms in got.items()}
        return None if got == expected else f"final {key} should be {expected!r}, got {got!r}"

    return probe


def all_of(*probes: Probe) -> Probe:
    def probe(obs: Sequence[Json], state: Json) -> str | None:
        return next((c for c in (p(obs, state) for p in probes) if c is not None), None)

    return probe


def _event(obs: Sequence[Json], index: int, event: int) -> Json | None:
    events = _step(obs, index).get("events")
    if not isinstance(events, list) or not -len(events) <= event < len(events):
        return None
    found = events[event]
    return found if isinstance(found, dict) else None


def _note(obs: Sequence[Json], index: int, note: int) -> Json | None:
    notes = _step(obs, index).get("notifications")
    if not isinstance(notes, list) or not -len(notes) <= note < len(notes):
        return None
    found = notes[note]
    return found if isinstance(found, dict) else None


def envelope(index: int, event: int, key: str, expected: object) -> Probe:
    """An envelope key of one event (``seq``, ``surfaceOp``, …; ``"<absent>"`` for a missing key)."""
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        found = _event(obs, index, event)
        if found is None:
            return f"step {index} has no event {event}"
        got = found.get(key, "<absent>")
        return None if got == expected else f"step {index} event {event} {key} should be {expected!r}, got {got!r}"

    return probe


def event_payload(index: int, event: int, expected: object) -> Probe:
    """One event's whole ``data``."""
    return envelope(index, event, "data", expected)


def event_keys(index: int, event: int, *keys: str) -> Probe:
    """Exactly these envelope keys on one event."""
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        found = _event(obs, index, event)
        got = sorted(found) if found is not None else None
        return None if got == sorted(keys) else f"step {index} event {event} keys should be {sorted(keys)}, got {got}"

    return probe


def note_data(index: int, note: int, key: str, expected: object) -> Probe:
    """A key of one notification (``"<absent>"`` for a missing key)."""
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        found = _note(obs, index, note)
        if found is None:
            return f"step {index} has no notification {note}"
        got = found.get(key, "<absent>")
        if got == expected:
            return None
        return f"step {index} notification {note} {key} should be {expected!r}, got {got!r}"

    return probe


def note_ids(index: int, *ids: str) -> Probe:
    """The ids of the messages the step's notifications carry, in emission order."""
    def probe(obs: Sequence[Json], _: Json) -> str | None:
        notes = _step(obs, index).get("notifications")
        got = None
        if isinstance(notes, list):
            got = [n["message"]["id"] for n in notes if isinstance(n, dict) and isinstance(n.get("message"), dict)]
        return None if got == list(ids) else f"step {index} notification messages should be {list(ids)}, got {got}"

    return probe


def rules_of_last_step(case: Json) -> tuple[str, ...]:
    """The rules of the lifecycle rows the model fires at a case's last command: what a shrunk
    counterexample, which ends where the implementation disagrees, shows broken."""
    from loopspec.loop.lifecycle import TABLE

    steps = case.get("steps")
    last = steps[-1] if isinstance(steps, list) and steps else None
    fired = set(last.get("rows") or ()) if isinstance(last, dict) else set()
    return tuple(sorted({rule for row in TABLE if row.key in fired for rule in row.rules}))
