"""Not a test: seeded mutations of the repository's session logs, for benchmarks/verdict_diff.py.

Each mutant is one source log with one to three edits: an event deleted, repeated, swapped with
the next one, the log cut after one, or one value deep inside an event changed (a key or list
element deleted, a list element repeated, a boolean flipped, an integer moved by one, an event
kind or an id replaced by another); half of them are then numbered again (seq = index).  Random
edits reach most of what a checker refuses and how it re-synchronises after it, but not every
pattern: a verdict diff that says "same" is as strong as the corpus behind it.  The same seed and
sources give the same corpus.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeAlias

import attrs

from loopspec.log import kinds

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
Event: TypeAlias = "dict[str, JSON]"

# The event kinds a mutation may put in place of another (the ones the logs are mostly made of).
KINDS = tuple(sorted(value for name, value in vars(kinds).items()
                     if name.isupper() and isinstance(value, str) and "/" in value))
# What the example logs' ids look like: call-1.1.1, u1, m2, s1b, assistant-1.1, ...
ID = re.compile(r"[a-z]+[-_.]?[0-9][\w.-]*")


def logs_under(folder: Path) -> list[Path]:
    """The session logs under ``folder`` (not the live recordings)."""
    return sorted(p for p in folder.rglob("*.jsonl") if not p.name.endswith(".live.jsonl"))


def _read_log(path: Path) -> list[Event] | None:
    """The events of a log whose every non-blank line is a JSON object (strict JSON: no NaN)."""

    def refuse(token: str) -> JSON:
        raise ValueError(token)

    try:
        text = path.read_bytes().decode("utf-8")
        events = [json.loads(line, parse_constant=refuse) for line in text.split("\n") if line.strip()]
    except ValueError:  # not UTF-8, or a line that is not JSON
        return None
    if not events or not all(isinstance(e, dict) for e in events):
        return None
    return events


def mutation_sources(tree: Path) -> list[list[Event]]:
    sources = (_read_log(p) for top in ("examples", "tests") for p in logs_under(tree / top))
    return [s for s in sources if s is not None]


def _strings(value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


@attrs.frozen
class Mutator:
    rng: random.Random
    ids: tuple[str, ...]  # every id of the sources: a replaced id is another plausible one

    def other_id(self, old: str) -> str:
        if self.rng.random() < 0.5:
            return old + "x"  # an id nothing else names
        return self.rng.choice([i for i in self.ids if i != old] or [old + "x"])

    def tweak(self, value: JSON) -> JSON:
        """``value`` with one change somewhere inside it, along one random path; containers on the
        path are copied, the source is left as it is.  A leaf of no changeable kind (a float, null,
        another string) is left unchanged."""
        rng = self.rng
        if isinstance(value, dict) and value:
            key = rng.choice(list(value))
            copy = dict(value)
            if rng.random() < 0.15:
                del copy[key]
            else:
                copy[key] = self.tweak(copy[key])
            return copy
        if isinstance(value, list) and value:
            i = rng.randrange(len(value))
            items = list(value)
            r = rng.random()
            if r < 0.3:
                del items[i]
            elif r < 0.5:
                items.insert(i, items[i])
            else:
                items[i] = self.tweak(items[i])
            return items
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return value + rng.choice((-1, 1))
        if isinstance(value, str):
            if value in KINDS:
                return rng.choice([k for k in KINDS if k != value])
            if ID.fullmatch(value):
                return self.other_id(value)
        return value

    def mutate(self, events: list[Event]) -> list[Event]:
        rng = self.rng
        events = list(events)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            if not events:
                break
            j = rng.randrange(len(events))
            r = rng.random()
            if r < 0.2:
                del events[j]
            elif r < 0.35:
                events.insert(j, events[j])
            elif r < 0.5 and len(events) > 1:
                j = min(j, len(events) - 2)
                events[j], events[j + 1] = events[j + 1], events[j]
            elif r < 0.55:
                del events[j + 1:]
            else:
                tweaked = self.tweak(events[j])
                assert isinstance(tweaked, dict)  # a dict's tweak is a dict
                events[j] = tweaked
        if rng.random() < 0.5:
            # Half the mutants are numbered again, as a writer of the changed log would number it,
            # so a moved or lost event is judged by more than LOG-2's seq.
            events = [{**e, "seq": n} if isinstance(e.get("seq"), int) else e for n, e in enumerate(events)]
        return events


def write_mutants(sources: Sequence[list[Event]], folder: Path, count: int, seed: int) -> list[Path]:
    ids = sorted({s for log in sources for event in log for s in _strings(event) if ID.fullmatch(s)})
    mutator = Mutator(random.Random(seed), tuple(ids))
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        events = mutator.mutate(mutator.rng.choice(sources))
        path = folder / f"m{i:05}.jsonl"
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
        paths.append(path)
    return paths
