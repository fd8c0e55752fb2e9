"""Instances generated from the spec's JSON Schemas, and near-misses of them.

:func:`instances` draws JSON values that a schema accepts: it walks the schema (after
:func:`flatten` has inlined every ``$ref``) and builds candidates keyword by keyword, then keeps
only those the Draft 2020-12 validator accepts, so a keyword the walk treats loosely (``if`` /
``then``, ``dependentRequired``, ``oneOf``'s exclusivity) costs a retry, never a wrong instance.
:func:`near_misses` mutates one place of a valid instance: a value of another JSON type, a
missing key, an unknown key, an out-of-range number.

hypothesis-jsonschema would be the off-the-shelf generator, but its 0.23 release reaches into
Hypothesis internals that current Hypothesis no longer has (``many.more``) and fails on every
object schema; the subset of JSON Schema the spec uses is small enough to walk here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from specdoc.schema_support import all_schemas

MAX_SAFE = 2**53 - 1
Schema = dict[str, Any]
# Keywords that only document; they are dropped when a $ref is inlined.
_ANNOTATIONS = ("$id", "$schema", "$defs", "title", "description")


def flatten(name: str, pointer: str = "") -> Schema:
    """Schema ``name`` (optionally the sub-schema at JSON pointer ``pointer``) with every ``$ref``
    replaced by its target, so it stands alone (no registry, no network)."""
    schemas = all_schemas()
    document = schemas[name]
    node: Any = document
    for part in (p for p in pointer.split("/") if p):
        node = node[part]
    flat: Schema = _inline(node, document, schemas, 0)
    return flat


def _inline(node: Any, document: Schema, schemas: dict[str, Schema], depth: int) -> Any:
    if depth > 40:
        raise AssertionError("schema nesting too deep: a recursive $ref?")
    if isinstance(node, list):
        return [_inline(v, document, schemas, depth + 1) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline_properties(v, document, schemas, depth + 1) if k == "properties"
           else _inline(v, document, schemas, depth + 1) for k, v in node.items()
           if k not in _ANNOTATIONS and not k.startswith("x-") and k != "$ref"}
    if "$ref" not in node:
        return out
    file, _, fragment = node["$ref"].partition("#")
    target_doc = schemas[file] if file else document
    target: Any = target_doc
    for part in (p for p in fragment.split("/") if p):
        target = target[part]
    resolved = _inline(target, target_doc, schemas, depth + 1)
    # The target joins the siblings' allOf at the same level, so that unevaluatedProperties beside
    # a $ref still sees the properties the target evaluates.
    return {**out, "allOf": [resolved, *out.get("allOf", ())]} if out else resolved


def _inline_properties(node: Any, document: Schema, schemas: dict[str, Schema], depth: int) -> Any:
    """A ``properties`` map: its keys are property names (a property may be called ``description``)."""
    return {name: _inline(sub, document, schemas, depth + 1) for name, sub in node.items()}


@cache
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def validator(schema: Schema) -> Draft202012Validator:
    """One compiled validator per distinct schema (schemas are immutable files: no model state)."""
    return _validator(json.dumps(schema, sort_keys=True))


def accepts(schema: Schema, instance: object) -> bool:
    return bool(validator(schema).is_valid(instance))


# ---- generation ---------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=4),
)
any_json: st.SearchStrategy[object] = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(st.text(max_size=3), inner, max_size=2)),
    max_leaves=4,
)


def reads(reader: Callable[[object], object], refusal: type[Exception], raw: object) -> bool:
    """Whether ``reader`` takes ``raw``: True, or False when it refuses it with ``refusal``."""
    try:
        reader(raw)
    except refusal:
        return False
    return True


def merge(a: Schema | bool, b: Schema | bool) -> Schema | bool:
    """The conjunction of two schemas, keyword by keyword (enough for the allOf of the spec)."""
    if a is False or b is False:
        return False
    if not isinstance(a, dict):
        return b
    if not isinstance(b, dict):
        return a
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif key == "properties":
            props = dict(out[key])
            for name, sub in value.items():
                props[name] = merge(props[name], sub) if name in props else sub
            out[key] = props
        elif key == "required":
            out[key] = sorted(set(out[key]) | set(value))
        elif key in ("minimum", "minItems", "minLength"):
            out[key] = max(out[key], value)
        elif key in ("maximum", "maxItems", "maxLength"):
            out[key] = min(out[key], value)
        elif key == "additionalProperties":
            out[key] = out[key] if out[key] is False else value
        elif key == "allOf":
            out[key] = [*out[key], *value]
        # Any other clash (two oneOf, two types) keeps the first: the drafts are candidates, and
        # the validator in instances() enforces the whole schema.
    return out


def _resolve_all_of(schema: Schema) -> Schema:
    while "allOf" in schema:
        parts = schema["allOf"]
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        for part in parts:
            merged = merge(rest, part)
            rest = merged if isinstance(merged, dict) else rest
        schema = rest
    return schema


def _draft(schema: Any) -> st.SearchStrategy[object]:
    """Candidates shaped by ``schema``; :func:`instances` keeps the valid ones."""
    if schema is True or schema == {}:
        return any_json
    assert isinstance(schema, dict), schema
    conditionals = [part for part in schema.get("allOf", ()) if isinstance(part, dict) and "if" in part]
    if conditionals:
        # One branch of an if/then family at a time (its condition and its consequence), so that a
        # record of each kind is drafted with its own fields; the others are left to the validator.
        others = [part for part in schema["allOf"] if part not in conditionals]
        rest = {k: v for k, v in schema.items() if k != "allOf"} | ({"allOf": others} if others else {})
        branches = [merge(merge(rest, c["if"]), c.get("then", True)) for c in conditionals]
        return st.one_of([_draft(b) for b in branches])
    schema = _resolve_all_of(schema)
    if "const" in schema:
        return st.just(copy.deepcopy(schema["const"]))
    if "enum" in schema:
        return st.sampled_from([copy.deepcopy(v) for v in schema["enum"]])
    for key in ("oneOf", "anyOf"):
        if key in schema:
            rest = {k: v for k, v in schema.items() if k != key}
            branches = [merge(rest, b) if isinstance(b, dict) else b for b in schema[key]]
            return st.one_of([_draft(b) for b in branches])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_draft({**schema, "type": k}) for k in kind])
    if kind == "object" or (kind is None and ("properties" in schema or "required" in schema)):
        return _object(schema)
    if kind == "array":
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        unique = {"unique_by": repr} if schema.get("uniqueItems") else {}
        return st.lists(_draft(schema.get("items", True)), min_size=low, max_size=high, **unique)  # type: ignore[arg-type]
    if kind == "integer":
        low, high = schema.get("minimum", -MAX_SAFE), schema.get("maximum", MAX_SAFE)
        # Mostly small numbers (what coordinates and turn numbers are), sometimes the edges.
        return st.one_of(st.integers(max(low, -3), min(high, max(low, -3) + 6)), st.integers(low, high),
                         st.sampled_from([low, high]))
    if kind == "number":
        return st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False))
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(max_size=6)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return any_json


def _object(schema: Schema) -> st.SearchStrategy[object]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    open_object = False not in (schema.get("additionalProperties", True), schema.get("unevaluatedProperties", True))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, object]:
        out: dict[str, object] = {}
        for name, sub in properties.items():
            if sub is not False and (name in required or draw(st.booleans())):
                out[name] = draw(_draft(sub))
        for name in sorted(required - set(properties)):
            out[name] = draw(any_json)
        if open_object and draw(st.integers(0, 3)) == 0:
            out[draw(st.text(min_size=1, max_size=5).filter(lambda k: k not in properties))] = draw(any_json)
        return out

    return build()


def instances(schema: Schema) -> st.SearchStrategy[object]:
    """Values ``schema`` accepts (drawn by walking it, filtered by the validator)."""
    return _draft(schema).filter(lambda value: accepts(schema, value))


# ---- near-misses -------------------------------------------------------------------------

_OTHER_VALUES: tuple[object, ...] = (None, True, 0, -1, 0.5, MAX_SAFE + 1, "x", [], {})


def _paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, sub in value.items():
            found += _paths(sub, (*path, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            found += _paths(sub, (*path, index))
    return found


def _at(value: Any, path: tuple[object, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def near_misses(draw: st.DrawFn, valid: object) -> object:
    """``valid`` changed in one place: another value there, a key removed, or a key added."""
    mutated = copy.deepcopy(valid)
    path = draw(st.sampled_from(_paths(mutated)))
    node = _at(mutated, path)
    moves = ["replace"]
    if isinstance(node, dict):
        moves += ["add-key"] + (["drop-key"] if node else [])
    move = draw(st.sampled_from(moves))
    if move == "drop-key":
        del node[draw(st.sampled_from(sorted(node)))]
    elif move == "add-key":
        node[draw(st.sampled_from(["zz-unknown", "kind", "id", "turn", "outcome"]))] = draw(
            st.sampled_from(_OTHER_VALUES))
    elif not path:
        mutated = draw(st.sampled_from(_OTHER_VALUES))
    else:
        _at(mutated, path[:-1])[path[-1]] = draw(st.sampled_from([v for v in _OTHER_VALUES if v != node]))
    return mutated
