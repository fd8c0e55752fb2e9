"""Reading the spec's JSON Schemas for documentation: fields, types and rule links.

This is not a validator (the tests use ``jsonschema`` for that); it only walks the schemas the
way a reader would: follow ``$ref`` to name a type, collect an object's properties from the
schema, its ``$ref`` and ``allOf`` parts, and read the ``x-*`` annotations the spec puts on each
schema (``x-kind``, ``x-event-type``, ``x-notification-type``, ``x-rules``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import attrs

Schema = dict[str, Any]


@attrs.frozen
class Field:
    """One documented property: name, rendered type, whether required, description."""

    name: str
    type: str
    required: bool
    description: str


@attrs.frozen
class SchemaFile:
    """One schema file of ``spec/schemas`` with its annotations."""

    name: str
    body: Schema = attrs.field(eq=False)

    @property
    def id(self) -> str:
        return str(self.body.get("$id", ""))

    @property
    def kind(self) -> str:
        return str(self.body.get("x-kind", ""))

    @property
    def title(self) -> str:
        return str(self.body.get("title", self.name))

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(str(r) for r in self.body.get("x-rules", ()))

    @property
    def type_name(self) -> str:
        """The event or notification type it describes ('' for shared shapes)."""
        return str(self.body.get("x-event-type") or self.body.get("x-notification-type") or "")


@attrs.frozen
class SchemaCatalog:
    """All schema files, with ``$ref`` resolution across them."""

    files: tuple[SchemaFile, ...]

    def by_kind(self, kind: str) -> tuple[SchemaFile, ...]:
        return tuple(f for f in self.files if f.kind == kind)

    def _by_id(self, uri: str) -> Schema | None:
        for f in self.files:
            if f.id == uri:
                return f.body
        return None

    def resolve_once(self, node: Schema, base: str) -> tuple[Schema, str, str] | None:
        """The node one ``$ref`` points at: (target, its base URI, its name); None without a ref."""
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return None
        uri, fragment = urldefrag(urljoin(base, ref))
        document = self._by_id(uri)
        if document is None:
            return None
        target: Any = document
        for part in [p for p in fragment.split("/") if p]:
            target = target.get(part, {}) if isinstance(target, dict) else {}
        name = fragment.rsplit("/", 1)[-1] if fragment else str(document.get("title", uri))
        return (target if isinstance(target, dict) else {}), uri, name

    def resolve(self, node: Schema, base: str) -> tuple[Schema, str, str]:
        """Follow a ``$ref`` chain; returns (final target, its base URI, the first reference's name).

        The first reference names the type: ``positiveSafeInteger``, not the ``safeInteger`` it
        builds on.
        """
        name = ""
        for _ in range(16):  # reference chains in the spec are short; this bounds a cycle
            hop = self.resolve_once(node, base)
            if hop is None:
                break
            node, base = hop[0], hop[1]
            name = name or hop[2]
        return node, base, name

    def render_type(self, node: object, base: str) -> str:
        """A short human-readable type: consts, enums, named references, arrays, alternatives."""
        if not isinstance(node, dict):
            return "absent" if node is False else "any"
        if "const" in node:
            return json.dumps(node["const"])
        if "enum" in node:
            return " | ".join(json.dumps(v) for v in node["enum"])
        if "$ref" in node:
            target, target_base, name = self.resolve(node, base)
            if "const" in target or "enum" in target:
                return self.render_type(target, target_base)
            return name or self.render_type(target, target_base)
        for key in ("oneOf", "anyOf"):
            if key in node:
                return " | ".join(self._alternative(alt, base) for alt in node[key])
        kind = node.get("type")
        if kind == "array":
            items = node.get("items")
            return f"array of {self.render_type(items, base)}" if items is not None else "array"
        return str(kind) if kind else "any"

    def _alternative(self, node: Schema, base: str) -> str:
        props = node.get("properties", {})
        if node.get("type") == "object" and isinstance(props, dict) and props:
            parts = [f"{k}: {self.render_type(v, base)}" if k == "kind" else k for k, v in props.items()]
            return "{" + ", ".join(parts) + "}"
        return self.render_type(node, base)

    def fields(self, node: Schema, base: str) -> tuple[Field, ...]:
        """The properties of an object schema, merged over ``$ref`` and ``allOf`` parts."""
        seen: dict[str, Field] = {}
        self._collect(node, base, seen, 0)
        return tuple(seen.values())

    def _collect(self, node: Schema, base: str, seen: dict[str, Field], depth: int) -> None:
        if depth > 8:
            return
        if "$ref" in node:
            target, target_base, _ = self.resolve(node, base)
            self._collect(target, target_base, seen, depth + 1)
        required = set(node.get("required", ()))
        for name, prop in node.get("properties", {}).items():
            if prop is True and name in seen:
                continue  # `kind: true` style placeholders add nothing to an earlier definition
            prop_node: Schema = prop if isinstance(prop, dict) else {}
            description = str(prop_node.get("description", ""))
            hop = self.resolve_once(prop_node, base) if not description else None
            if hop is not None:
                description = str(hop[0].get("description", ""))
            rendered = "absent" if prop is False else self.render_type(prop_node, base)
            earlier = seen.get(name)
            seen[name] = Field(
                name,
                rendered,
                name in required or (earlier is not None and earlier.required),
                description or (earlier.description if earlier else ""),
            )
        for name in required - set(seen):
            seen[name] = Field(name, "any", True, "")
        for part in node.get("allOf", ()):
            if isinstance(part, dict) and "if" not in part:
                self._collect(part, base, seen, depth + 1)


def load_catalog(schema_dir: Path) -> SchemaCatalog:
    """Every ``*.json`` of ``schema_dir`` in file-name order (empty when the directory is absent)."""
    files = tuple(
        SchemaFile(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(schema_dir.glob("*.json"))
    )
    return SchemaCatalog(files)
