"""``xml_safe``: the JUnit report and the SVG pictures stay well-formed whatever a log holds."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from loopspec.data.xml_text import xml_safe


def test_characters_xml_cannot_carry_are_spelled_out_and_the_rest_kept() -> None:
    assert xml_safe("a\x00b\x1f\ud800\ufffe\tc\n") == "a\\u0000b\\u001f\\ud800\\ufffe\tc\n"
    assert xml_safe("turn/start 2 — ✓ \U0001f600") == "turn/start 2 — ✓ \U0001f600"


@given(st.text())
def test_any_text_parses_as_an_attribute_once_made_safe(text: str) -> None:
    element = ET.fromstring(f'<e a="{html.escape(xml_safe(text), quote=True)}"/>')
    assert "a" in element.attrib
