"""Symbolic session logs: a protocol-following agent's moves, chosen by symbolic branches."""

from __future__ import annotations

from crosshair import SymbolicFactory

from loopspec.log.events import SessionEvent
from symbolic.log_writer import Writer

Log = tuple[SessionEvent, ...]
PREFIXES = ("claimed", "dropped", "stepped", "in-step", "continued")
GLITCH_NAMES = ("turn-number", "turn-end", "step", "claim", "user", "foreign")
MOVES = 5


def pick(p: SymbolicFactory, name: str, options: tuple[str, ...]) -> str:
    for k, option in enumerate(options[:-1]):
        if p(bool, f"{name}_{k}"):
            return option
    return options[-1]


def _scripted_prefix(p: SymbolicFactory, w: Writer) -> None:
    """A whole first turn, or deep inside one: states a few moves from where the contracts bite."""
    w.send("next-turn")
    w.boundary(enter=False, reason="")  # turn/start 1 and the claim of that message
    prefix = pick(p, "_prefix", PREFIXES)
    if prefix in ("claimed", "dropped"):  # rejected: accounts by its claim
        w.boundary(enter=False, reason="blocked")
        if prefix == "dropped":  # then work sent and canceled unrun
            w.send("next-turn")
            w.cancel(replace=False)
    elif prefix == "in-step":  # two calls announced, one started, none answered
        w.boundary(enter=True, reason="")  # step/start 1 and the entered message
        w.tool("announce", ("t1", "t2"))
        w.tool("call", ("t1",))
    else:  # one call announced, started and answered
        w.boundary(enter=True, reason="")
        w.tool("announce", ("t1",))
        w.tool("call", ("t1",))
        w.tool("result", ("t1",))
        w.boundary(enter=False, reason="")  # step/end
        if prefix == "stepped":  # and the turn completed
            w.boundary(enter=False, reason="completed")
        else:  # a tool continuation: step 2 open, its call started
            w.boundary(enter=True, reason="")
            w.tool("announce", ("t2",))
            w.tool("call", ("t2",))


def _move(p: SymbolicFactory, w: Writer, n: str) -> None:
    if p(bool, n + "_send"):
        w.send("next-turn" if p(bool, n + "_next_turn") else "next-step")
    elif p(bool, n + "_boundary"):
        decides = w.open_turn and not w.open_step
        enter = decides and p(bool, n + "_enter")
        reasons = ("completed", "blocked", "interrupted", "error")
        w.boundary(enter, pick(p, n + "_reason", reasons) if decides and not enter else "")
    elif p(bool, n + "_cancel"):
        w.cancel(replace=p(bool, n + "_replace"))
    elif p(bool, n + "_tool"):
        kind = pick(p, n + "_what", ("announce", "call", "result"))
        both = kind == "announce" and p(bool, n + "_both")
        w.tool(kind, ("t1", "t2") if both else (("t1",) if p(bool, n + "_t1") else ("t2",)))
    else:
        w.glitch(pick(p, n + "_glitch", GLITCH_NAMES))


def log(p: SymbolicFactory) -> Log:
    """Move by move, each move what happens between two awaits of the real loop: a send, the next
    boundary, a public remove or replace, a tool event, or a glitch (an event breaking one rule of
    the log).  Every choice is bounded: an unbounded one draws CrossHair's search into it.  Half of
    the logs start from a scripted prefix, so states after or deep inside a whole turn are a few
    moves away."""
    w = Writer(p)
    if p(bool, "_scripted"):
        _scripted_prefix(p, w)
    for i in range(MOVES):
        n = f"_m{i}"
        if not p(bool, n + "_more"):
            break
        _move(p, w, n)
    return tuple(w.events)
