"""What "the model writes exactly this event" means for the search judge (see :mod:`.judge`)."""

from __future__ import annotations

from loopspec.data.json_value import JsonObject, thaw
from loopspec.log.envelope import is_surface_op
from loopspec.log.events import SessionEvent
from loopspec.log.kinds import (
    ASSISTANT_ATTEMPT,
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    END_SEED,
    MODEL_WRITTEN,
    REQUEST_CONTEXT,
    REQUEST_HEADER,
    STEP_END,
    STEP_START,
    SYSTEM_MESSAGE,
    TOOL_CALL,
    TOOL_RESULT,
    TOOL_TRAFFIC,
    TURN_END,
    TURN_START,
)
from loopspec.log.tool_errors import (
    REPAIR_CODES,
    SKIPPED_CODE,
    TOOL_ERROR_NAMES,
    citation,
    error_fields,
    skipped_shape,
    synthetic_shape,
)
from loopspec.log.wire import (
    announces,
    answered_calls,
    content_blocks,
    is_synthetic_result,
    record_data,
    source_call,
    started_call,
    tool_call_blocks,
)

UNSUPPORTED = frozenset({SYSTEM_MESSAGE})  # v0.1.5's entry placement (VARIANT-1)
# The model call's own traffic, which the model abstracts into its stepping phase (LOG-3 places it).
STEP_SCOPED = frozenset({ASSISTANT_CHUNK, ASSISTANT_ATTEMPT, ASSISTANT_MESSAGE})
TURN_SCOPED = frozenset({REQUEST_HEADER, REQUEST_CONTEXT})
MODEL_TYPES = MODEL_WRITTEN | TOOL_TRAFFIC
ENVELOPE_EXTRAS = ("surfaceOp", "sourceEventSeqs", "ignorable")


def same_event(model: SessionEvent, raw: dict[str, object], previous: dict[str, object] | None,
               closer: bool, calls: dict[str, int] | None = None, aborted: bool = False,
               call_seqs: tuple[int | None, int | None] = (None, None)) -> bool:
    """Whether the model's ``model`` is the log's ``raw``; ``aborted``: the model's turn was aborted
    before the command that wrote it (CANCEL-5's drain); ``call_seqs``: the seq of the answered
    call's ``tool/call`` in the model's log and in the log judged (a ``tool/result``'s citation)."""
    if raw.get("type") != model.type:
        return False
    if closer and previous is not None and raw.get("time") != previous.get("time"):
        return False  # REPAIR-3
    if model.type in TOOL_TRAFFIC:
        return (tool_view(model.to_json(), call_seq=call_seqs[0])
                == tool_view(raw, calls, previous, aborted, call_seqs[1]))
    envelope = model.to_json()
    if model.type == END_SEED and raw.get("data") == {"inherited": True}:
        return _same_envelope(envelope, raw)  # VARIANT-3: v0.1.5's marker, the same marker
    return same_json(envelope["data"], raw.get("data")) and _same_envelope(envelope, raw)


def _same_envelope(envelope: dict[str, object], raw: dict[str, object]) -> bool:
    return all(same_json(envelope.get(k), raw.get(k)) and ((k in envelope) == (k in raw)) for k in ENVELOPE_EXTRAS)


def tool_view(event: dict[str, object], calls: dict[str, int] | None = None,
              previous: dict[str, object] | None = None, aborted: bool = False,
              call_seq: int | None = None) -> object:
    """What the rules read of a tool event (see the module docstring).

    Call ids are opaque names: ``calls`` numbers a log's ids by first appearance in their step; the
    model's ids (``call-T.S.N``) carry that number themselves.  ``previous`` is the log's event
    before a raw one (None for the model's events, whose skipped results always follow their call),
    ``aborted`` whether the model's turn was aborted before it, and ``call_seq`` the seq of a
    result's call's ``tool/call`` in its own log (None: it has none).
    """
    def name(call: object) -> object:
        if not isinstance(call, str):
            return ("not an id", repr(call))  # never equal to a numbered id (False == 0 in Python)
        if calls is not None:
            return calls.get(call, call)
        return int(call.rsplit(".", 1)[-1]) - 1 if call.startswith("call-") else call

    data = event.get("data")
    data = data if isinstance(data, dict) else {}
    message = data.get("message")
    message = message if isinstance(message, dict) else {}
    kind = event.get("type")
    view: list[object] = [kind, _number(data.get("turn")), _number(data.get("step")),
                          *((k in event, event.get(k)) for k in ("surfaceOp", "ignorable"))]
    if kind == ASSISTANT_MESSAGE:
        view.append(tuple(name(b.get("id")) for b in tool_call_blocks(data))
                    if isinstance(message.get("content"), list) else None)
    elif kind == TOOL_CALL:
        view += [name(data.get("callId")), "sourceEventSeqs" in event]  # LOG-9: never derived
    elif kind == TOOL_RESULT:
        source = message.get("source")
        blocks = tuple(name(b.get("toolCallId")) for b in content_blocks(data))
        synthetic = is_synthetic_result(data)
        error = error_fields(data)
        shown = (repr(error[0]), repr(error[1])) if error is not None else None  # hashable, any JSON
        view += [name(source.get("callId")) if isinstance(source, dict) else None, blocks, synthetic,
                 # REPAIR-1 (decisions H3): repair's code says whether the call's tool/call was written,
                 # and each code has its error's name.
                 shown if synthetic else None,
                 # CANCEL-5: an aborted step's skipped call carries the code, always with AbortError.
                 _skipped_view(source, shown, error, previous, aborted),
                 # H3: the rest of the real writer's shape, judged within each log.
                 _shape_view(event, source, synthetic, error, call_seq)]
    return tuple(view)


def _shape_view(event: dict[str, object], source: object, synthetic: bool, error: tuple[object, object] | None,
                call_seq: int | None) -> object:
    """Whether a result has the rest of the real writer's shape (decisions H3): crash repair's its
    id, text and citation (REPAIR-1), a skipped call's its text (CANCEL-5), any other its citation
    of its call's ``tool/call`` (LOG-4)."""
    call = source.get("callId") if isinstance(source, dict) else None
    code = error[1] if error is not None else None
    if synthetic:
        return code not in REPAIR_CODES or synthetic_shape(event, str(call), str(code), call_seq) is None
    skipped = code == SKIPPED_CODE and skipped_shape(event.get("data")) is not None
    return not skipped and citation(event, call_seq) is None


def model_call_seq(events: tuple[SessionEvent, ...], result: SessionEvent) -> int | None:
    """The seq of the ``tool/call`` a model-written ``tool/result`` answers, in the model's log."""
    call = answered_call(thaw(result.data))
    for event in reversed(events[: result.seq]):
        if event.type in (STEP_START, TURN_START):
            return None
        if event.type == TOOL_CALL and isinstance(event.data, JsonObject) and event.data.get("callId") == call:
            return event.seq
    return None


def answered_call(data: object) -> str | None:
    """The call a ``tool/result`` answers (:func:`loopspec.log.wire.answered_calls`; a result the
    session writes answers one); None when it names none."""
    calls = answered_calls(data)
    return calls[0] if calls else None


def call_seqs(events: list[dict[str, object]]) -> list[dict[str, int]]:
    """For each event, the seq of each ``tool/call`` of its step so far, by call id."""
    out: list[dict[str, int]] = []
    seqs: dict[str, int] = {}
    for event in events:
        kind = event.get("type")
        if kind in (STEP_START, STEP_END, TURN_START, TURN_END):
            seqs = {}
        elif kind == TOOL_CALL:
            call = started_call(event.get("data"))
            seq = event.get("seq")
            if call is not None and isinstance(seq, int) and call not in seqs:
                seqs = {**seqs, call: seq}
        out.append(seqs)
    return out


def _skipped_view(source: object, shown: object, error: tuple[object, object] | None,
                  previous: dict[str, object] | None, aborted: bool) -> object:
    """CANCEL-5's reading of a result's error: a skipped call's right after its ``tool/call``; a
    started call the abort reached before its body ran gets the same error later, in an aborted
    turn: an ordinary answer as the model's drain writes it, as long as it names the code's error
    (AbortError)."""
    if error is None or error[1] != SKIPPED_CODE:
        return None
    if previous is None:
        return shown  # the model's own skipped result
    data = previous.get("data")
    call = source.get("callId") if isinstance(source, dict) else None
    if previous.get("type") == TOOL_CALL and isinstance(data, dict) and data.get("callId") == call:
        return shown
    return None if aborted and error[0] == TOOL_ERROR_NAMES[SKIPPED_CODE] else shown


def call_numbers(events: list[dict[str, object]]) -> list[dict[str, int]]:
    """For each event, its step's tool-call ids numbered by first appearance (for :func:`tool_view`).

    Ids are read where each tool event names them: an ``assistant/message``'s tool-call blocks, a
    ``tool/call``'s ``callId``, a ``tool/result``'s blocks and source.
    """
    out: list[dict[str, int]] = []
    calls: dict[str, int] = {}
    for event in events:
        kind = event.get("type")
        if kind in (STEP_START, STEP_END, TURN_START, TURN_END):
            calls = {}
        elif kind in TOOL_TRAFFIC:
            for call in _named_calls(event):
                if isinstance(call, str) and call not in calls:
                    calls[call] = len(calls)
        out.append(calls)
    return out


def _named_calls(event: dict[str, object]) -> list[object]:
    data = record_data(event)
    if event.get("type") == TOOL_CALL:
        return [data.get("callId")]
    if event.get("type") == ASSISTANT_MESSAGE:
        return [b.get("id") for b in tool_call_blocks(data)]
    return [*(b.get("toolCallId") for b in content_blocks(data)), source_call(data)]


def _number(value: object) -> object:
    """A turn or step number as :func:`same_json` compares it: never equal to a boolean or to ``1.0`` (G3)."""
    return (type(value).__name__, repr(value))


def same_json(a: object, b: object) -> bool:
    """JSON equality of numbers and values, but a boolean is never a number, and an integer token
    is never the same as ``1.0``: the real writer never writes an integral float (decisions.md G3),
    so a log that does was not written by any run."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b and type(a) is type(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def traffic_envelope(raw: dict[str, object]) -> bool:
    """Whether a model call's own event (passed over, not compared) has the envelope the session writes.

    LOG-9: ``ignorable`` never; ``surfaceOp`` and ``sourceEventSeqs`` only on an
    ``assistant/message`` (a conversation-surface event), which LOG-12 requires to carry a
    ``surfaceOp``: ``"append"`` or a replacement object (a replacement is out of the judge's scope).
    """
    if "ignorable" in raw:
        return False
    if raw.get("type") != ASSISTANT_MESSAGE:
        return "surfaceOp" not in raw and "sourceEventSeqs" not in raw
    return is_surface_op(raw.get("surfaceOp"))


def announces_raw(raw: dict[str, object]) -> bool:
    """An ``assistant/message`` with a tool-call block: the model's own tool-call point."""
    return announces(record_data(raw))
