"""One truth for shapes: the JSON Schemas of spec/schemas and the JSON decoders agree (issue 9).

For every schema with a decoder, instances generated from the schema are accepted by the decoder,
and near-misses (one place changed: another type, a missing key, an unknown key, an out-of-range
number) get the same verdict from the decoder as from the schema.  The decoders:

* ``envelope.schema.json`` — :func:`loopspec.log.events.check_envelope` (the model's reader) and
  :func:`loopspec.check.machine.envelope_problem` (the checker's);
* ``event-*.schema.json`` — the log checker's shape rules for the event's type (LOG-1, LOG-7,
  LOG-8, END-1, VARIANT-2, VARIANT-3, and for ``agent/inbox/spliced`` FOLD-1, FOLD-2, DATA-2,
  SPLICE-2, SPLICE-4, SPLICE-6, CLAIM-2), judged in a log context where the record's coordinates
  fit; for ``agent/inbox/spliced`` also :meth:`loopspec.log.events.InboxSpliced.from_data`, the
  fold's reader, which must accept every valid record;
* ``user-message.schema.json`` — :meth:`loopspec.data.messages.UserMessage.from_json` and the
  one message test :func:`loopspec.data.messages.message_problem`;
* ``command.schema.json`` — :func:`loopspec.vectors.codec.decode_command`.

The files a conformance user hands the tools — vector cases, live records, and the notifications
inside them — are compared with their readers in ``test_schema_file_readers.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from loopspec.check.machine import LogChecker, envelope_problem
from loopspec.check.state import StopCheck
from loopspec.check.verdict import CheckOptions
from loopspec.data.errors import InvalidEvent
from loopspec.data.json_value import freeze
from loopspec.data.messages import UserMessage
from loopspec.log.events import InboxSpliced, check_envelope
from loopspec.vectors.codec import CodecError, decode_command
from specdoc.fixtures import BUDGET
from specdoc.schema_instances import Schema, accepts, flatten, instances, merge, near_misses, reads
from specdoc.schema_support import event_schema_names

SPLICED = "agent/inbox/spliced"
ENVELOPE = flatten("envelope.schema.json")
EVENT_SCHEMAS = {etype: flatten(name) for etype, name in sorted(event_schema_names().items())}
# The rules of each event type's shape: what its schema says.  The checker's other rules depend
# on the log around the record (turn numbering, phases, where claims may sit) and are not compared.
SHAPE_RULES = {
    "LOG-1", "LOG-7", "LOG-8", "END-1", "VARIANT-2", "VARIANT-3",
    "FOLD-1", "FOLD-2", "DATA-2", "SPLICE-2", "SPLICE-4", "SPLICE-6", "CLAIM-2",
}
# Coordinates small enough for the context below to make them fit (FOLD-2 depends on the lists).
SMALL_SPLICE: Schema = {
    "properties": {"data": {"properties": {"start": {"maximum": 3}, "removedCount": {"maximum": 3}}}}
}


def _schema_for_event(etype: str) -> Schema:
    schema = EVENT_SCHEMAS[etype]
    narrowed = merge(schema, SMALL_SPLICE) if etype == SPLICED else schema
    assert isinstance(narrowed, dict)
    return narrowed


def schema_accepts_event(event: object) -> bool:
    """The envelope schema, and the schema of the event's type when the spec has one (LOG-6)."""
    if not accepts(ENVELOPE, event):
        return False
    assert isinstance(event, dict)
    schema = EVENT_SCHEMAS.get(event["type"])
    return schema is None or accepts(schema, event)


# ---- the checker's verdict on one event, in a context that fits it ----------------------------

def _message(mid: str) -> dict[str, object]:
    return {"id": mid, "role": "user", "content": [], "source": {"kind": "user"}}


def _fill(target: str, count: int, seq: int) -> dict[str, object]:
    fillers = [_message(f"filler-{target}-{i}") for i in range(count)]
    return {"type": SPLICED, "seq": seq, "time": 0, "data": {"target": target, "start": 0, "inserted": fillers}}


def _small(value: object) -> int:
    return value if type(value) is int and 0 <= value <= 8 else 0


def context_for(event: object) -> list[dict[str, object]]:
    """Events before ``event`` that make its inbox coordinates fit and, for a claim, open a turn
    whose first boundary is due, so that only its own shape can make the checker object."""
    data = event.get("data") if isinstance(event, dict) else None
    if not (isinstance(event, dict) and event.get("type") == SPLICED and isinstance(data, dict)):
        return []
    target = data.get("target") if data.get("target") in ("next-turn", "next-step") else "next-turn"
    length = _small(data.get("start")) + _small(data.get("removedCount"))
    prelude = [_fill(str(target), length, 0)] if length else []
    claim = "removedCount" in data and "outcome" not in data and data.get("inserted") == []
    if claim:
        # A waking send, then turn/start: the claim is due at the turn's first boundary.
        wake = {"target": "next-turn", "start": length if target == "next-turn" else 0, "inserted": [_message("wake")]}
        prelude.append({"type": SPLICED, "seq": len(prelude), "time": 0, "data": wake})
        prelude.append({"type": "turn/start", "seq": len(prelude), "time": 0, "data": {"turn": 1}})
    return prelude


def checker_shape_rules(event: object) -> set[str]:
    """The shape rules the log checker says ``event`` breaks, after :func:`context_for`."""
    checker = LogChecker("schema-instance", CheckOptions(all=True, max_violations=1000))
    prelude = context_for(event)
    try:
        for line, obj in enumerate(prelude, start=1):
            checker.feed_event(obj, line)
        assert not checker.violations, f"the context itself is refused: {checker.violations}"
        checker.feed_event(event, len(prelude) + 1)
    except StopCheck:  # pragma: no cover - all=True never stops below max_violations
        pass
    return {v.rule for v in checker.violations if v.line == len(prelude) + 1} & SHAPE_RULES


# ---- the tests --------------------------------------------------------------------------------

def _log_reader_accepts(raw: object) -> bool:
    return reads(check_envelope, InvalidEvent, raw)


@pytest.mark.rule("LOG-1")
@BUDGET
@given(st.data())
def test_envelope_schema_and_both_envelope_readers_agree(data: st.DataObject) -> None:
    valid = data.draw(instances(ENVELOPE), "valid")
    assert _log_reader_accepts(valid)
    assert envelope_problem(valid) is None
    miss = data.draw(near_misses(valid), "near miss")
    expected = accepts(ENVELOPE, miss)
    assert _log_reader_accepts(miss) == expected
    assert (envelope_problem(miss) is None) == expected


@pytest.mark.rule("LOG-7", "LOG-8", "END-1", "VARIANT-2", "VARIANT-3", "SPLICE-2", "SPLICE-4", "SPLICE-6", "CLAIM-2",
                  "FOLD-1", "FOLD-2", "DATA-2")
@pytest.mark.parametrize("etype", sorted(EVENT_SCHEMAS))
@BUDGET
@given(data=st.data())
def test_event_schema_and_checker_agree(etype: str, data: st.DataObject) -> None:
    valid = data.draw(instances(_schema_for_event(etype)), "valid")
    assert checker_shape_rules(valid) == set()
    miss = data.draw(near_misses(valid), "near miss")
    refused = checker_shape_rules(miss)
    assert (not refused) == schema_accepts_event(miss), f"checker refuses with {sorted(refused)}"


@pytest.mark.rule("FOLD-1", "FOLD-2", "DATA-2")
@BUDGET
@given(instances(EVENT_SCHEMAS[SPLICED]))
def test_fold_reads_every_valid_splice_record(event: Any) -> None:
    """The model's fold reads every record the schema allows (its own refusals are FOLD-1/FOLD-2/DATA-2
    only, a subset of the schema's: positional rules are the fold's, writer-shape rules the checker's)."""
    InboxSpliced.from_data(freeze(event["data"]), event["seq"])


USER_MESSAGE = flatten("user-message.schema.json")


def _model_reads_message(raw: object) -> bool:
    return reads(UserMessage.from_json, ValueError, raw)


@pytest.mark.rule("DATA-1", "DATA-2")
@BUDGET
@given(st.data())
def test_user_message_schema_and_both_message_readers_agree(data: st.DataObject) -> None:
    from loopspec.data.messages import message_problem

    valid = data.draw(instances(USER_MESSAGE), "valid")
    assert _model_reads_message(valid)
    assert message_problem(valid) is None
    miss = data.draw(near_misses(valid), "near miss")
    expected = accepts(USER_MESSAGE, miss)
    assert _model_reads_message(miss) == expected
    assert (message_problem(miss) is None) == expected


COMMAND = flatten("command.schema.json")


def _codec_reads(raw: object) -> bool:
    return reads(decode_command, CodecError, raw)


@BUDGET
@given(st.data())
def test_command_schema_and_codec_agree(data: st.DataObject) -> None:
    """spec/command-language.md: the command schema and decode_command accept the same commands."""
    valid = data.draw(instances(COMMAND), "valid")
    assert _codec_reads(valid)
    miss = data.draw(near_misses(valid), "near miss")
    assert _codec_reads(miss) == accepts(COMMAND, miss)


@pytest.mark.parametrize("name", ["envelope.schema.json", "user-message.schema.json", "command.schema.json"])
def test_near_misses_reach_both_verdicts(name: str) -> None:
    """The comparisons above are not vacuous: near-misses include values the schema refuses and
    values it still accepts (a removed optional key), so a decoder that accepts everything, or
    refuses everything off the generated path, fails them."""
    from hypothesis import find

    schema = flatten(name)
    pairs = instances(schema).flatmap(near_misses)
    # Generation only: the first value found is the proof, shrinking it would only cost time.
    budget = settings(max_examples=2000, database=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.generate])
    assert not accepts(schema, find(pairs, lambda value: not accepts(schema, value), settings=budget))
    assert accepts(schema, find(pairs, lambda value: accepts(schema, value), settings=budget))
