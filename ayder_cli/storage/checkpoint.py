"""Checkpoints: when a message's tool budget is spent, the work is summarized into
.ayder/memory/current_memory.md and goes on in a fresh context from that summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ayder_cli.storage.layout import Layout
from ayder_cli.storage.atomic import atomic_write

SUMMARY_REQUEST = (
    "Stop working for a moment and write a checkpoint summary of this task, so that it can be "
    "continued in a fresh conversation that sees only your summary. Use these headings: Goal; "
    "Done so far; Files touched; Left to do; Next step. Be specific (paths, names, commands) "
    "and brief. Do not call any tool."
)


COMPACT_REQUEST = (
    "The conversation is getting too long for the context window. Summarize everything above "
    "so the work can go on from your summary alone: the user's requests, decisions made, files "
    "read or changed (with the facts that matter), commands run and their outcome, and what is "
    "still open. Be specific and brief. Do not call any tool."
)


def compacted_message(summary: str) -> str:
    return f"[Summary of the earlier part of this conversation, made to save context]\n\n{summary.strip()}"


def restore_message(summary: str, cycle: int) -> str:
    """The first user message of the fresh context after checkpoint `cycle`."""
    return (
        f"We are continuing a task from checkpoint {cycle}; the earlier conversation was replaced "
        f"by this summary:\n\n{summary.strip()}\n\nContinue with the next step."
    )


class MemoryManager:
    """The current checkpoint summary, one file in the project."""

    def __init__(self, root: Path, mask: Callable[[str], str] = lambda text: text) -> None:
        self.root = root
        self.path = Layout(root).checkpoint
        self.mask = mask  # no API key is saved, whatever the model put in the summary

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def write(self, summary: str, cycle: int) -> None:
        """Saved atomically: a crash leaves the previous checkpoint or this one."""
        text = self.mask(f"# Checkpoint {cycle}\n\n{summary.strip()}\n")
        atomic_write(self.path, text, self.root, None, "checkpoint")

    def clear(self) -> bool:
        try:
            self.path.unlink()
            return True
        except FileNotFoundError:
            return False

    def summary(self) -> str:
        """The saved summary without its heading line."""
        text = self.read()
        return text.split("\n", 1)[1].strip() if text.startswith("# Checkpoint") else text.strip()
