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
from ayder_cli.tools.spec import ToolContext
from ayder_cli.tools.git_command import run_git
from ayder_cli.tools.shell import run_shell_command

FILES = "{files}"
GIT_TIMEOUT_S = 10.0
NOT_FOUND = 127  # the shell's exit status for a program it cannot find

# The files each linter reads as its language: handed another (ruff given notes.txt), it reports
# that file's text as broken code, and the model is asked to repair what was never code.
PYTHON = (".py", ".pyi")
SCRIPT = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte")
LINTED = {"ruff": (*PYTHON, ".ipynb"), "flake8": PYTHON, "pylint": PYTHON, "mypy": PYTHON, "pyright": PYTHON,
          "black": PYTHON, "isort": PYTHON, "pyflakes": PYTHON, "eslint": SCRIPT, "tsc": SCRIPT,
          "biome": (*SCRIPT, ".json", ".css"), "gofmt": (".go",), "rustfmt": (".rs",),
          "shellcheck": (".sh", ".bash"), "rubocop": (".rb",), "stylelint": (".css", ".scss", ".less")}


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
    """{files} replaced by the files (those of its language, for a linter known to read one), each quoted for
    the shell; None: the command names {files} and none is left."""
    if FILES not in command:
        return command
    extensions = linted_extensions(command)
    if extensions is not None:
        files = [name for name in files if name.lower().endswith(extensions)]
    if not files:
        return None
    return command.replace(FILES, " ".join(shlex.quote(name) for name in files))


def linted_extensions(command: str) -> tuple[str, ...] | None:
    """The extensions of the linter the command runs on {files} (`uv run ruff check {files}`: ruff's); None
    for any other command."""
    for word in command.partition(FILES)[0].split():
        extensions = LINTED.get(word.rsplit("/", 1)[-1])
        if extensions is not None:
            return extensions
    return None


def missing_program(run: CheckRun) -> str | None:
    """The shell's words when the check's program was not found (exit 127): `sh: 1: ruff: not found`."""
    if run.exit_status != NOT_FOUND:
        return None
    said = [line.strip() for line in run.output.splitlines() if "not found" in line or "No such file" in line]
    return said[0] if said else f"exit status {NOT_FOUND}"


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
