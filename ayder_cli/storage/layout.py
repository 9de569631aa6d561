"""Every path ayder keeps under a project's `.ayder/` folder, named in one place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ayder_cli.storage.no_follow import STATE_DIR, check_no_links


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

    @property
    def mcp_json(self) -> Path:
        """Not ours: the MCP servers file other agents read at the project root (setup/project_mcp.py)."""
        return self.root / ".mcp.json"


def repository_root(root: Path, home: Path | None = None) -> Path:
    """Where a run keeps its .ayder/ and reads its project config and first AGENTS.md: the top of the
    git work tree holding `root` (a `.git` folder, or the file a worktree or submodule has), else
    `root` itself. Started in a subdirectory, ayder keeps one state for the whole repository, as git
    does. The home directory is never taken for one: a dotfiles repository at ~ is not the project."""
    for folder in (root, *root.parents):
        if folder == home:
            break
        if (folder / ".git").exists():
            return folder
    return root


GITIGNORE_TEXT = "# created by ayder: its state stays out of git\n*\n"


def make_directory(directory: Path, mode: int = 0o777) -> None:
    """mkdir -p for anything under a project's .ayder/: the folder, when this makes it, gets a
    .gitignore of `*` first (as pytest does for its cache), so it never shows in `git status`."""
    directory = Path(directory)
    check_no_links(directory, directory=True)  # a planted .ayder -> ~ is refused, never mkdir'd through
    parts = directory.parts
    if STATE_DIR in parts:
        state = Path(*parts[:len(parts) - parts[::-1].index(STATE_DIR)])
        if not state.is_dir():
            state.mkdir(parents=True, exist_ok=True)
            ignore_everything(state)
    directory.mkdir(mode=mode, parents=True, exist_ok=True)


def ignore_everything(state: Path) -> None:
    """Write state/.gitignore (`*`) unless there is one; a failure only leaves the folder visible."""
    try:
        with open(Path(state) / ".gitignore", "x", encoding="utf-8") as file:
            file.write(GITIGNORE_TEXT)
    except OSError:
        pass
