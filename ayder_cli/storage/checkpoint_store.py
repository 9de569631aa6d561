"""CheckpointStore: the current checkpoint summary, one file in the project (.ayder/memory/current_memory.md).

What goes into it, and when, is the agent's side (agent/checkpoint.py); this is only the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ayder_cli.storage.atomic import atomic_write
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.no_follow import check_no_links


class CheckpointStore:
    """The current checkpoint summary, one file in the project."""

    def __init__(self, root: Path, mask: Callable[[str], str] = lambda text: text) -> None:
        self.root = root
        self.path = Layout(root).checkpoint
        self.mask = mask  # no API key is saved, whatever the model put in the summary

    @property
    def relative_path(self) -> str:
        """The file as the user is told of it: relative to the project root."""
        return self.path.relative_to(self.root).as_posix()

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> str:
        check_no_links(self.path)  # a planted link to an outside file is not read to the model
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
