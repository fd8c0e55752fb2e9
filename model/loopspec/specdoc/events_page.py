"""Sections of ``docs/events.md``: the durable events and live notifications, from the spec's schemas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loopspec.log.kinds import END_SEED, SPLICED, STEP_END, STEP_START, TURN_END, TURN_START, USER_MESSAGE
from loopspec.specdoc.markdown import cell, file_link, rule_link
from loopspec.specdoc.schema_catalog import Field, SchemaFile

if TYPE_CHECKING:
    from loopspec.specdoc.project import Project


# Durable events in the order a turn writes them; any other type follows alphabetically.
EVENT_ORDER = (
    SPLICED,
    TURN_START,
    STEP_START,
    USER_MESSAGE,
    STEP_END,
    TURN_END,
    END_SEED,
)


def _ordered(schemas: tuple[SchemaFile, ...]) -> tuple[SchemaFile, ...]:
    def key(schema: SchemaFile) -> tuple[int, str]:
        name = schema.type_name
        return (EVENT_ORDER.index(name) if name in EVENT_ORDER else len(EVENT_ORDER), name)

    return tuple(sorted(schemas, key=key))


def _rules(project: Project, schema: SchemaFile) -> str:
    links = []
    for rule_id in schema.rules:
        rule = project.spec.get(rule_id)
        links.append(rule_link(rule) if rule else f"`{rule_id}` (undefined)")
    return ", ".join(links) if links else "—"


def _table(fields: tuple[Field, ...], skip: frozenset[str] = frozenset()) -> list[str]:
    rows = [f for f in fields if f.name not in skip]
    if not rows:
        return ["No fields."]
    out = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for f in rows:
        out.append(f"| `{f.name}` | {cell(f.type)} | {'yes' if f.required else 'no'} | {cell(f.description)} |")
    return out


def _heading(project: Project, schema: SchemaFile, name: str) -> list[str]:
    path = f"spec/schemas/{schema.name}"
    return [
        f"### `{name}`",
        "",
        str(schema.body.get("description", "")),
        "",
        f"- governed by: {_rules(project, schema)}",
        f"- schema: {file_link(schema.name, path)}",
        "",
    ]


def overview(project: Project) -> str:
    events = _ordered(project.schemas.by_kind("event"))
    notes = project.schemas.by_kind("notification")
    return (
        "Every durable event type the model reads or writes and every live notification it emits, with\n"
        "their fields and the rules that write or govern them. Durable events share the envelope (see\n"
        "[Shared shapes](#shared-shapes)); an event type without a schema here passes through the model\n"
        "untouched and is checked against the envelope only.\n\n"
        f"- durable events: {', '.join(f'`{s.type_name}`' for s in events)}\n"
        f"- live notifications: {', '.join(f'`{s.type_name}`' for s in notes)}\n"
    )


def durable_events(project: Project) -> str:
    catalog = project.schemas
    out = ["## Durable events", ""]
    for schema in _ordered(catalog.by_kind("event")):
        out += _heading(project, schema, schema.type_name)
        props = schema.body.get("properties", {})
        data = props.get("data", {})
        out.append("`data`:")
        out.append("")
        if isinstance(data, dict) and "$ref" in data and "properties" not in data:
            _, _, name = catalog.resolve(data, schema.id)
            out.append(f"the {name} itself (see [Shared shapes](#shared-shapes)).")
        else:
            out += _table(catalog.fields(data, schema.id))
        envelope_extras = {k: v for k, v in props.items() if k not in ("type", "data")}
        if envelope_extras:
            out += ["", "Envelope keys specific to this type:", ""]
            out += _table(
                catalog.fields({"properties": envelope_extras, "required": schema.body.get("required", [])}, schema.id)
            )
        out.append("")
    return "\n".join(out)


def notifications(project: Project) -> str:
    catalog = project.schemas
    out = [
        "## Live notifications",
        "",
        "Process-local and not durable; the real dispatcher adds the emitting `agent` to each.",
        "",
    ]
    for schema in catalog.by_kind("notification"):
        out += _heading(project, schema, schema.type_name)
        out += _table(catalog.fields(schema.body, schema.id), skip=frozenset({"type"}))
        out.append("")
    return "\n".join(out)


def shared_shapes(project: Project) -> str:
    catalog = project.schemas
    out = ["## Shared shapes", ""]
    for schema in catalog.by_kind("component") + catalog.by_kind("live-record"):
        out += _heading(project, schema, schema.title)
        defs = schema.body.get("$defs", {})
        if schema.body.get("properties"):
            out += _table(catalog.fields(schema.body, schema.id))
        elif isinstance(defs, dict):
            out += ["| definition | type | meaning |", "|---|---|---|"]
            for name, node in defs.items():
                described = str(node.get("description", "")) if isinstance(node, dict) else ""
                out.append(f"| `{name}` | {cell(catalog.render_type(node, schema.id))} | {cell(described)} |")
        if schema.kind == "live-record" and isinstance(defs, dict):
            for name, node in defs.items():
                if isinstance(node, dict):
                    out += ["", f"`{name}` record: {node.get('description', '')}", ""]
                    out += _table(catalog.fields(node, schema.id), skip=frozenset({"kind"}))
        out.append("")
    return "\n".join(out)
