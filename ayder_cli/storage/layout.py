"""Every path ayder keeps under a project's `.ayder/` folder, named in one place."""

from __future__ import annotations

import os
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
    def skills(self) -> Path:
        return self.state / "skills"

    @property
    def commands(self) -> Path:
        return self.state / "commands"

    @property
    def agents_skills(self) -> Path:
        """Not ours: the skills folder other agents read too (skills/discovery.py)."""
        return self.root / ".agents" / "skills"

    @property
    def mcp_json(self) -> Path:
        """Not ours: the MCP servers file other agents read at the project root (config/project_mcp.py)."""
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


def doubt_about(folder: Path) -> str | None:
    """Why the top of a work tree found above where ayder starts should not be taken as the project
    unasked (git itself refuses a repository another user owns): None when nothing is wrong."""
    try:
        owner = os.lstat(folder).st_uid
    except OSError:
        return None
    if hasattr(os, "getuid") and owner != os.getuid():
        return f"it is owned by another user (uid {owner})"
    dot_git = folder / ".git"
    if not dot_git.is_file() or dot_git.is_symlink():
        return None
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return "its .git file cannot be read"
    line = next((line for line in text.splitlines() if line.startswith("gitdir:")), None)
    if line is None:
        return "its .git file names no git directory"
    target = (folder / line.removeprefix("gitdir:").strip()).resolve()
    if not _belongs(folder.resolve(), target):
        return f"its .git file points to {target}, outside it"
    if hasattr(os, "getuid") and target.exists() and target.stat().st_uid != os.getuid():
        return f"its git directory {target} is owned by another user"
    return None


def _belongs(folder: Path, gitdir: Path) -> bool:
    """A .git file's git directory is this work tree's: inside it; a submodule's, in the .git/modules/
    of a repository holding it; or a worktree's, whose `gitdir` file names this .git file back."""
    if gitdir.is_relative_to(folder):
        return True
    parts = gitdir.parts
    for at in range(len(parts) - 1):
        if parts[at] == ".git" and parts[at + 1] == "modules" and folder.is_relative_to(Path(*parts[:at])):
            return True
    try:
        back = (gitdir / "gitdir").read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return parts[-2:-1] == ("worktrees",) and Path(back).resolve() == folder / ".git"


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
