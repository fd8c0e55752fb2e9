"""Hand-written vector cases for the loop rules checkable from commands (INPUT … CANCEL).

Each case drives the agent through its await points with explicit environment answers and
probes the rule's hallmark in the model's observations (see :mod:`.case`).
"""

from __future__ import annotations

from loopspec.data.json_value import freeze
from loopspec.data.messages import MessageId
from loopspec.log import kinds
from loopspec.log.tool_errors import tool_error
from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.case import CaseSpec, all_of, event_data, event_types, final, note_types, refused, value
from loopspec.vectors.rule_cases.common import (
    CLM,
    DIS,
    ENTER,
    ERR,
    INS,
    NT,
    SE,
    SEED,
    SPL,
    SS,
    STAT,
    STOP,
    TE,
    TOOL_CALL,
    TS,
    UM,
    m,
)

AM, TC, TR = kinds.ASSISTANT_MESSAGE, kinds.TOOL_CALL, kinds.TOOL_RESULT


def _case(path: str, rules: tuple[str, ...], description: str, commands: tuple[cmd.Command, ...],
          probe: object) -> CaseSpec:
    assert callable(probe)
    return CaseSpec(path, "rule", rules, description, commands, probe)


CASES: tuple[CaseSpec, ...] = (
    _case("input/send/input-1-aliases", ("INPUT-1",),
          "inject and a non-waking send only insert at the end; steer inserts into next-step and wakes.",
          (cmd.inject(m("i")), cmd.Send(m("n"), NT, False), cmd.inject(m("j")), cmd.steer(m("s"))),
          all_of(event_types(0, SPL), event_data(1, 0, "target", "next-turn"), event_data(2, 0, "start", 1),
                 event_types(3, SPL, TS, SPL, SPL), event_data(3, 0, "start", 2), note_types(1, INS))),
    _case("input/followup/input-2-wake-from-idle", ("INPUT-2", "INPUT-1", "LOG-9"),
          "A followup while idle inserts, emits status running, writes turn/start and claims, in one call.",
          (cmd.followup(m("a")),),
          all_of(event_types(0, SPL, TS, SPL), note_types(0, INS, STAT, CLM), final("phase", "deciding"))),
    _case("input/followup/input-3-refused-insertion-does-not-wake", ("INPUT-3", "SPLICE-3"),
          "A followup whose insertion is refused (id already pending) neither wakes, writes nor notifies.",
          (cmd.inject(m("a")), cmd.followup(m("a"))),
          all_of(refused(1, "SPLICE-3"), final("status", "idle"), final("lastTurn", 0))),
    _case("input/step-result/input-4-answers-outside-their-phase", ("INPUT-4",),
          "A step result, decision or turn-stopping answer with no row for the current phase is refused.",
          (STOP, ENTER, cmd.TurnStopping(), cmd.followup(m("a")), STOP, cmd.TurnStopping(), ENTER, ENTER),
          all_of(refused(0, "INPUT-4"), refused(1, "INPUT-4"), refused(2, "INPUT-4"), refused(4, "INPUT-4"),
                 refused(5, "INPUT-4"), refused(7, "INPUT-4"), final("phase", "stepping"))),
    _case("decide/decide/decide-1-one-decision-per-boundary", ("DECIDE-1",),
          "Each boundary takes exactly one decision, after its claim: a second answer is refused, the next "
          "boundary's claim comes with the step's result.",
          (cmd.followup(m("a")), cmd.steer(m("s")), ENTER, ENTER, STOP, ENTER),
          all_of(event_types(0, SPL, TS, SPL), refused(3, "INPUT-4"), event_types(4, SE, SPL),
                 note_types(4, CLM), event_types(5, SS, UM))),
    _case("decide/decide/decide-2-reject", ("DECIDE-2", "DECIDE-5"),
          "A reject decision closes the turn blocked with no step; the claimed batch stays removed.",
          (cmd.followup(m("a")), cmd.Decide((ls.Veto(ls.Reject()),))),
          all_of(event_types(1, TE), event_data(1, 0, "reason", {"kind": "blocked"}),
                 final("inbox", {"next-turn": [], "next-step": []}), final("phase", "idle"))),
    _case("decide/decide/decide-2-enter-other-messages", ("DECIDE-2", "DECIDE-8"),
          "An enter decision's messages, not the claimed batch, become the step's user/messages.",
          (cmd.followup(m("a")), cmd.Decide((ls.Veto(ls.Enter((m("x"), m("y")))),))),
          all_of(event_types(1, SS, UM, UM), event_data(1, 1, "id", "x"), event_data(1, 2, "id", "y"))),
    _case("decide/decide/decide-3-waterfall-order", ("DECIDE-3",),
          "Outermost first: the inner listener drops the claimed message, the outer one adds y to what next() "
          "returned, so y alone is entered.",
          (cmd.followup(m("a")),
           cmd.Decide((ls.Wrap(ls.Add((m("y"),))), ls.Wrap(ls.Drop((MessageId("a"),)))))),
          all_of(event_types(1, SS, UM), event_data(1, 1, "id", "y"))),
    _case("decide/decide/decide-3-veto-stops-the-chain", ("DECIDE-3", "DECIDE-4"),
          "A veto returns without next(): later listeners (a thrower) never run; the outer listener's after-"
          "action runs once next() returns and its input stays pending.",
          (cmd.followup(m("a")),
           cmd.Decide((ls.Wrap(after=(cmd.inject(m("z")),)), ls.Veto(ls.Enter((m("v"),))), ls.Throw("never")))),
          all_of(event_types(1, SPL, SS, UM), event_data(1, 2, "id", "v"), note_types(1, INS),
                 final("inbox", {"next-turn": [], "next-step": ["z"]}))),
    _case("result/step-result/result-1-max-tokens-sticky", ("RESULT-1", "RESULT-4"),
          "max-tokens then, after a turn-stopping continuation, stop: the turn still ends max-tokens.",
          (cmd.followup(m("a")), ENTER, cmd.MaxTokens(), cmd.TurnStopping((cmd.inject(m("c")),)),
           ENTER, STOP, cmd.TurnStopping()),
          all_of(event_types(2, SE), final("phase", "idle"), event_types(6, TE),
                 event_data(6, 0, "reason", {"kind": "max-tokens"}))),
    _case("result/step-result/result-2-tool-context", ("RESULT-2",),
          "A tool step inserts its context at the end of next-step and continues with another boundary.",
          (cmd.followup(m("a")), ENTER, cmd.ToolCalls((m("ctx"),)), ENTER,
           cmd.ToolCalls(), ENTER),
          all_of(event_types(2, SPL, SE, SPL), event_data(2, 0, "target", "next-step"), note_types(2, INS, CLM),
                 event_types(3, SS, UM), event_data(3, 0, "step", 2), event_types(4, SE),
                 event_types(5, SS), event_data(5, 0, "step", 3))),
    _case("result/step-result/result-2-context-after-the-results", ("RESULT-2", "LOG-11"),
          "A finishing tool-calls answer commits the pending call's result first and splices the tools' context "
          "into next-step after it, as the real tool phase does (appendToolResult, then acceptContext).",
          (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.ToolCalls((m("ctx"),))),
          all_of(event_types(3, TR, SPL, SE, SPL), event_data(3, 1, "target", "next-step"))),
    _case("result/step-result/result-2-concluded", ("RESULT-2", "RESULT-1"),
          "A tool that concludes the turn ends it completed after turn-stopping.",
          (cmd.followup(m("a")), ENTER, cmd.ToolCalls(conclude=True), cmd.TurnStopping()),
          all_of(final("phase", "idle"), event_data(3, 0, "reason", {"kind": "completed"}))),
    _case("result/step-result/result-3-retry-and-error", ("RESULT-3", "END-2"),
          "A request error answered retry stays in the step (no events); without retry the step closes and "
          "the turn ends error after agent/error.",
          (cmd.followup(m("a")), ENTER, cmd.RequestError(retry=True),
           cmd.RequestError(error="rate limited", code="RATE_LIMIT")),
          all_of(event_types(2), note_types(2), event_types(3, SE, TE), note_types(3, ERR, STAT),
                 event_data(3, 1, "reason", {"kind": "error", "error": {"message": "rate limited",
                                                                        "code": "RATE_LIMIT"}}))),
    _case("result/turn-stopping/result-4-continuation", ("RESULT-4",),
          "turn-stopping listeners that steer extend the turn with another boundary claiming next-step.",
          (cmd.followup(m("a")), ENTER, STOP, cmd.TurnStopping((cmd.steer(m("c")),)), ENTER, STOP,
           cmd.TurnStopping()),
          all_of(event_types(3, SPL, SPL), note_types(3, INS, CLM), event_types(4, SS, UM),
                 event_data(4, 0, "step", 2), event_types(6, TE), final("lastTurn", 1))),
    _case("chain/turn-stopping/chain-1-next-turn-without-idle", ("CHAIN-1",),
          "A followup queued during a turn starts the next turn right after a completed end, with no status "
          "change in between.",
          (cmd.followup(m("a")), cmd.followup(m("b")), ENTER, STOP, cmd.TurnStopping()),
          all_of(event_types(4, TE, TS, SPL), note_types(4, CLM), final("lastTurn", 2))),
    _case("cancel/cancel/cancel-2-idle", ("CANCEL-2",),
          "cancel while idle clears queued input (next-step first) without a turn or a status change; with "
          "keepInbox it does nothing.",
          (cmd.inject(m("s")), cmd.Send(m("t"), NT, False), cmd.Cancel(keep_inbox=True), cmd.Cancel()),
          all_of(event_types(2), note_types(2), event_types(3, SPL, SPL), note_types(3, DIS, DIS),
                 event_data(3, 0, "target", "next-step"), final("status", "idle"), final("lastTurn", 0))),
    _case("cancel/steer/cancel-4-redirect-and-latch", ("CANCEL-4",),
          "After a keepInbox cancel, a waking steer goes to next-turn and latches a wake: the aborted turn ends "
          "and a new one starts after an idle/running status pair.",
          (cmd.followup(m("a")), cmd.Cancel(keep_inbox=True), cmd.steer(m("b")), cmd.inject(m("c")), ENTER),
          all_of(event_data(2, 0, "target", "next-turn"), event_data(3, 0, "target", "next-step"),
                 event_types(4, TE, TS, SPL, SPL), note_types(4, STAT, STAT, CLM, CLM),
                 event_data(4, 0, "reason", {"kind": "aborted", "reason": {"kind": "user"}}))),
    _case("cancel/followup/cancel-4-disposed-does-not-latch", ("CANCEL-4",),
          "A waking send after a disposal is redirected but never latched: the agent parks it.",
          (cmd.followup(m("a")), cmd.Cancel(freeze({"kind": "disposed"}), keep_inbox=True),
           cmd.followup(m("b")), ENTER),
          all_of(event_types(3, TE), note_types(3, STAT), final("inbox", {"next-turn": ["b"], "next-step": []}),
                 final("phase", "idle"), value(3, None))),
    _case("result/step-result/result-2-tool-calls-answered", ("RESULT-2", "LOG-10"),
          "Tool calls announced inside a step (one started, one not yet) are answered when the step's tools "
          "finish: in call order, each call (its tool/call first if it had not started) gets its tool/result, "
          "before step/end.",
          (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.ToolCall(started=False),
           cmd.ToolCalls()),
          all_of(event_types(2, AM, TC), event_types(3, AM), event_types(4, TR, TC, TR, SE),
                 final("phase", "deciding"))),
    _case("result/step-result/log-11-calls-start-and-answer-in-call-order", ("LOG-11", "RESULT-2"),
          "A step's calls start and are answered in the order they were announced: a second call whose tool "
          "may start starts the first one, still waiting, and each result answers the oldest open call.",
          (cmd.followup(m("a")), ENTER, cmd.ToolCall(started=False), TOOL_CALL,
           cmd.ToolResult(), cmd.ToolCalls()),
          all_of(event_types(3, AM, TC), event_data(3, 1, "callId", "call-1.1.1"), event_types(4, TR),
                 event_types(5, TC, TR, SE), event_data(5, 0, "callId", "call-1.1.2"))),
    _case("repair/restart/repair-1-started-tool-call", ("REPAIR-1", "REPAIR-2"),
          "A crash while a started tool runs: repair answers the call with a synthetic TOOL_OUTCOME_UNKNOWN "
          "result, then closes the step and the turn.",
          (cmd.followup(m("a")), ENTER, TOOL_CALL, cmd.Restart()),
          all_of(event_types(3, TR, SE, TE, SEED),
                 event_data(3, 0, "error", tool_error("TOOL_OUTCOME_UNKNOWN")), final("phase", "idle"))),
    _case("repair/restart/repair-1-announced-tool-call", ("REPAIR-1", "REPAIR-3"),
          "A crash after the model announced a tool call whose tool never started: repair writes a synthetic "
          "TOOL_NOT_STARTED result with the last event's time.",
          (cmd.followup(m("a")), ENTER, cmd.ToolCall(started=False), cmd.Restart()),
          all_of(event_types(3, TR, SE, TE, SEED),
                 event_data(3, 0, "error", tool_error("TOOL_NOT_STARTED")), final("phase", "idle"))),
)
