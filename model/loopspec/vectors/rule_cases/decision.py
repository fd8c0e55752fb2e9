"""Vector cases for the pre-step payload and decision-dependent listener actions (DECIDE-1, DECIDE-9).

They pin what an implementation's listener chain must see (the running turn and the number the
proposed step gets) and the decision record's workspace pattern: a staged next-step item is folded
and removed by an entering pre-step and stays queued after a reject.
"""

from __future__ import annotations

from loopspec.loop import commands as cmd
from loopspec.loop import pre_step as ls
from loopspec.vectors.case import CaseSpec, all_of, event_types, final
from loopspec.vectors.command_gen import message

SPL, TS, TE, SS, SE, UM = "agent/inbox/spliced", "turn/start", "turn/end", "step/start", "step/end", "user/message"
STOP, TOOLS = cmd.StepResult("stop"), cmd.StepResult("tool-calls")
A, B, W = message("a"), message("b"), message("w")
REJECT_SECOND_STEP = cmd.Decide((ls.Wrap(ls.Replace(ls.Reject()), when=ls.When(step=2)),))
REJECT_TURN_2 = cmd.Decide((ls.Veto(ls.Reject(), when=ls.When(turn=2)),))
WORKSPACE = ls.Wrap(ls.Add((W,)), after_enter=(cmd.Remove(W.id),))


def _case(path: str, rules: tuple[str, ...], description: str, commands: tuple[cmd.Command, ...],
          probe: object) -> CaseSpec:
    assert callable(probe)
    return CaseSpec(path, "rule", rules, description, commands, probe)


CASES: tuple[CaseSpec, ...] = (
    _case("decide/decide/decide-1-payload-step", ("DECIDE-1",),
          "A listener acting only on proposed step 2 passes through at step 1 and rejects at step 2.",
          (cmd.followup(A), REJECT_SECOND_STEP, TOOLS, REJECT_SECOND_STEP),
          all_of(event_types(1, SS, UM), event_types(3, TE), final("phase", "idle"))),
    _case("decide/decide/decide-1-payload-turn", ("DECIDE-1", "CHAIN-1"),
          "A listener acting only in turn 2 lets turn 1 enter and vetoes the chained turn 2.",
          (cmd.followup(A), cmd.followup(B), REJECT_TURN_2, STOP, cmd.TurnStopping(), REJECT_TURN_2),
          all_of(event_types(2, SS, UM), event_types(5, TE), final("lastTurn", 2))),
    _case("decide/decide/decide-9-entering-pre-step-folds-staged-item", ("DECIDE-9", "DECIDE-4"),
          "An item staged in next-step during the decision is folded into the entered batch and its "
          "pending copy removed by the entering pre-step's listener.",
          (cmd.followup(A), cmd.inject(W), cmd.Decide((WORKSPACE,))),
          all_of(event_types(2, SPL, SS, UM, UM), final("inbox", {"next-turn": [], "next-step": []}))),
    _case("decide/decide/decide-9-rejection-keeps-staged-item", ("DECIDE-9", "DECIDE-5"),
          "The same listener around a reject leaves the staged item queued; the next turn claims it.",
          (cmd.followup(A), cmd.inject(W), cmd.Decide((WORKSPACE, ls.Veto(ls.Reject()))), cmd.followup(B)),
          all_of(event_types(2, TE), final("inbox", {"next-turn": [], "next-step": []}), final("phase", "deciding"))),
)
