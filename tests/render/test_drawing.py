"""The drawing read back from its SVG: every mark has a tooltip, every bar ends at its fate's column.

An ownership transfer (CLAIM-5) is drawn as the claimed bar leaving its lane: the bar ends at the
claim's column and a path climbs from there to the ``user/message`` that entered it.  Live
notifications sit at the place of the interleaving their ``nextSeq`` names (NOTIFY-4, CLAIM-4).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from check.fixtures import SLOW, log_records, random_model_run
from check.log_mutations import dumps
from loopspec.render.build import build
from loopspec.render.svg import render_svg
from loopspec.render.window import WindowSpec
from render.drawing import EXAMPLE_LOGS, SVG, Drawing, drawing, live_of, recordings, whole

MARKS = ("event", "splice", "bar", "decision", "notice", "band", "call-span", "violation", "context-mark", "cut-mark")


def assert_drawn_faithfully(svg: str) -> Drawing:
    d = Drawing(svg)
    for group in d.groups:
        kinds = set((group.get("class") or "").split())
        if kinds & set(MARKS):
            assert Drawing.tooltip(group), f"{kinds} has no tooltip"
    xs = d.event_x()
    after = max(float(g.attrib["data-x2"]) for g in d.of("bar")) if d.of("bar") else 0.0
    for bar in d.of("bar"):
        inserted, left = int(bar.attrib["data-inserted"]), bar.get("data-left")
        if inserted in xs:
            assert float(bar.attrib["data-x1"]) == pytest.approx(xs[inserted])
        fate = bar.attrib["class"].split()[1]
        if left is not None and int(left) in xs:
            assert float(bar.attrib["data-x2"]) == pytest.approx(xs[int(left)]), bar.attrib
        elif fate == "fate-pending":
            assert float(bar.attrib["data-x2"]) >= max(xs.values(), default=0.0) or float(bar.attrib["data-x2"]) in (
                xs.values()), "a pending bar runs to the right edge (or to where interpretation stops)"
        assert float(bar.attrib["data-x2"]) <= after
        paths = [p for p in bar.iter(f"{SVG}path") if p.get("class") == "transfer"]
        assert bool(paths) == (fate == "fate-claimed" and bar.get("data-entered") is not None)
        if paths:
            assert paths[0].attrib["d"].endswith(f"{xs[int(bar.attrib['data-entered'])]:.1f},"
                                                 + paths[0].attrib["d"].rsplit(",", 1)[1])
    return d


@pytest.mark.rule("WORK-2", "CLAIM-5")
@pytest.mark.parametrize("log", EXAMPLE_LOGS + recordings(), ids=lambda p: p.name)
def test_every_mark_is_drawn_with_its_tooltip_and_bars_end_at_their_fates(log: Path) -> None:
    timeline = whole(log, live_of(log))
    d = assert_drawn_faithfully(render_svg(timeline))
    assert len(d.of("event")) == len(timeline.events)
    assert sorted(int(g.attrib["data-seq"]) for g in d.of("splice")) == [s.seq for s in timeline.splices]
    assert len(d.of("bar")) == len(timeline.bars)
    assert len(d.of("decision")) == len(timeline.decisions)
    assert len(d.of("notice")) == len(timeline.notices)
    for group in d.of("event"):
        tip = Drawing.tooltip(group) or ""
        if group.attrib["data-first"] == group.attrib["data-last"]:
            line = log.read_text(encoding="utf-8", errors="replace").splitlines()[int(group.attrib["data-first"])]
            assert line.strip()[:200] in tip, "the tooltip holds the event as JSON"


@pytest.mark.rule("NOTIFY-4", "CLAIM-4")
@SLOW
@given(data=st.data())
def test_the_models_notifications_sit_where_it_emitted_them(tmp_path: Path, data: st.DataObject) -> None:
    agent, live = random_model_run(data)
    log = tmp_path / "m.events.jsonl"
    log.write_bytes(dumps(log_records(agent)))
    stream = tmp_path / "m.live.jsonl"
    stream.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    timeline = build(log, WindowSpec(first=0), live=stream)
    bars = {(b.id, b.inserted): b for b in timeline.bars}
    left = {(b.id, b.left): b for b in timeline.bars if b.left is not None}
    for notice in timeline.notices:
        if notice.kind == "op":  # a cancel, drawn from its op-begin to its op-end
            assert notice.end_seq is not None
            continue
        record = json.loads(notice.json)
        message = record.get("message", {}).get("id")
        if notice.type == "agent/inbox/inserted":
            assert (message, notice.next_seq - 1) in bars
        elif notice.type == "agent/inbox/discarded":
            assert left[(message, notice.next_seq - 1)].fate == "canceled"
        elif notice.type == "agent/inbox/claimed":
            claimed = [b for b in timeline.bars if b.id == message and b.fate == "claimed"
                       and b.left is not None and b.left < notice.next_seq]
            assert claimed
            assert claimed[-1].turn == record["turn"]
    assert_drawn_faithfully(render_svg(timeline))
    assert len(timeline.notices) == sum(1 for r in live if r["kind"] in ("live", "note", "op-end"))


def test_a_crashed_process_records_are_drawn_at_the_crash_and_marked(tmp_path: Path) -> None:
    log = tmp_path / "c.events.jsonl"
    insert = {"target": "next-turn", "start": 0, "inserted": [
        {"id": "A", "role": "user", "content": [{"type": "text", "text": "A"}], "source": {"kind": "user"}}]}
    log.write_text(json.dumps({"type": "agent/inbox/spliced", "seq": 0, "time": 1, "data": insert}) + "\n")
    records = [
        {"kind": "op-begin", "op": "followup", "args": {"id": "A"}, "nextSeq": 0},
        {"kind": "durable", "seq": 0, "type": "agent/inbox/spliced"},
        {"kind": "live", "type": "agent/inbox/inserted", "nextSeq": 1, "message": {"id": "A"}},
        {"kind": "op-end", "op": "followup", "args": {"id": "A"}, "nextSeqBefore": 0, "nextSeqAfter": 1,
         "result": None},
        {"kind": "note", "text": "killed", "crash": True, "nextSeq": 1, "eventCount": 1},
        {"kind": "durable", "seq": 1, "type": "agent/inbox/spliced"},
        {"kind": "live", "type": "agent/inbox/discarded", "nextSeq": 2, "message": {"id": "A"}},
        {"kind": "note", "text": "resumed", "nextSeq": 1},
    ]
    live = tmp_path / "c.live.jsonl"
    live.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    timeline = build(log, WindowSpec(first=0), live=live)
    shown = [(n.kind, n.type, n.next_seq, n.dead) for n in timeline.notices]
    assert shown == [("op", "followup", 0, False), ("live", "agent/inbox/inserted", 1, False),
                     ("note", "note", 1, False), ("live", "agent/inbox/spliced", 1, True),
                     ("live", "agent/inbox/discarded", 1, True), ("note", "note", 1, False)]
    assert timeline.notices[0].end_seq == 1
    d = drawing(timeline)
    assert len(d.of("dead")) == 2
    assert any(line.get("class") == "crash" for line in d.root.iter(f"{SVG}line"))
    assert timeline.bars[0].fate == "pending"  # the lost discard never reached the stored log
