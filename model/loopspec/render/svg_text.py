"""Writing SVG as text: escaping, elements, and the ``<title>`` tooltip every mark carries.

Text from a log may hold anything; characters XML cannot carry (control characters, lone
surrogates) are written as ``\\uXXXX`` so both the standalone ``.svg`` files and the HTML page
stay well-formed.
"""

from __future__ import annotations

import html

from loopspec.data.xml_text import xml_safe


def text(value: str) -> str:
    """``value`` escaped for XML text and attribute values."""
    return html.escape(xml_safe(value), quote=True)


def num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def attrs(**values: object) -> str:
    """XML attributes; ``class_`` is ``class``, ``data_x`` is ``data-x``; None values are left out."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float) else str(value)
        parts.append(f'{name}="{text(shown)}"')
    return " ".join(parts)


def element(tag: str, body: str = "", **values: object) -> str:
    inner = attrs(**values)
    opening = f"<{tag} {inner}" if inner else f"<{tag}"
    return f"{opening}>{body}</{tag}>" if body else f"{opening}/>"


def label(x: float, y: float, content: str, **values: object) -> str:
    return element("text", text(content), x=float(x), y=float(y), **values)


def mark(tooltip: str, body: str, **values: object) -> str:
    """A group with its tooltip first: hovering any part of ``body`` shows ``tooltip``."""
    return element("g", f"<title>{text(tooltip)}</title>{body}", **values)


def clipped(content: str, limit: int) -> str:
    """``content`` cut to at most ``limit`` characters at a word's end, with "…" when cut."""
    if len(content) <= limit:
        return content
    head = content[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "…"


def rule_html(sentence: str) -> str:
    """A rule's sentence as HTML: the spec's `code spans` as <code>, the rest escaped."""
    parts = sentence.replace("**", "").split("`")
    return "".join(f"<code>{text(part)}</code>" if odd else text(part) for odd, part in
                   ((i % 2 == 1 and i < len(parts) - 1, part) for i, part in enumerate(parts)))
