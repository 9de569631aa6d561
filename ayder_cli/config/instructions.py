"""What the model is told about where it works: project instructions and the environment note.

Instructions are files like AGENTS.md, found (as in Codex CLI) in ayder's user
config directory, then in the project root and every directory from there
down to the working directory, root first. They are stable per project, so
they go into the system prompt: part of the prefix a server's prompt cache
reuses. The environment note (OS, shell, git state, date) changes, so it is
sent before the text of a conversation's first user message instead.
"""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ayder_cli.storage.xdg import xdg_config_path
from ayder_cli.tools.git_command import may_be_a_repository, run_git
from ayder_cli.processes.process_groups import COMMAND_SHELL

INSTRUCTIONS_FILE = "AGENTS.md"
MAX_INSTRUCTIONS_BYTES = 32 * 1024  # all files together
GIT_TIMEOUT_S = 2.0
ENVIRONMENT_OPEN, ENVIRONMENT_CLOSE = "<environment>", "</environment>"


@dataclass(frozen=True)
class InstructionFile:
    path: Path
    label: str  # how the prompt and /status name it: relative to the root, or "AGENTS.md (user-wide)"
    text: str  # what goes into the prompt (cut if the cap was reached in it)
    size: int  # bytes of its text (surrounding blank lines not counted)
    cut: bool = False

    def describe(self) -> str:
        kept = len(self.text.encode("utf-8"))
        return f"{self.label} ({_bytes(self.size)}{f', cut to {_bytes(kept)}' if self.cut else ''})"


@dataclass(frozen=True)
class Instructions:
    files: tuple[InstructionFile, ...] = ()
    left_out: tuple[str, ...] = ()  # labels of files past the cap
    enabled: bool = True  # False with --no-instructions

    @property
    def notice(self) -> str | None:
        """The one line saying what the cap cut, or None."""
        cut = [f.label for f in self.files if f.cut]
        if not cut and not self.left_out:
            return None
        parts = [f"{label} cut short" for label in cut]
        if self.left_out:
            parts.append(f"{', '.join(self.left_out)} left out")
        return f"project instructions are capped at {_bytes(MAX_INSTRUCTIONS_BYTES)}: {'; '.join(parts)}"

    def prompt_block(self) -> str:
        """The text added to the system prompt; empty when there is nothing to add."""
        if not self.files:
            return ""
        sections = [f"--- {f.label} ---\n{f.text}" for f in self.files]
        if self.notice:
            sections.append(f"[{self.notice}]")
        return "Instructions for this project (later files are more specific):\n\n" + "\n\n".join(sections)

    def describe(self) -> str:
        """One line for -v and /status."""
        if not self.enabled:
            return "off (--no-instructions)"
        if not self.files:
            return "none found"
        return ", ".join(f.describe() for f in self.files) + (
            f"; left out: {', '.join(self.left_out)}" if self.left_out else "")


def user_instructions_dir(env: Mapping[str, str]) -> Path:
    """$XDG_CONFIG_HOME/ayder/ (default ~/.config/ayder/): where the user-wide AGENTS.md lives."""
    return xdg_config_path(env).parent


def instruction_names(extra: Sequence[str] = ()) -> list[str]:
    """AGENTS.md, then the `instructions` config names, each once."""
    return list(dict.fromkeys([INSTRUCTIONS_FILE, *extra]))


def project_dirs(root: Path, cwd: Path | None) -> list[Path]:
    """The root, then each directory down to the working directory (when it is inside the root)."""
    dirs = [root]
    if cwd is not None:
        try:
            parts = cwd.relative_to(root).parts
        except ValueError:
            parts = ()
        for part in parts:
            dirs.append(dirs[-1] / part)
    return dirs


def find_instruction_files(root: Path, cwd: Path | None, env: Mapping[str, str], extra: Sequence[str] = (),
                           warn: Callable[[str], None] = lambda message: None) -> list[tuple[Path, str]]:
    """(path, label) of every instruction file, user-wide first, then root first; each file once.

    A project's file that is a link out of the root is left out, with a warning: a cloned project
    must not send ~/.ssh/... to the server as its "instructions". The user-wide ones are the user's."""
    names = instruction_names(extra)
    real_root = root.resolve()
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    places = [(user_instructions_dir(env), True)] + [(d, False) for d in project_dirs(root, cwd)]
    for directory, user_wide in places:
        for name in names:
            path = directory / name
            if not path.is_file():
                continue
            real = path.resolve()
            label = f"{name} (user-wide)" if user_wide else path.relative_to(root).as_posix()
            if not user_wide and not real.is_relative_to(real_root):
                warn(f"{label} links outside the project ({real}); not read")
                continue
            if real in seen:  # e.g. CLAUDE.md -> AGENTS.md, or the root seen twice
                continue
            seen.add(real)
            found.append((path, label))
    return found


def load_instructions(root: Path, cwd: Path | None, env: Mapping[str, str], extra: Sequence[str] = (),
                      warn: Callable[[str], None] = lambda message: None,
                      limit: int = MAX_INSTRUCTIONS_BYTES) -> Instructions:
    """Read the instruction files within `limit` bytes: whole files in order, the one that overflows cut."""
    files: list[InstructionFile] = []
    left_out: list[str] = []
    room = limit
    for path, label in find_instruction_files(root, cwd, env, extra, warn):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            warn(f"cannot read instructions {path}: {getattr(exc, 'strerror', None) or exc}; skipped")
            continue
        if not text:
            continue
        size = len(text.encode("utf-8"))
        if room <= 0:
            left_out.append(label)
        elif size <= room:
            files.append(InstructionFile(path, label, text, size))
            room -= size
        else:
            files.append(InstructionFile(path, label, _cut(text, room), size, cut=True))
            room = 0
    return Instructions(tuple(files), tuple(left_out))


def _cut(text: str, limit: int) -> str:
    """At most `limit` UTF-8 bytes of text, ending at a line end when there is one."""
    head = text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    line_end = head.rfind("\n")
    return (head[:line_end] if line_end > 0 else head).rstrip()


def _bytes(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB".replace(".0 KB", " KB")


# --- the environment note


def environment_note(root: Path, cwd: Path | None, env: Mapping[str, str], today: date | None = None,
                     repo: Path | None = None) -> str:
    """A few lines for the start of a conversation: OS, shell, project root, git state, date.
    repo: the repository root, named when the tools' root is below it (ayder started in a subdirectory)."""
    lines = [
        f"OS: {_os_name()} {platform.machine()}".rstrip(),
        f"Shell: {_shell(env)}",
        f"Project root: {root}",
    ]
    if repo is not None and repo != root and root.is_relative_to(repo):
        lines.append(f"Repository root: {repo} (the project root is {root.relative_to(repo).as_posix()} in it; "
                     "tools reach only the project root)")
    if cwd is not None and cwd != root and cwd.is_relative_to(root):
        lines.append(f"Working directory: {cwd.relative_to(root).as_posix()} (tool paths are relative to the root)")
    lines.append(f"Git: {git_state(root, env=env)}")
    lines.append(f"Date: {(today or date.today()).isoformat()}")
    return "\n".join([ENVIRONMENT_OPEN, *lines, ENVIRONMENT_CLOSE])


def _os_name() -> str:
    system = platform.system()
    return {"Darwin": "macOS", "": "unknown"}.get(system, system)


def _shell(env: Mapping[str, str]) -> str:
    user_shell = Path(env.get("SHELL") or "").name
    if not user_shell or user_shell == Path(COMMAND_SHELL).name:
        return COMMAND_SHELL
    return f"{user_shell} (commands run in {COMMAND_SHELL})"


def git_state(root: Path, timeout_s: float = GIT_TIMEOUT_S, env: Mapping[str, str] | None = None) -> str:
    """'branch main, clean', 'branch main, uncommitted changes', 'not a git repository', ...; never raises.
    env: the environment git runs in (None: ayder's own)."""
    if not may_be_a_repository(root, env):
        return "not a git repository"
    try:
        done = run_git(["status", "--porcelain=v2", "--branch"], root, timeout_s, env=env)
    except FileNotFoundError:
        return "unknown (git is not installed)"
    except subprocess.TimeoutExpired:
        return f"a repository, state unknown (git status took over {timeout_s:g} s)"
    except (OSError, ValueError) as exc:
        return f"unknown ({exc})"
    if done.returncode != 0:
        if "not a git repository" in done.stderr.lower():
            return "not a git repository"
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[0]
        return f"unknown (git status failed: {reason})"
    branch = "?"
    dirty = False
    for line in done.stdout.splitlines():
        if line.startswith("# branch.head "):
            branch = line.removeprefix("# branch.head ").strip()
        elif line and not line.startswith("#"):
            dirty = True
    where = "detached HEAD" if branch == "(detached)" else f"branch {branch}"
    return f"{where}, {'uncommitted changes' if dirty else 'clean'}"
