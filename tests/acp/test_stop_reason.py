"""The stopReason an editor is given for each way the loop ends a message (the loop's own values)."""

from __future__ import annotations

import pytest

from ayder_cli.acp.agent import stop_reason
from ayder_cli.agent.budget import MessageBudget
from ayder_cli.agent.callbacks import RunResult
from ayder_cli.llm.wire_types import Reply


@pytest.mark.parametrize("checkpoints", [0, 1])
def test_a_spent_tool_budget_is_max_turn_requests(checkpoints):
    budget = MessageBudget(limit=3, max_checkpoints=checkpoints, summary_path=".ayder/memory/current_memory.md")
    if checkpoints:
        budget.when_spent()  # the one checkpoint allowed is written; the next time it stops
    assert stop_reason(RunResult(Reply(), stopped=budget.when_spent().reason)) == "max_turn_requests"


def test_the_other_endings():
    assert stop_reason(RunResult(Reply(text="done", finish_reason="stop"))) == "end_turn"
    assert stop_reason(RunResult(Reply(text="cut", finish_reason="length"))) == "max_tokens"
    assert stop_reason(RunResult(Reply(interrupted=True), interrupted=True)) == "cancelled"
    assert stop_reason(RunResult(Reply(), stopped="the model repeated read_file(a.py) 3 times; stopped")) == "end_turn"
