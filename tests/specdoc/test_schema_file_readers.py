"""One truth for shapes, continued: the schemas of the files a conformance user hands the tools (issue 9).

As in ``test_schema_decoders.py``: instances generated from each schema are accepted by the
reader, and near-misses (one place changed) get the same verdict from the reader as from the
schema.  The readers:

* ``vector.schema.json`` — :func:`loopspec.vectors.case_reading.read_case`, which ``loopspec
  vectors run`` applies to every case file before running it;
* ``live-record.schema.json`` — :func:`loopspec.check.live_shape.live_record_problem`, the form
  ``loopspec check --live`` requires of each record before the live checker reasons about it;
  and :func:`loopspec.reproduce.reading.read_record`, ``loopspec reproduce``'s reader, compared
  on the records it can replay: a call it knows (here ``snapshot``: the call table judges the
  arguments of the others, tests/cli/test_cli_reproduce.py) and errors written as text, as a
  recording writes them (decisions.md G4);
* ``notification-*.schema.json`` — the live checker's form of a ``live`` record carrying the
  notification (the dispatcher's ``agent`` key is not recorded; ``nextSeq`` is added); the live
  checker also accepts an ``agent/error`` whose ``error`` is the text a recording writes instead
  of the notification's ``{message, code}`` (G4).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from loopspec.check import CheckOptions, check_file
from loopspec.check.live_shape import live_record_problem
from loopspec.data.messages import InboxTarget, UserMessage
from loopspec.loop.commands import Send
from loopspec.reproduce.reading import Unusable, read_record
from loopspec.vectors.case import CaseSpec, build_case
from loopspec.vectors.case_reading import read_case
from loopspec.vectors.json_reading import CodecError
from loopspec.vectors.runner import SuiteUnreadable, load_cases
from specdoc.fixtures import BUDGET
from specdoc.schema_instances import Schema, accepts, flatten, instances, near_misses, reads
from specdoc.schema_support import notification_schema_names

VECTOR = flatten("vector.schema.json")
LIVE_RECORD = flatten("live-record.schema.json")
NOTIFICATIONS = {ntype: flatten(name) for ntype, name in sorted(notification_schema_names().items())}
# What reproduce replays on top of the form: op-begin/op-end of a known call, errors as text.
REPLAYABLE: Schema = {"allOf": [
    LIVE_RECORD,
    {"if": {"required": ["kind"], "properties": {"kind": {"enum": ["op-begin", "op-end"]}}},
     "then": {"properties": {"op": {"const": "snapshot"}, "args": {"const": {}}}}},
    {"if": {"required": ["kind", "type"], "properties": {"kind": {"const": "live"}, "type": {"const": "agent/error"}}},
     "then": {"properties": {"error": {"type": "string"}}}},
]}


def _case_reader_accepts(raw: object) -> bool:
    return reads(read_case, CodecError, raw)


@pytest.mark.rule("LOG-1")
@BUDGET
@given(st.data())
def test_vector_schema_and_case_reader_agree(data: st.DataObject) -> None:
    """spec/adapter-protocol.md, Vector suites: the case schema and the runner's reader accept the same cases."""
    valid = data.draw(instances(VECTOR), "valid")
    read_case(valid)
    miss = data.draw(near_misses(valid), "near miss")
    assert _case_reader_accepts(miss) == accepts(VECTOR, miss)


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize(("where", "value", "taken"), [
    (("final", "lastTurn"), 2**53 - 1, True), (("final", "lastTurn"), 2**53, False),
    (("steps", 0, "expect", "notifications", 0, "nextSeq"), 2**53, False),
])
def test_numbers_end_at_the_javascript_safe_limit_for_schema_and_reader(
        where: tuple[Any, ...], value: int, taken: bool) -> None:
    """Found by Hypothesis: the schema let ``lastTurn`` (and ``nextSeq``) pass 2**53 - 1, the reader did not."""
    followup = Send(UserMessage.create("a"), InboxTarget.NEXT_TURN, True)
    case = build_case(CaseSpec("schema/limits/safe-integers", "regression", (), "one followup", (followup,)))
    holder: Any = case
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    assert _case_reader_accepts(case) is taken
    assert accepts(VECTOR, case) is taken


@pytest.mark.rule("LOG-1", "NOTIFY-1", "NOTIFY-2", "CLAIM-4", "STATUS-1")
@BUDGET
@given(st.data())
def test_live_record_schema_and_live_checker_agree(data: st.DataObject) -> None:
    valid = data.draw(instances(LIVE_RECORD), "valid")
    assert live_record_problem(valid) is None
    miss = data.draw(near_misses(valid), "near miss")
    problem = live_record_problem(miss)
    assert (problem is None) == accepts(LIVE_RECORD, miss), problem


def _replayable(record: Any) -> Any:
    """``record`` made one reproduce can replay (see REPLAYABLE), keeping it valid."""
    out = copy.deepcopy(record)
    if out["kind"] in ("op-begin", "op-end"):
        out.update(op="snapshot", args={})
    if out["kind"] == "live" and out["type"] == "agent/error" and isinstance(out["error"], dict):
        out["error"] = out["error"]["message"]
    return out


def _reproduce_reads(raw: object) -> bool:
    return reads(lambda r: read_record(r, Path("x.live.jsonl"), 1), Unusable, raw)


@BUDGET
@given(st.data())
def test_live_record_schema_and_reproduce_reader_agree(data: st.DataObject) -> None:
    valid = _replayable(data.draw(instances(LIVE_RECORD), "valid"))
    assert accepts(REPLAYABLE, valid)
    assert _reproduce_reads(valid)
    miss = data.draw(near_misses(valid), "near miss")
    assert _reproduce_reads(miss) == accepts(REPLAYABLE, miss)


def _as_live(note: object) -> object:
    """A notification as a live stream records it: ``kind`` and ``nextSeq`` added, ``agent`` not kept."""
    if not isinstance(note, dict):
        return note
    return {"kind": "live", "nextSeq": 0, **{k: v for k, v in note.items() if k != "agent"}}


def _notification_accepted(schema: Schema, note: object) -> bool:
    """The schema's verdict, widened by the recordings' agent/error text (decisions.md G4)."""
    if accepts(schema, note):
        return True
    if not (isinstance(note, dict) and note.get("type") == "agent/error" and isinstance(note.get("error"), str)):
        return False
    return accepts(schema, {**note, "error": {"message": note["error"]}})


@pytest.mark.rule("NOTIFY-1", "CLAIM-4", "STATUS-1", "END-2")
@pytest.mark.parametrize("ntype", sorted(NOTIFICATIONS))
@BUDGET
@given(data=st.data())
def test_notification_schema_and_live_checker_agree(ntype: str, data: st.DataObject) -> None:
    schema = NOTIFICATIONS[ntype]
    valid = data.draw(instances(schema), "valid")
    assert live_record_problem(_as_live(valid)) is None
    miss = data.draw(near_misses(valid), "near miss")
    problem = live_record_problem(_as_live(miss))
    assert (problem is None) == _notification_accepted(schema, miss), problem


@pytest.mark.parametrize("name", ["vector.schema.json", "live-record.schema.json",
                                  *sorted(notification_schema_names().values())])
def test_near_misses_reach_both_verdicts(name: str) -> None:
    """Not vacuous: near-misses include values the schema refuses and values it still accepts."""
    schema = flatten(name)
    pairs = instances(schema).flatmap(near_misses)
    budget = settings(max_examples=2000, database=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.generate])
    assert not accepts(schema, find(pairs, lambda value: not accepts(schema, value), settings=budget))
    assert accepts(schema, find(pairs, lambda value: accepts(schema, value), settings=budget))


# ---- a malformed file is reported with its place, not run or half-read -----------------------

def _a_case() -> dict[str, Any]:
    return {"format": "loopspec-vector/2", "id": "area/handler/case", "kind": "rule", "rules": ["SPLICE-3"],
            "rows": [], "negative": False, "profiles": ["inbox"], "description": "", "final": {"inbox": {
                "next-turn": [], "next-step": []}},
            "steps": [{"command": {"op": "clear"}, "expect": {"ok": True, "events": [], "notifications": [],
                                                               "value": None}}]}


def test_a_valid_case_file_loads(tmp_path: Path) -> None:
    case = tmp_path / "case.json"
    case.write_text(json.dumps(_a_case()), encoding="utf-8")
    assert load_cases(case) == [("area/handler/case", _a_case(), "")]


@pytest.mark.parametrize(("path", "value", "names"), [
    (("steps", 0, "expect", "events"), [{"type": "x", "seq": -1, "time": 0, "data": None}],
     "$.steps[0].expect.events[0]: 'seq'"),
    (("steps", 0, "expect", "ok"), "yes", "$.steps[0].expect: not an observation"),
    (("format",), "loopspec-vector/1", "$.format: expected one of ['loopspec-vector/2']"),
    (("final", "inbox", "next-turn"), [{"id": "m"}], "$.final: not a state"),
    (("steps", 0, "command"), {"op": "clear", "target": "next-turn"}, "$.steps[0].command: unknown key(s)"),
])
def test_a_malformed_case_file_is_refused_naming_file_and_field(
        tmp_path: Path, path: tuple[Any, ...], value: object, names: str) -> None:
    case = _a_case()
    node: Any = case
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    file = tmp_path / "case.json"
    file.write_text(json.dumps(case), encoding="utf-8")
    with pytest.raises(SuiteUnreadable) as raised:
        load_cases(file)
    assert str(raised.value).startswith(f"{file}: not a vector case: ")
    assert names in str(raised.value)


@pytest.mark.rule("LOG-1")
@pytest.mark.parametrize(("record", "names"), [
    ({"kind": "checkpoint"}, "unknown record kind 'checkpoint'"),
    ({"kind": "live", "type": "agent/status", "status": "idle"}, "'nextSeq' is missing"),
    ({"kind": "live", "type": "agent/pre-step", "nextSeq": 0, "phase": "invoked", "turn": 1, "step": 1,
      "messageIds": [], "decision": {"kind": "reject"}}, "unknown field(s) ['decision']"),
    ({"kind": "op-end", "op": "followup", "args": {}, "nextSeqBefore": 0, "nextSeqAfter": 0},
     "needs exactly one of ['result', 'threw']"),
])
def test_check_live_reports_a_malformed_record_with_its_line(
        tmp_path: Path, record: dict[str, object], names: str) -> None:
    """Before, ``check --live`` skipped records of an unknown kind and read others half."""
    log = tmp_path / "x.events.jsonl"
    log.write_text("", encoding="utf-8")
    live = tmp_path / "x.live.jsonl"
    live.write_text(json.dumps({"kind": "note", "text": "start"}) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    result = check_file(log, CheckOptions(), live=live)
    assert [(v.rule, v.line) for v in result.violations] == [("LOG-1", 2)]
    assert names in result.violations[0].message
