"""A message's budget of tool round trips (-I), renewed by checkpoints while they may be written."""

from __future__ import annotations

from ayder_cli.agent.budget import Checkpoint, MessageBudget, Stop


def test_round_trips_are_spent_then_a_checkpoint_renews_them():
    budget = MessageBudget(2, max_checkpoints=1, summary_path=".ayder/memory/current_memory.md")
    assert budget.spend() and budget.spend() and not budget.spend()
    assert budget.when_spent() == Checkpoint(1)
    assert budget.spend() and budget.spend() and not budget.spend()
    stop = budget.when_spent()
    assert isinstance(stop, Stop) and "after 1 checkpoint" in stop.reason and ".ayder/memory" in stop.reason


def test_without_checkpoints_the_message_stops_and_says_how_to_go_on():
    budget = MessageBudget(1, max_checkpoints=0)
    assert budget.spend() and not budget.spend()
    assert budget.when_spent() == Stop("stopped after 1 tool round trip (-I 1); "
                                       "send another message to let it go on, or raise -I")
