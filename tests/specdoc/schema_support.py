"""Validation of events and notifications against the spec's JSON Schemas (``spec/schemas``).

The API is deliberately small so that every test can use it:

* :func:`validate_event` — one durable event as a JSON object: the envelope schema always, plus
  the schema of its type when the spec has one (types outside the model: envelope only, LOG-6);
* :func:`validate_notification` — one live notification (``to_json()`` of the model's
  notifications, optionally with the real dispatcher's ``agent`` key);
* :func:`validate_live_record` — one line of a recorded ``*.live.jsonl``.

Each raises ``AssertionError`` naming the schema, the path inside the instance and the path
inside the schema of the first failure.  The schemas are loaded once per process; they are
immutable files, so the cache is not model state.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

from conftest import REPO

SCHEMA_DIR = REPO / "spec" / "schemas"
ENVELOPE = "envelope.schema.json"
LIVE_RECORD = "live-record.schema.json"


@cache
def _schemas() -> dict[str, dict[str, Any]]:
    """Every schema file by file name."""
    if not SCHEMA_DIR.is_dir():
        raise AssertionError(f"schema directory {SCHEMA_DIR} is missing")
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_DIR.glob("*.json"))}


@cache
def _registry() -> Registry:
    resources = [(s["$id"], Resource.from_contents(s)) for s in _schemas().values()]
    return Registry().with_resources(resources)


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(_schemas()[name], registry=_registry())


def _by_key(key: str) -> dict[str, str]:
    return {s[key]: name for name, s in _schemas().items() if key in s}


def event_schema_names() -> dict[str, str]:
    """Durable event type -> schema file name."""
    return _by_key("x-event-type")


def notification_schema_names() -> dict[str, str]:
    """Notification type -> schema file name."""
    return _by_key("x-notification-type")


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every schema by file name (for checks of the schemas themselves)."""
    return dict(_schemas())


def _check(name: str, instance: object) -> None:
    error = best_match(_validator(name).iter_errors(instance))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        schema_path = "/".join(str(p) for p in error.absolute_schema_path)
        raise AssertionError(f"{name}: at {where}: {error.message} [schema path {schema_path}]")


def validate_event(obj: dict[str, Any]) -> None:
    """Envelope, then the type's own schema when the spec defines one."""
    _check(ENVELOPE, obj)
    name = event_schema_names().get(obj["type"])
    if name is not None:
        _check(name, obj)


def validate_notification(obj: dict[str, Any]) -> None:
    """A live notification; an unknown type is itself a failure."""
    name = notification_schema_names().get(obj.get("type"))  # type: ignore[arg-type]
    if name is None:
        raise AssertionError(f"no notification schema for type {obj.get('type')!r}")
    _check(name, obj)


def validate_live_record(obj: dict[str, Any]) -> None:
    """One line of a recorded ``*.live.jsonl``."""
    _check(LIVE_RECORD, obj)


def schema_dir() -> Path:
    return SCHEMA_DIR
