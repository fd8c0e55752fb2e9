"""The conversation surface as the session folds it, and the replacements it admits (LOG-12).

The session keeps the surface as the seqs of its current events: an ``append`` adds one, a
replacement ``{"op": "replace", "start": S, "end": E}`` puts itself in place of the current events
from S to E.  It refuses to append a surface event whose range is not current, whose
``sourceEventSeqs`` leave out an event it hides, or a ``tool/result`` rewrite that hides anything
but one current result or changes more than that result's content.  A record it refuses is never
in its log, so the checker refuses it too (decisions.md G12).

The fold holds one int per current surface event and, for each current ``tool/result``, a hash
of everything but its content: a long log costs ints, not its messages.
"""

from __future__ import annotations

import orjson

from loopspec.check.tracker import Tracker
from loopspec.log.envelope import is_safe_integer
from loopspec.log.kinds import ASSISTANT_MESSAGE, TOOL_RESULT, USER_MESSAGE

# The kinds the session requires a surfaceOp on besides user/message, whose envelope is LOG-7's
# (v0.1.5's system/message also carried one, VARIANT-1).
NEEDS_SURFACE_OP = (ASSISTANT_MESSAGE, TOOL_RESULT)
_REPLACE_KEYS = ("end", "op", "start")


def _is_seq(value: object) -> bool:
    return is_safe_integer(value) and value >= 0  # type: ignore[operator]


def _fixed_part(data: object) -> int:
    """A tool/result's record with its first block's content blanked: what a rewrite must keep.

    Kept as the hash of its JSON text (sorted keys), compared only with another result's of the
    same log in the same process: Python's own hash of bytes (64-bit SipHash under the process's
    random key) needs no import, where hashlib's first import cost 7 ms (it loads OpenSSL): more
    than the rest of the fold's work on a 100,000-line log.  orjson writes the JSON in a tenth of
    the standard library's time; a value it cannot write (an integer past 64 bits, from the slow
    parse) is written by the standard library, which no value orjson can write comes out as.
    """
    if isinstance(data, dict) and isinstance(data.get("message"), dict):
        message = data["message"]
        content = message.get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict):
            data = {**data, "message": {**message, "content": [{**content[0], "content": None}, *content[1:]]}}
    try:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        import json

        text = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()  # parsed JSON: serialisable
    return hash(text)


class SurfaceFold(Tracker):
    """The seqs of the current surface events, in order (LOG-12)."""

    __slots__ = ("nodes", "results")

    def __init__(self) -> None:
        self.nodes: list[int] = []
        self.results: dict[int, int] = {}  # a current tool/result's seq -> the hash of its fixed part

    def __eq__(self, other: object) -> bool:  # the fast path's state is compared with the general path's
        return isinstance(other, SurfaceFold) and (self.nodes, self.results) == (other.nodes, other.results)

    __hash__ = None

    def copy(self) -> SurfaceFold:
        new = SurfaceFold()
        new.nodes, new.results = self.nodes.copy(), self.results.copy()
        return new

    # Exploration keys the states of the model's logs, and the model writes no replacement: no
    # later verdict of its logs reads the surface (and its seqs are only numbering).
    KEYED = ()

    def __repr__(self) -> str:
        return f"SurfaceFold(nodes={self.nodes!r})"

    def feed(self, etype: str, raw: dict[str, object], seq: int) -> str | None:
        """Fold one surface-kind event; what the session would refuse in it, or None."""
        op = raw.get("surfaceOp")
        if etype == USER_MESSAGE and op != "append":
            return None  # its envelope is LOG-7's
        if op is None:
            return f"{etype} carries no surfaceOp" if etype in NEEDS_SURFACE_OP else None
        sources = raw.get("sourceEventSeqs")
        problem = None if sources is None else self._sources_problem(etype, sources, seq)
        if op == "append":
            if problem is None:  # the session's append (spelled out: every surface event pays for a call)
                self.nodes.append(seq)
                if etype == TOOL_RESULT:
                    self.results[seq] = _fixed_part(raw.get("data"))
            return problem
        if not isinstance(op, dict):
            return None  # LOG-9 names a surfaceOp that is neither "append" nor an object
        return problem or self._replace(etype, raw, op, seq)

    def _sources_problem(self, etype: str, sources: object, seq: int) -> str | None:
        if not isinstance(sources, list):
            return None  # LOG-1's to name
        # The writer's case first: seqs in ascending order, the last before this event.  Strictly
        # ascending numbers are distinct, so a list that passes has distinct integers, all earlier:
        # what the full test below asks (a value that is not an integer is LOG-1's to name, and one
        # that does not compare with a number sends the list to the full test).  A Python loop of one
        # comparison a seq: C-level passes (the types, a set, a sort) measured twice its cost on a
        # list of 60 seqs, and a type test per seq doubled it (an assistant/message cites every
        # chunk of its step).
        earlier = -1
        try:
            for cited in sources:
                if cited <= earlier:
                    break
                earlier = cited
            else:
                if earlier < seq and (sources or etype == ASSISTANT_MESSAGE):
                    return None
        except TypeError:
            pass
        if not sources and etype != ASSISTANT_MESSAGE:
            return f"{etype} cites an empty sourceEventSeqs"
        seqs = [s for s in sources if type(s) is int]  # another value is LOG-1's to name
        if len(set(seqs)) != len(seqs):
            return f"{etype} cites a seq twice in sourceEventSeqs {sources}"
        later = [s for s in seqs if s >= seq]
        if later:
            return f"{etype} at seq {seq} cites seq {later[0]} in sourceEventSeqs, which is not an earlier event"
        return None

    def _replace(self, etype: str, raw: dict[str, object], op: dict[str, object], seq: int) -> str | None:
        start, end = op.get("start"), op.get("end")
        if sorted(op) != list(_REPLACE_KEYS) or op.get("op") != "replace" or not (_is_seq(start) and _is_seq(end)):
            return f"{etype} has surfaceOp {op!r}; a replacement is exactly {{op: 'replace', start: seq, end: seq}}"
        try:
            first = self.nodes.index(start)  # type: ignore[arg-type]
            last = self.nodes.index(end)  # type: ignore[arg-type]
        except ValueError:
            gone = start if start not in self.nodes else end
            return f"{etype} replaces a range bounded by seq {gone}, which is not a current surface event"
        if first > last:
            return f"{etype} replaces from seq {start} to seq {end}, but {start} comes after {end} on the surface"
        hidden = self.nodes[first:last + 1]
        cited = raw.get("sourceEventSeqs")
        missing = [s for s in hidden if not (isinstance(cited, list) and s in cited)]
        if missing:
            return f"{etype} hides surface event(s) {missing} that its sourceEventSeqs {cited!r} do not cite"
        if etype == TOOL_RESULT:
            problem = self._rewrite_problem(raw, hidden)
            if problem is not None:
                return problem
        self.nodes[first:last + 1] = [seq]
        for gone in hidden:
            self.results.pop(gone, None)
        if etype == TOOL_RESULT:
            self.results[seq] = _fixed_part(raw.get("data"))
        return None

    def _rewrite_problem(self, raw: dict[str, object], hidden: list[int]) -> str | None:
        if len(hidden) != 1:
            return f"a replacing tool/result hides {len(hidden)} surface events {hidden}; it rewrites exactly one"
        if hidden[0] not in self.results:
            return f"a replacing tool/result hides seq {hidden[0]}, which is not a tool/result"
        if self.results[hidden[0]] != _fixed_part(raw.get("data")):
            return f"a replacing tool/result changes more of seq {hidden[0]} than its content"
        return None
