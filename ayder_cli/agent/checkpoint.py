"""Checkpoints, the agent's side: when a message's tool budget is spent, the model summarizes the work
(without tools), the summary is saved (storage/checkpoint_store.py), and the work goes on in a fresh context
that starts from it. --restore and the REPL's question start from a saved one the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from ayder_cli.agent.conversation import Conversation
from ayder_cli.storage.checkpoint_store import CheckpointStore

SUMMARY_REQUEST = (
    "Stop working for a moment and write a checkpoint summary of this task, so that it can be "
    "continued in a fresh conversation that sees only your summary. Use these headings: Goal; "
    "Done so far; Files touched; Left to do; Next step. Be specific (paths, names, commands) "
    "and brief. Do not call any tool."
)


def restore_message(summary: str, cycle: int) -> str:
    """The first user message of the fresh context after checkpoint `cycle`."""
    return (
        f"We are continuing a task from checkpoint {cycle}; the earlier conversation was replaced "
        f"by this summary:\n\n{summary.strip()}\n\nContinue with the next step."
    )


def write_checkpoint(store: CheckpointStore, messages: list[dict], summarize: Callable[[list[dict], str], str],
                     cycle: int) -> str:
    """Ask the model (`summarize`: no tools) for a summary of `messages`, and save it; the summary."""
    summary = summarize(messages, SUMMARY_REQUEST) or "(the model wrote no summary)"
    store.write(summary, cycle)
    return summary


def start_from(conversation: Conversation, summary: str, cycle: int) -> None:
    """The conversation begins again from checkpoint `cycle`'s summary."""
    conversation.reset()
    conversation.add_user(restore_message(summary, cycle))
