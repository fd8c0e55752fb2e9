"""The reason a ``turn/end`` gives: its kind and the fields each kind carries (END-1, VARIANT-2, LOG-8).

Split from :mod:`.lifecycle`, which decides whether the end may come where it does; this module
only reads what the record says about why the turn ended.
"""

from __future__ import annotations

from loopspec.check.state import CheckState
from loopspec.log.end_reasons import ABORTED, END_KINDS, ERROR

# END-1: the fields each reason kind carries besides ``kind``.
REASON_FIELDS = {ABORTED: frozenset({"kind", "reason"}), ERROR: frozenset({"kind", "error"})}
KIND_ONLY = frozenset({"kind"})  # the other kinds' fields


def turn_end_kind(st: CheckState, data: object) -> str:
    """The reason kind of a ``turn/end``'s data (``""`` when it names none), after checking its fields (END-1)."""
    reason = data.get("reason") if isinstance(data, dict) else None
    kind = reason.get("kind") if isinstance(reason, dict) else None
    if not isinstance(kind, str):
        if isinstance(data, dict) and "reason" in data:
            st.violate("LOG-8", f"turn/end reason must be an object with a string kind, got {reason!r}")
        return ""
    assert isinstance(reason, dict)
    if kind not in END_KINDS:
        st.violate("END-1", f"unknown turn end reason {kind!r}")
        return kind
    allowed = REASON_FIELDS.get(kind, KIND_ONLY)
    if not reason.keys() <= allowed:
        st.violate("END-1", f"turn end reason {kind!r} with unknown field(s) {sorted(reason.keys() - allowed)}")
    elif kind == ABORTED:
        cause = reason.get("reason")
        if not (isinstance(cause, dict) and isinstance(cause.get("kind"), str)):
            st.violate("VARIANT-2", f"aborted turn end without a cancel cause, got reason {cause!r}")
    elif kind == "error" and not _is_failure(reason.get("error")):
        st.violate("END-1", f"error turn end without a failure {{message, code}}, got {reason.get('error')!r}")
    return kind


def cause_kind(data: object) -> object:
    """The kind of an aborted end's cancel cause (``disposed``, ...), or None."""
    reason = data.get("reason") if isinstance(data, dict) else None
    cause = reason.get("reason") if isinstance(reason, dict) else None
    return cause.get("kind") if isinstance(cause, dict) else None


def _is_failure(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("message"), str)
        and isinstance(value.get("code", ""), str)
    )
