"""The adapter protocol's version and handshake (``spec/adapter-protocol.md``, Requests and responses).

The tools send ``hello`` first; :func:`hello_answer` accepts only an answer of this protocol that
names the implementation and its capability profile, and says exactly what is wrong otherwise —
including a v1 adapter (with the list of what changed) and a program that echoes its input.
"""

from __future__ import annotations

from loopspec.vectors.capabilities import LACKABLE
from loopspec.vectors.json_reading import Json
from loopspec.vectors.profiles import PROFILE_NAMES

PROTOCOL = "loopspec-adapter/2"
OLD_PROTOCOLS = ("loopspec-adapter/1",)
CHANGES = (
    f"{PROTOCOL} changed three things since loopspec-adapter/1: every notification in an observation "
    "carries nextSeq (the seq the next durable event was going to get when it was emitted); event times "
    "follow the time policy (strictly increasing within a case, crash-repair closers copy the time of the "
    "event before them); and the hello answer names the adapter's profile (inbox, loop or full). "
    "See spec/adapter-protocol.md, 'Changes from loopspec-adapter/1'."
)


class AdapterError(Exception):
    """The adapter answered a request with a protocol error (``{"error": {kind, message}}``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"adapter error ({kind}): {message}")
        self.kind = kind
        self.message = message


def hello_answer(answer: object, request: Json) -> tuple[str, str, tuple[str, ...]]:
    """``(implementation, profile, lacks)`` from a hello answer, or :class:`AdapterError` saying what is wrong.

    ``lacks`` (optional) names capabilities of :data:`~loopspec.vectors.capabilities.LACKABLE`.
    """
    if answer == request:
        raise AdapterError("protocol", "the adapter echoed the hello request back instead of answering it "
                                       "(a program that copies its input is not an adapter)")
    if not isinstance(answer, dict):
        raise AdapterError("protocol", f"adapter answered hello with {answer!r}")
    protocol = answer.get("protocol")
    if protocol in OLD_PROTOCOLS:
        raise AdapterError("protocol", f"the adapter speaks {protocol}; this loopspec needs {PROTOCOL}.\n{CHANGES}")
    if protocol != PROTOCOL:
        raise AdapterError("protocol", f"the adapter answered hello with protocol {protocol!r}, not {PROTOCOL}")
    implementation, profile = answer.get("implementation"), answer.get("profile")
    if not isinstance(implementation, str) or not implementation:
        raise AdapterError("protocol", f"the hello answer must name the implementation (a non-empty string), "
                                       f"got {implementation!r}")
    if profile not in PROFILE_NAMES:
        raise AdapterError("protocol", f"the hello answer must name a profile, one of {list(PROFILE_NAMES)}, "
                                       f"got {profile!r}")
    extra = sorted(set(answer) - {"protocol", "implementation", "profile", "lacks"})
    if extra:
        raise AdapterError("protocol", f"the hello answer has unknown key(s) {extra}")
    lacks = answer.get("lacks", [])
    if not isinstance(lacks, list) or not all(isinstance(n, str) and n in LACKABLE for n in lacks):
        raise AdapterError("protocol", f"the hello answer's lacks must list capabilities of {sorted(LACKABLE)}, "
                                       f"got {lacks!r}")
    return implementation, str(profile), tuple(lacks)
