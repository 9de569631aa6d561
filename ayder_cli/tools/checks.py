"""One check: a verify command run exactly as run_shell_command runs the model's commands.

The same function, so a check has the shell timeout, the project root, the kernel
sandbox, the deny list and the process group killed on Ctrl-C. Also here: the
{files} a command names, and what `git status` says, to see a command change files.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ayder_cli.errors import ToolError
from ayder_cli.tools.base import ToolContext
from ayder_cli.tools.git_command import run_git
from ayder_cli.tools.shell import run_shell_command

FILES = "{files}"
GIT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class CheckRun:
    command: str  # as run, {files} filled in
    ok: bool
    exit_status: int | None  # None: timed out, killed by a signal, or refused before it ran
    summary: str  # "exit code 1", "timed out after 120 s", "refused: ..."
    output: str  # as run_shell_command returns it to the model


def run_check(context: ToolContext, command: str) -> CheckRun:
    """Run one command; Ctrl-C (KeyboardInterrupt) reaches the caller after the group is killed."""
    try:
        result = run_shell_command(context, {"command": command})
    except ToolError as exc:  # the deny list refused it before it started
        return CheckRun(command, False, None, f"refused: {exc}", str(exc))
    code = re.match(r"exit code (\d+)(?:;|$)", result.summary or "")  # "; sandbox: ..." may follow
    return CheckRun(command, result.ok, int(code.group(1)) if code else None, result.summary or "",
                    result.output or result.error or "")


def with_files(command: str, files: list[str]) -> str | None:
    """{files} replaced by the files, each quoted for the shell; None: the command names {files} and there are none."""
    if FILES not in command:
        return command
    if not files:
        return None
    return command.replace(FILES, " ".join(shlex.quote(name) for name in files))


def _git(args: list[str], root: Path, env) -> str | None:
    try:
        done = run_git(args, root, GIT_TIMEOUT_S, env)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_prefix(root: Path, env) -> str | None:
    """Where the root is inside its git work tree ("" at its top, "src/" below); None: not in a work tree."""
    prefix = _git(["rev-parse", "--show-prefix"], root, env)
    return None if prefix is None else prefix.strip()


def git_status(root: Path, env) -> str | None:
    """`git status --porcelain` of the project's part of the work tree, run safely; None: git failed."""
    return _git(["status", "--porcelain", "--untracked-files=all", "--", "."], root, env)


def status_paths(before: str, after: str, prefix: str) -> list[str]:
    """The paths (from the root) whose `git status --porcelain` line differs between two snapshots;
    porcelain paths are from the top of the work tree."""
    changed = set(before.splitlines()) ^ set(after.splitlines())
    paths = []
    for line in sorted(changed):
        path = line[3:].split(" -> ")[-1].strip('"')
        if path.startswith(prefix) and path[len(prefix):] not in paths:
            paths.append(path[len(prefix):])
    return paths
