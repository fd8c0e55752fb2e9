"""Hand-written vector cases for cancellation and what it leaves behind (CANCEL, DATA-5, VARIANT-2, WORK;
CANCEL-5: what an abort does to a step's tool calls).

Consumed-work accounting (WORK) is computed from the log alone; what an implementation owes it is
a log whose records keep every message's fate apart: canceled drops marked ``canceled``, claims
unmarked, and nothing leaving the inbox without a record.
"""

from __future__ import annotations

from loopspec.data.json_value import freeze
from loopspec.log import kinds
from loopspec.log.tool_errors import ABORTED_CODE, SKIPPED_CODE, tool_error
from loopspec.loop import commands as cmd
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_types, final, note_types, refused
from loopspec.vectors.rule_cases.common import (
    CLM,
    DIS,
    EMPTY,
    ENTER,
    KEEP,
    NT,
    SE,
    SPL,
    STAT,
    STOP,
    STOPPING,
    TE,
    TOOL_CALL,
    TOOL_RESULT,
    TS,
    case,
    m,
)

USER_ABORT = {"kind": "aborted", "reason": {"kind": "user"}}
AM, TC, TR = kinds.ASSISTANT_MESSAGE, kinds.TOOL_CALL, kinds.TOOL_RESULT
SKIPPED = SKIPPED_CODE

CASES: tuple[CaseSpec, ...] = (
    case("cancel/cancel/cancel-1-clears-then-aborts", ("CANCEL-1", "WORK-1"),
         "cancel while a step runs cancels next-step, then next-turn (discarded each), and aborts: the step "
         "ends, then the turn, aborted.",
         (cmd.followup(m("a")), ENTER, cmd.inject(m("s")), cmd.Send(m("t"), NT, False), cmd.Cancel(), STOP),
         all_of(event_types(4, SPL, SPL), event_data(4, 0, "target", "next-step"),
                event_data(4, 0, "outcome", "canceled"), event_data(4, 1, "outcome", "canceled"),
                note_types(4, DIS, DIS), event_types(5, SE, TE), event_data(5, 1, "reason", USER_ABORT),
                final("inbox", EMPTY), final("phase", "idle"))),
    case("cancel/cancel/cancel-1-keep-inbox-only-aborts", ("CANCEL-1", "WORK-2"),
         "cancel with keepInbox aborts without touching the inbox: queued input stays pending, in memory as "
         "in the log, across the aborted end.",
         (cmd.followup(m("a")), cmd.inject(m("s")), KEEP, ENTER),
         all_of(event_types(2), note_types(2), event_types(3, TE), event_data(3, 0, "reason", USER_ABORT),
                final("inbox", {"next-turn": [], "next-step": ["s"]}), final("phase", "idle"))),
    case("cancel/turn-stopping/cancel-3-abort-at-stopping", ("CANCEL-3",),
         "An abort while turn-stopping is pending ends the turn aborted, not completed.",
         (cmd.followup(m("a")), ENTER, STOP, cmd.Cancel(), STOPPING),
         all_of(event_types(3), event_types(4, TE), event_data(4, 0, "reason", USER_ABORT), note_types(4, STAT))),
    case("cancel/decide/cancel-3-abort-before-the-step", ("CANCEL-3",),
         "An abort before the boundary's step/start ends the turn aborted without opening the step.",
         (cmd.followup(m("a")), cmd.Cancel(), ENTER),
         all_of(event_types(2, TE), event_data(2, 0, "reason", USER_ABORT))),
    case("cancel/cancel/cancel-4-clearing-cancel-disarms-the-latch", ("CANCEL-4",),
         "A clearing cancel after a latched wake cancels the redirected input and disarms the latch: a later "
         "non-waking send stays parked when the aborted turn ends.",
         (cmd.followup(m("a")), KEEP, cmd.steer(m("b")), cmd.Cancel(), cmd.inject(m("c")), ENTER),
         all_of(event_data(2, 0, "target", "next-turn"), event_types(3, SPL), event_data(3, 0, "target", "next-turn"),
                event_data(4, 0, "target", "next-step"), event_types(5, TE), note_types(5, STAT),
                final("phase", "idle"), final("inbox", {"next-turn": [], "next-step": ["c"]}))),
    case("cancel/steer/cancel-4-latched-wake-starts-a-turn", ("CANCEL-4", "STATUS-1"),
         "A waking send after a keepInbox cancel latches: the aborted turn ends, then idle and running, and a "
         "new turn claims it.",
         (cmd.followup(m("a")), KEEP, cmd.followup(m("b")), ENTER),
         all_of(event_types(3, TE, TS, SPL), note_types(3, STAT, STAT, CLM), event_data(3, 1, "turn", 2))),
    case("cancel/steer/data-5-redirected-duplicate", ("DATA-5", "SPLICE-3"),
         "A redirected waking send is checked against both lists: an id pending in next-step is refused.",
         (cmd.followup(m("a")), KEEP, cmd.inject(m("b")), cmd.steer(m("b"))),
         all_of(refused(3, "SPLICE-3"), final("inbox", {"next-turn": [], "next-step": ["b"]}))),
    case("cancel/step-result/cancel-5-drain-then-skip", ("CANCEL-5", "CANCEL-4"),
         "An abort in the tool phase starts nothing more: the two started calls are answered after the abort "
         "(a latching send in between) with the tool runtime's aborted result (ABORTED); the last one's answer "
         "closes the step: the call never started gets tool/call and an error tool/result "
         "ABORTED_BEFORE_DISPATCH, then step/end, the aborted end and the latched turn.",
         (cmd.followup(m("a")), ENTER, TOOL_CALL, TOOL_CALL, cmd.ToolCall(started=False), KEEP,
          cmd.followup(m("b")), TOOL_RESULT, TOOL_RESULT),
         all_of(event_types(2, AM, TC), event_types(3, AM, TC), event_types(4, AM), event_types(5),
                event_types(6, SPL), event_types(7, TR), event_data(7, 0, "error", tool_error(ABORTED_CODE)),
                event_types(8, TR, TC, TR, SE, TE, TS, SPL), event_data(8, 0, "error", tool_error(ABORTED_CODE)),
                event_data(8, 2, "error", tool_error(SKIPPED)), event_data(8, 4, "reason", USER_ABORT))),
    case("cancel/step-result/cancel-5-last-started-answer-closes", ("CANCEL-5", "CANCEL-3"),
         "When the last call still running after the abort is answered, the tool phase is over: its aborted "
         "result, then step/end and the aborted end at once (the scheduler waits for nothing else).",
         (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.Cancel(), TOOL_RESULT),
         all_of(event_types(4, TR, SE, TE), event_data(4, 0, "error", tool_error(ABORTED_CODE)),
                event_data(4, 2, "reason", USER_ABORT), final("phase", "idle"))),
    case("cancel/step-result/cancel-5-abort-answers-every-call", ("CANCEL-5", "CANCEL-3"),
         "Whatever the step's next answer, an aborted step answers each call: the started one (its tool "
         "finished, answered with the runtime's aborted result), then a skipped pair for the one never "
         "started, before step/end.",
         (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.ToolCall(started=False), cmd.Cancel(),
          cmd.Fail()),
         all_of(event_types(5, TR, TC, TR, SE, TE), event_data(5, 0, "error", tool_error(ABORTED_CODE)),
                event_data(5, 2, "error", tool_error(SKIPPED)), event_data(5, 4, "reason", USER_ABORT))),
    case("cancel/step-result/cancel-5-drained-context-accepted", ("CANCEL-5", "RESULT-2"),
         "A started tool that deferred context finishes after the abort: its aborted result is "
         "committed and its context still goes into next-step (a public insertion at the end), before "
         "step/end and the aborted end (finding F18).",
         (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.Cancel(), cmd.ToolCalls(context=(m("c"),))),
         all_of(event_types(4, TR, SPL, SE, TE), event_data(4, 0, "error", tool_error(ABORTED_CODE)),
                event_data(4, 3, "reason", USER_ABORT), final("inbox", {"next-turn": [], "next-step": ["c"]}))),
    case("cancel/step-result/cancel-5-no-tool-ran-no-context", ("CANCEL-5", "CANCEL-3"),
         "An abort during the model's stream starts no tool, so nothing defers context: the step's "
         "answer ends the turn aborted and next-step stays as the cancel left it.",
         (cmd.followup(m("a")), ENTER, KEEP, cmd.ToolCalls(context=(m("c"),))),
         all_of(event_types(3, SE, TE), event_data(3, 1, "reason", USER_ABORT), final("inbox", EMPTY))),
    case("cancel/cancel/variant-2-aborted-carries-the-cause", ("VARIANT-2", "CANCEL-3"),
         "An aborted end carries the cancel cause as its reason (the whole cause, as the model writes it).",
         (cmd.followup(m("a")), cmd.Cancel(freeze({"kind": "timeout", "ms": 5})), ENTER),
         event_data(2, 0, "reason", {"kind": "aborted", "reason": {"kind": "timeout", "ms": 5}})),
    case("cancel/cancel/work-1-drops-and-claims-apart", ("WORK-1", "WORK-2"),
         "A cancel's drops are canceled removals; the next turn's claim is an unmarked deletion.",
         (cmd.inject(m("a")), cmd.Send(m("b"), NT, False), cmd.Cancel(), cmd.followup(m("c")), ENTER, STOP,
          STOPPING),
         all_of(event_types(2, SPL, SPL), event_data(2, 0, "outcome", "canceled"),
                event_data(2, 1, "outcome", "canceled"), event_types(3, SPL, TS, SPL),
                event_data(3, 2, "outcome", "<absent>"), final("inbox", EMPTY))),
)
