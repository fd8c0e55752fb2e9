"""The legend at the foot of every picture: each kind of mark, drawn with its own style.

The legend is a table of (sample, words) rows; a sample is a small function drawing at (x, y).
"""

from __future__ import annotations

from collections.abc import Callable

from loopspec.log.kinds import USER_MESSAGE
from loopspec.render.svg_text import element, label

Sample = Callable[[float, float], str]


def _rect(css: str, width: float = 18.0, height: float = 10.0) -> Sample:
    return lambda x, y: element("rect", x=x, y=y - height + 2, width=width, height=height, rx=3.0, class_=css)


def _symbol(symbol: str, css: str) -> Sample:
    return lambda x, y: label(x + 6, y, symbol, class_=f"sym {css}")


def _diamond(css: str) -> Sample:
    def draw(x: float, y: float) -> str:
        cy = y - 3
        points = f"{x + 6:.1f},{cy - 6:.1f} {x + 12:.1f},{cy:.1f} {x + 6:.1f},{cy + 6:.1f} {x:.1f},{cy:.1f}"
        return element("polygon", points=points, class_=css)

    return draw


def _dot(symbol: str, css: str) -> Sample:
    return lambda x, y: (element("circle", cx=x + 6, cy=y - 3, r=6.0, class_=f"notice-dot {css}")
                         + label(x + 6, y, symbol, class_="notice-sym"))


def _cap(css: str) -> Sample:
    return lambda x, y: element("polygon", points=f"{x + 2:.1f},{y - 9:.1f} {x + 10:.1f},{y - 3:.1f} "
                                f"{x + 2:.1f},{y + 3:.1f}", class_=css)


def _cross(x: float, y: float) -> str:
    return (element("line", x1=x + 2, y1=y - 9, x2=x + 10, y2=y + 1, class_="cap-canceled")
            + element("line", x1=x + 2, y1=y + 1, x2=x + 10, y2=y - 9, class_="cap-canceled"))


def _transfer(x: float, y: float) -> str:
    return element("path", d=f"M{x + 2:.1f},{y + 2:.1f} L{x + 2:.1f},{y - 6:.1f} L{x + 16:.1f},{y - 10:.1f}",
                   class_="transfer")


def _crash(x: float, y: float) -> str:
    return element("line", x1=x + 8, y1=y - 12, x2=x + 8, y2=y + 4, class_="crash")


def _lost(x: float, y: float) -> str:
    return element("g", element("circle", cx=x + 6, cy=y - 3, r=6.0, class_="notice-dot n-other"),
                   class_="legend-dead")


Item = tuple[Sample, str, str]
"""A sample, its words, and the class a drawing's mark of that kind carries (shown only when used)."""

ROWS: tuple[tuple[str, tuple[Item, ...]], ...] = (
    ("turns", (
        (_rect("band-turn end-completed"), "completed", "end-completed"),
        (_rect("band-turn end-max-tokens"), "max-tokens", "end-max-tokens"),
        (_rect("band-turn end-blocked"), "blocked", "end-blocked"),
        (_rect("band-turn end-aborted"), "aborted {cause}", "end-aborted"),
        (_rect("band-turn end-error"), "error", "end-error"),
        (_rect("band-turn end-interrupted"), "interrupted (crash repair)", "end-interrupted"),
        (_rect("band-turn end-open"), "still open", "end-open"), (_rect("band-step"), "step", "band-step"),
    )),
    ("pre-step · events", (
        (_diamond("dec-enter"), "enter [ids]", "dec-enter"),
        (_diamond("dec-enter"), "enter [ids, ?]: the drawn events may not show every entry", "entries-unknown"),
        (_diamond("dec-reject"), "reject", "dec-reject"), (_diamond("dec-threw"), "listener threw", "dec-threw"),
        (_rect("ev cat-inbox", 10), "inbox splice", "cat-inbox"),
        (_rect("ev cat-lifecycle", 10), "turn/step", "cat-lifecycle"),
        (_rect("ev cat-entry", 10), USER_MESSAGE, "cat-entry"),
        (_rect("ev cat-model", 10), "model (runs: ×n)", "cat-model"), (_rect("ev cat-tool", 10), "tool", "cat-tool"),
        (_rect("ev cat-restart", 10), "end-seed", "cat-restart"), (_rect("ev cat-other", 10), "other", "cat-other"),
    )),
    ("inbox", (
        (_rect("bar-nt", 22), "next-turn message", "bar-nt"), (_rect("bar-ns", 22), "next-step message", "bar-ns"),
        (_symbol("+", "sym-insert"), "insertion", "sym-insert"), (_symbol("▲", "sym-claim"), "claim", "sym-claim"),
        (_symbol("✕", "sym-cancel"), "cancel", "sym-cancel"), (_symbol("⇄", "sym-replace"), "replace", "sym-replace"),
        (_cap("cap-claimed"), "claimed, entered", "cap-claimed"), (_transfer, "to its user/message", "transfer"),
        (_cap("cap-dropped"), "claimed, dropped", "cap-dropped"), (_cross, "discarded", "cap-canceled"),
        (_cap("cap-pending"), "pending", "cap-pending"),
    )),
    ("live", (
        (_dot("+", "n-inserted"), "inserted", "n-inserted"), (_dot("−", "n-discarded"), "discarded", "n-discarded"),
        (_dot("▲", "n-claimed"), "claimed", "n-claimed"), (_dot("●", "n-status"), "status", "n-status"),
        (_dot("!", "n-error"), "error", "n-error"), (_dot("◆", "n-prestep"), "pre-step", "n-prestep"),
        (_dot("✎", "n-note"), "note", "n-note"), (_dot("⟨", "n-call"), "call", "n-call"),
        (_dot("•", "n-other"), "other record", "n-other"),
        (_crash, "a process ended by a crash", "crash"),
        (_lost, "lost write: the crashed process's, never in the stored log", "dead"),
        (_rect("highlight", 14), "violation", "highlight"), (_rect("context", 14), "set up by", "context"),
    )),
)


def legend(x0: float, y0: float, width: float, used: frozenset[str] | None = None) -> tuple[str, float]:
    """The legend drawn from (x0, y0), items wrapping at ``width``; and the y below it.

    With ``used`` (the classes the drawing's marks carry) only the kinds of mark drawn are listed.
    """
    out = [label(x0, y0, "Legend (hover any mark for the event as JSON)", class_="legend-title")]
    right = max(width, 640.0)
    y = y0 + 20
    for title, items in ROWS:
        shown = [(sample, words) for sample, words, key in items if used is None or key in used]
        if not shown:
            continue
        out.append(label(x0, y, title, class_="legend-title"))
        x = x0 + 110
        for sample, words in shown:
            span = 30 + len(words) * 6.0
            if x + span > right:
                x, y = x0 + 110, y + 18
            out.append(sample(x, y) + label(x + 24, y, words, class_="legend"))
            x += span
        y += 20
    return element("g", "".join(out), class_="legend-box"), y
