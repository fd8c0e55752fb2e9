"""The live notifications, each checked for what the durable records before it owe (NOTIFY-1 … NOTIFY-4,
CLAIM-4, STATUS-1) or noted for a later record (END-2): a registry keyed by the notification type.

:class:`loopspec.check.live.LiveChecker` queues what each durable record owes (its ``queue``) and
calls these (they see it as a :class:`LiveStream`, so this module does not import it);
``agent/pre-step`` is an observation, owed nothing, so it has no entry.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Protocol

from loopspec.check.live_shape import LIVE_TYPES
from loopspec.check.live_wording import differing_fields, message_id
from loopspec.log.kinds import AGENT_ERROR, AGENT_STATUS, CLAIMED, DISCARDED, INSERTED


class LiveStream(Protocol):
    """What the checks read and keep of the stream walk (:class:`loopspec.check.live.LiveChecker`)."""

    queue: deque[tuple[str, object, int | None]]  # the notifications owed: (type, message, turn)
    replacing: bool  # the queue holds a replacement's discarded then inserted (NOTIFY-3)
    claim_open: bool  # a claim's records are not all written yet (CLAIM-4)
    status: str  # the last agent/status (STATUS-1)
    errors: set[tuple[object, object]]  # the (turn, step) of each agent/error of the turn (END-2)
    chaining: bool  # a turn end that chains, with no turn/start and no cancel since (CHAIN-1)

    def violate(self, rule: str, message: str, because: str = "") -> None: ...

# NOTIFY-1: the fields an inbox notification may carry, as the form table gives them.
NOTE_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {t: frozenset(LIVE_TYPES[t].required) for t in (INSERTED, DISCARDED, CLAIMED)})


def status_changed(live: LiveStream, rec: dict[str, object]) -> None:
    status = rec.get("status")
    if status not in ("idle", "running") or status == live.status:
        live.violate("STATUS-1", f"agent/status {status!r} after {live.status!r}")
    elif status == "idle" and live.chaining:
        live.violate("CHAIN-1", "agent/status idle after a turn end that chains: only a cancel before the next "
                     "turn/start stops that turn, and none was made")
    live.status = str(status)


def agent_error(live: LiveStream, rec: dict[str, object]) -> None:
    if type(rec.get("turn")) is int and type(rec.get("step")) is int:
        live.errors.add((rec.get("turn"), rec.get("step")))  # integer tokens only (decisions.md G3)


def inbox_notification(live: LiveStream, rec: dict[str, object]) -> None:
    ntype = str(rec["type"])
    extra = set(rec) - NOTE_FIELDS[ntype]
    if extra:
        live.violate("NOTIFY-1", f"{ntype} carries extra field(s) {sorted(extra)}")
    if not live.queue:
        early = ntype == CLAIMED and live.claim_open
        live.violate("CLAIM-4" if ntype == CLAIMED else "NOTIFY-2",
                     f"{ntype} {message_id(rec.get('message'))} " + ("before the claim's last record" if early
                                                              else "that no durable record explains"))
        return
    etype, message, turn = live.queue.popleft()
    claimed_turn = rec.get("turn")  # an integer token: 1.0 is not the turn 1 (decisions.md G3)
    ok = ntype == etype and rec.get("message") == message and (
        etype != CLAIMED or (claimed_turn == turn and type(claimed_turn) is int))
    if not ok:
        rule = "CLAIM-4" if CLAIMED in (etype, ntype) else "NOTIFY-3" if live.replacing else "NOTIFY-2"
        want = f"{etype} {message_id(message)}" + (f" turn {turn}" if etype == CLAIMED else "")
        differing = differing_fields(etype, message, turn, rec)
        live.violate(rule, f"{ntype} {message_id(rec.get('message'))}, expected {want}{differing}")


Handler = Callable[[LiveStream, dict[str, object]], None]
NOTIFICATION_HANDLERS: Mapping[str, Handler] = MappingProxyType({
    INSERTED: inbox_notification, DISCARDED: inbox_notification, CLAIMED: inbox_notification,
    AGENT_STATUS: status_changed, AGENT_ERROR: agent_error,
})
"""What each live notification is checked for."""
