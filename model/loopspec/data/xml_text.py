"""Text from a log made fit for XML 1.0: the JUnit report and the SVG pictures both carry it.

A log may hold anything, and XML cannot carry control characters or lone surrogates; each such
character is written as ``\\uXXXX`` so the document stays well-formed and the reader still sees
which character it was.
"""

from __future__ import annotations

import re

# Compiled on first use (by re's cache): building this class at import costs the checker start-up.
_NOT_XML = "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry spelled as ``\\uXXXX``."""
    return re.sub(_NOT_XML, lambda m: f"\\u{ord(m.group()):04x}", text)
