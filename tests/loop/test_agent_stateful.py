"""The lifecycle model's state machine (``loop/agent_machine.py``), run as a test: every rule below
holds after every command of every random run."""

from __future__ import annotations

import pytest

from loop.agent_machine import AgentMachine

TestAgentMachine = pytest.mark.rule(
    "CLAIM-1", "CLAIM-2", "CLAIM-3", "CLAIM-4", "CLAIM-5", "CLAIM-6", "DECIDE-1", "DECIDE-4", "DECIDE-5",
    "DECIDE-6", "DECIDE-7", "DECIDE-8", "INPUT-1", "INPUT-2", "INPUT-3", "INPUT-4", "TURN-1", "TURN-2", "TURN-3",
    "TURN-4", "TURN-5", "STEP-1", "STEP-2", "STEP-3", "STEP-4", "RESULT-1", "RESULT-2", "RESULT-3", "RESULT-4",
    "RESULT-5", "CHAIN-1", "CHAIN-2", "CANCEL-1", "CANCEL-2", "CANCEL-3", "CANCEL-4", "STATUS-1", "END-1", "END-2",
    "NOTIFY-2", "NOTIFY-4", "REPAIR-1", "REPAIR-2", "REPAIR-3", "REPAIR-4", "FOLD-5", "DATA-5", "WORK-2", "LOG-2",
    "LOG-7", "LOG-8",
)(AgentMachine.TestCase)
