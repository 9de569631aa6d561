"""git as ayder runs it itself (not for the model): the one home for its command line.

A cloned project's .git/config is the project's, not the user's: it can name programs git
runs on its own, even for `git status` (core.fsmonitor; a filter's clean command, run for a
file whose index entry looks stale; hooks). So every git call ayder makes turns them off
and runs in a process group of its own under one deadline, with no pager, prompt or editor.
A submodule's config is its own, and the filter drivers it names are not listed here: so
`git status` never descends into submodules, and no remote is ever reached (ssh commands,
credential helpers and remote helpers stay unrun).

A commit the user asked for (/commit, auto_commit) is the one exception: there the repository's
hooks and filter drivers run, as in the user's own `git commit` (a pre-commit hook may refuse it;
git-lfs's clean filter turns a file into its pointer); everything else stays off.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

from ayder_cli.processes.process_groups import kill_group

# Set with -c, which outranks every config file.
NO_HOOKS = "core.hooksPath=/dev/null"
SAFE_CONFIG = (
    "core.fsmonitor=false",
    NO_HOOKS,
    "core.pager=cat",
    "core.editor=true",
    "core.askPass=true",
    "protocol.allow=never",  # ayder's git never fetches: no ssh command, credential or remote helper
)
NO_SUBMODULES = "--ignore-submodules=all"  # status would run a `git status` in each, under its own config
SAFE_ENV = {
    "GIT_OPTIONAL_LOCKS": "0",  # no index.lock: a status never competes with the user's git
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_ASKPASS": "true",
    "LC_ALL": "C",  # messages ayder reads are in English
}
# A commit's: the hooks it runs print in the user's language.
COMMIT_ENV = {name: value for name, value in SAFE_ENV.items() if name != "LC_ALL"}
# A filter driver's programs, emptied: an empty command is no filter; required=false so none is missed.
FILTER_OFF = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))
# Commands that read only git's own records (HEAD, refs, the config), never a file of the work tree, so
# no filter driver can run: the drivers are not listed first (one git process instead of two).
READ_NO_WORK_TREE = frozenset({"rev-parse", "symbolic-ref"})


class GitDone(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def git_argv(args: Sequence[str], hooks: bool = False) -> list[str]:
    argv = ["git", "--no-optional-locks"]
    for setting in SAFE_CONFIG:
        if not (hooks and setting == NO_HOOKS):
            argv += ["-c", setting]
    args = list(args)
    if args[:1] == ["status"]:
        args.insert(1, NO_SUBMODULES)
    return argv + args


def may_be_a_repository(cwd: Path, env: Mapping[str, str] | None = None) -> bool:
    """False when git would surely say "not a git repository": no GIT_DIR or GIT_WORK_TREE, and neither
    cwd nor a folder above it holds a `.git` or is a bare repository (HEAD, objects/, refs/), the places
    git looks. Asking saves starting git twice where there is nothing to find."""
    env = os.environ if env is None else env
    if env.get("GIT_DIR") or env.get("GIT_WORK_TREE"):
        return True
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git") or all(
                os.path.exists(folder / name) for name in ("HEAD", "objects", "refs")):
            return True
    return False


def run_git(args: Sequence[str], cwd: Path, timeout_s: float, env: Mapping[str, str] | None = None,
            *, as_commit: bool = False) -> GitDone:
    """`git args` in cwd, safely, all within timeout_s. env: the environment to start from (None:
    ayder's own); as_commit: the repository's hooks and filters run (a commit the user asked for).
    Raises FileNotFoundError (no git), subprocess.TimeoutExpired, OSError."""
    deadline = time.monotonic() + timeout_s
    if as_commit:
        return _run(git_argv(args, hooks=True), cwd, {**(os.environ if env is None else env), **COMMIT_ENV}, deadline)
    base = {**(os.environ if env is None else env), **SAFE_ENV}
    if args[0] in READ_NO_WORK_TREE:
        return _run(git_argv(args), cwd, base, deadline)
    listed = _run(git_argv(["config", "--null", "--get-regexp", r"^filter\."]), cwd, base, deadline)
    drivers = _filter_drivers(listed.stdout) if listed.returncode == 0 else []
    return _run(git_argv(args), cwd, _with_filters_off(base, drivers), deadline)


def _run(argv: list[str], cwd: Path, env: Mapping[str, str], deadline: float) -> GitDone:
    process = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
    except (subprocess.TimeoutExpired, KeyboardInterrupt):  # Ctrl-C during a long hook: it stops too
        kill_group(process, grace_s=0.2)  # and whatever it started, which may hold the pipes
        for pipe in (process.stdout, process.stderr):
            pipe.close()
        raise
    return GitDone(process.returncode, stdout, stderr)


def _filter_drivers(listing: str) -> list[str]:
    """The driver names in `git config --null --get-regexp` output ("filter.NAME.VAR\\nvalue\\0"...)."""
    names = []
    for record in listing.split("\0"):
        key = record.partition("\n")[0]
        name = key.removeprefix("filter.").rpartition(".")[0]
        if key.startswith("filter.") and name and name not in names:
            names.append(name)
    return names


def _with_filters_off(env: dict[str, str], drivers: list[str]) -> dict[str, str]:
    """env with each driver emptied through GIT_CONFIG_COUNT (keys and values apart: a name may hold '=')."""
    if not drivers:
        return env
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    env = dict(env)
    for name in drivers:
        for var, value in FILTER_OFF:
            env[f"GIT_CONFIG_KEY_{count}"] = f"filter.{name}.{var}"
            env[f"GIT_CONFIG_VALUE_{count}"] = value
            count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env
