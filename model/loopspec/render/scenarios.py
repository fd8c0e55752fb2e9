"""The scenario pictures of the docs: each scenario's example log drawn whole, beside the rules it shows.

The example logs of the scenarios are those ``examples/logs/manifest.json`` names with a
``scenario``.  :data:`SCENARIOS` says in a few words what each one shows and which rules are at
work in it (those the picture makes visible: the log's records, not the calls behind them).
``loopspec docs --write`` renders ``docs/scenarios/NAME.svg`` (:func:`picture`) and
``docs/scenarios.md`` (:mod:`loopspec.specdoc.scenarios_page`); each spec chapter ends with a
*Scenarios* section showing the pictures of its rules (:func:`chapter_section`, written by the
same command and checked by ``loopspec docs --check``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import attrs

from loopspec.render.build import build
from loopspec.render.svg import render_svg
from loopspec.render.window import WindowSpec
from loopspec.rules.catalogue import Spec, sort_key

MANIFEST = Path("examples") / "logs" / "manifest.json"
PICTURES = Path("docs") / "scenarios"
SECTION = "## Scenarios"
_SECTION_LINE = re.compile(r"^## Scenarios$", re.MULTILINE)
SCENARIO_ID = re.compile(r"S[0-9]+")

SCENARIOS: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType({
    "S1": ("One follow-up: a turn with one step", ("INPUT-2", "TURN-4", "CLAIM-1", "CLAIM-2", "DECIDE-8", "RESULT-1")),
    "S2": ("Two follow-ups at once chain into two turns", ("CHAIN-1", "CLAIM-1", "DECIDE-4")),
    "S3": ("A rejected first prompt; the one queued behind it waits for a wake",
           ("DECIDE-5", "CLAIM-5", "CHAIN-2", "TURN-5", "DECIDE-4")),
    "S4": ("Nothing entered at the first boundary: a completed turn without a step", ("DECIDE-6", "STEP-4")),
    "S5": ("A pre-step listener throws: an error turn, the claim stays", ("DECIDE-7", "CLAIM-5", "CHAIN-2")),
    "S6": ("Cancel right after two waking sends", ("CANCEL-1", "CANCEL-3", "SPLICE-6")),
    "S7": ("Cancel from the status listener, before any turn starts", ("CANCEL-1", "SPLICE-6")),
    "S8": ("A wake whose message was removed before the claim: an empty turn", ("DECIDE-6", "SPLICE-7", "TURN-5")),
    "S9": ("Context injected while idle, then a follow-up: one claim takes both lists",
           ("CLAIM-1", "CLAIM-2", "DECIDE-8")),
    "S10": ("A steer while idle, a second while running", ("CLAIM-1", "CLAIM-6", "RESULT-4")),
    "S11": ("Tool steps: a steer taken at the next boundary, or a continuation entering nothing",
            ("RESULT-2", "CLAIM-1", "DECIDE-6")),
    "S12": ("A turn-stopping listener steers a continuation", ("RESULT-4", "CLAIM-1")),
    "S13": ("A continuation rewritten to nothing ends the turn", ("DECIDE-6", "RESULT-4")),
    "S14": ("A rejection at a later boundary", ("DECIDE-5", "END-1")),
    "S15": ("A keepInbox cancel with a latched wake", ("CANCEL-1", "CANCEL-3", "CANCEL-4")),
    "S16": ("A keepInbox cancel parks the queued work until a wake", ("CANCEL-1", "CANCEL-3", "CHAIN-2", "TURN-5")),
    "S17": ("Cancel mid-step drops the queued tail", ("CANCEL-1", "CANCEL-3", "STEP-2", "WORK-1")),
    "S18": ("Cancel from a step/start observer, in two versions", ("CANCEL-3", "VARIANT-1")),
    "S19": ("Inbox edits: remove, replace, clear", ("SPLICE-1", "SPLICE-6", "SPLICE-7", "SPLICE-8", "SPLICE-9",
                                                   "NORM-4")),
    "S22": ("A request error retried inside its step", ("RESULT-3",)),
    "S23": ("Crash recovery: the open turn closed interrupted, the inbox kept",
            ("REPAIR-1", "REPAIR-2", "REPAIR-3", "REPAIR-4", "CLAIM-5")),
    "S24": ("Foreign events pass through", ("LOG-6",)),
})


@attrs.frozen
class Scenario:
    """One example log of a scenario and where its picture goes."""

    id: str
    log: str
    title: str
    rules: tuple[str, ...]

    @property
    def name(self) -> str:
        return Path(self.log).name.removesuffix(".events.jsonl")

    @property
    def picture(self) -> str:
        return (PICTURES / f"{self.name}.svg").as_posix()


def scenarios(root: Path) -> tuple[Scenario, ...]:
    """The manifest's scenario logs, in the manifest's order (a scenario may have several logs)."""
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    out = []
    for entry in manifest["logs"]:
        sid = entry.get("scenario")
        if not (isinstance(sid, str) and SCENARIO_ID.fullmatch(sid)):
            continue  # the manifest also describes other examples in words
        title, rules = SCENARIOS.get(sid, (f"scenario {sid}", ()))  # the docs test wants every one described
        out.append(Scenario(sid, (MANIFEST.parent / entry["file"]).as_posix(), title, rules))
    return tuple(out)


def picture(root: Path, scenario: Scenario) -> str:
    """The scenario's whole log drawn as a standalone SVG; nothing machine-specific in it."""
    timeline = build(root / scenario.log, WindowSpec(first=0), title=f"{scenario.id} — {scenario.title}")
    return render_svg(timeline, f"the whole log, {scenario.log}")


def chapter_section(root: Path, spec: Spec, chapter: str) -> str | None:
    """The final section of a spec chapter (``spec/NN-name.md``): the pictures of its rules, shown inline.

    Each scenario whose rules include some of the chapter's gets a line naming it and those rules,
    then its picture as a Markdown image (a path relative to ``spec/``, which GitHub and the docs
    both resolve).  None when no scenario shows a rule of the chapter.
    """
    ids = {rule.id for rule in spec.rules if Path(rule.file).name == chapter}
    every = scenarios(root)
    shown_here = []
    for scenario in every:
        shown = sorted(ids.intersection(scenario.rules), key=sort_key)
        if not shown:
            continue
        label = scenario.id
        if sum(other.id == scenario.id for other in every) > 1:  # name the variant: S18 (…-v0.1.5)
            label += f" ({scenario.name.split('-', 1)[1]})"
        shown_here.append(f"**{label} — {scenario.title}** ({', '.join(shown)}; log `{scenario.log}`)\n\n"
                          f"![{label} — {scenario.title}](../{scenario.picture})\n")
    if not shown_here:
        return None
    return (f"{SECTION}\n\nThese rules at work in the scenarios' example logs, drawn by `loopspec render`: the "
            "log's seq runs left to right, the two inbox lists are lanes, each message a bar from its insertion "
            "to its fate (all pictures: [docs/scenarios.md](../docs/scenarios.md)).\n\n"
            + "\n".join(shown_here))


def with_chapter_section(text: str, section: str | None) -> str:
    """A chapter's text with its final *Scenarios* section (everything from the heading on) replaced."""
    found = _SECTION_LINE.search(text)
    head = text[: found.start()] if found is not None else text
    head = head.rstrip("\n") + "\n"
    return head if section is None else f"{head}\n{section}"
