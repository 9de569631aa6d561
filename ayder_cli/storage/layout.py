"""Every path ayder keeps under a project's `.ayder/` folder, named in one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATE_DIR = ".ayder"  # the folder's name, relative to the project root


@dataclass(frozen=True)
class Layout:
    root: Path  # the project root

    @property
    def state(self) -> Path:
        return self.root / STATE_DIR

    @property
    def config(self) -> Path:
        return self.state / "config.json"

    @property
    def prompts(self) -> Path:
        return self.state / "prompts"

    @property
    def sessions(self) -> Path:
        return self.state / "sessions"

    @property
    def memory(self) -> Path:
        return self.state / "memory"

    @property
    def checkpoint(self) -> Path:
        return self.memory / "current_memory.md"

    @property
    def memories(self) -> Path:
        return self.memory / "memories.jsonl"

    @property
    def tasks(self) -> Path:
        return self.state / "tasks"
