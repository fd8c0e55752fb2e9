"""Reading ``NAME.final.json``: the end state, and for a restart the state around it."""

from __future__ import annotations

from pathlib import Path

from loopspec.data.messages import shown
from loopspec.reproduce import records as r
from loopspec.reproduce.reading import Unusable, parse_json, unreadable

_END_KEYS = frozenset({"scenario", "status", "nextTurn", "nextStep", "hasPending", "eventCount"})
_RESTART_KEYS = frozenset({"beforeRestart", "reconstructedAfterResume", "persistedFiles"})


def _ids(raw: dict[str, object], key: str, path: Path) -> r.Ids:
    value = raw.get(key)
    if not (isinstance(value, list) and all(isinstance(i, str) for i in value)):
        raise Unusable(path, None, f"'{key}' must be an array of ids, got {shown(value)}")
    return tuple(value)


def _view(raw: object, keys: frozenset[str], where: str, path: Path) -> r.ProcessView:
    if not (isinstance(raw, dict) and set(raw) == keys):
        raise Unusable(path, None, f"'{where}' must be an object with exactly {sorted(keys)}, got {shown(raw)}")
    status, count = raw["status"], raw["eventCount"]
    if status not in ("idle", "running"):
        raise Unusable(path, None, f"'{where}.status' must be 'idle' or 'running', got {shown(status)}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise Unusable(path, None, f"'{where}.eventCount' must be a non-negative integer, got {shown(count)}")
    return r.ProcessView(_ids(raw, "nextTurn", path), _ids(raw, "nextStep", path), str(status), count)


def read_final(path: Path, name: str, records: tuple[r.LiveRecord, ...]) -> r.Final:
    """The final file of recording ``name``; it must name the scenario and match its boundaries."""
    try:
        raw = parse_json(path.read_text(encoding="utf-8"), path, None)
    except (OSError, UnicodeDecodeError) as err:
        raise Unusable(path, None, unreadable(err)) from None
    if not isinstance(raw, dict):
        raise Unusable(path, None, f"the final state must be a JSON object, got {type(raw).__name__}")
    unknown = set(raw) - _END_KEYS - _RESTART_KEYS
    if unknown or not set(raw) >= _END_KEYS:
        raise Unusable(path, None, f"keys must be {sorted(_END_KEYS)} plus optionally {sorted(_RESTART_KEYS)}, "
                                   f"got {sorted(raw)}")
    if raw["scenario"] != name:
        raise Unusable(path, None, f"'scenario' is {shown(raw['scenario'])}, not this recording's name {name!r}")
    if not isinstance(raw["hasPending"], bool):
        raise Unusable(path, None, f"'hasPending' must be a boolean, got {shown(raw['hasPending'])}")
    end = _view({k: raw[k] for k in ("nextTurn", "nextStep", "status", "eventCount")},
                frozenset({"nextTurn", "nextStep", "status", "eventCount"}), "final", path)
    if ("beforeRestart" in raw) != ("reconstructedAfterResume" in raw):
        raise Unusable(path, None, "'beforeRestart' and 'reconstructedAfterResume' come together")
    if "beforeRestart" not in raw:
        return r.Final(name, end, raw["hasPending"])
    before_raw = raw["beforeRestart"]
    crash = before_raw.get("crash") if isinstance(before_raw, dict) else None
    before = _view({k: v for k, v in before_raw.items() if k != "crash"} if isinstance(before_raw, dict) else None,
                   frozenset({"nextTurn", "nextStep", "status", "eventCount"}), "beforeRestart", path)
    if not isinstance(crash, bool):
        raise Unusable(path, None, f"'beforeRestart.crash' must be a boolean, got {shown(crash)}")
    boundaries = [rec for rec in records if isinstance(rec, r.Note) and rec.crash is not None]
    if not boundaries or boundaries[0].crash != crash:
        raise Unusable(path, None, f"'beforeRestart' describes a process ended with crash={crash}, but the live "
                                   "file's first process boundary " + ("is not" if boundaries else "is missing"))
    after = _view(raw["reconstructedAfterResume"], frozenset({"nextTurn", "nextStep", "status", "eventCount"}),
                  "reconstructedAfterResume", path)
    return r.Final(name, end, raw["hasPending"], before, crash, after)
