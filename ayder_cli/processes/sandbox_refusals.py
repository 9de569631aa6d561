"""A write the sandbox refused, told as such: the command's output read for "Permission denied"
on a path outside the writable places, or "Read-only file system" in the project's .git, so
the model (and the user) read why, and which key changes it, rather than a bare EACCES.

A path counts only when ayder itself could write it (or its directory): a file the user's
own permissions protect was not refused by the sandbox.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ayder_cli.processes.sandbox import KEY_HINT, READ_ONLY, Sandbox

DENIED = re.compile(r"permission denied|operation not permitted|read-only file system|EACCES|EPERM|EROFS",
                    re.IGNORECASE)
# Paths as tools print them: quoted ('x', "x", ‘x’, `x'), or bare and absolute (/x, ~/x).
QUOTED = re.compile(r"""'([^'\n]+)'|"([^"\n]+)"|‘([^’\n]+)’|`([^'`\n]+)'""")
BARE = re.compile(r"""(?:^|(?<=[\s:=(,]))(~?/[^\s:'",)]+)""")
RELATIVE = re.compile(r"""(?:^|(?<=\s))(\.?[\w.-]*/[^\s:'",)]+)""")
# The shell's own word on a redirection: dash's "/bin/sh: 1: cannot create ../f: Permission denied",
# bash's "/bin/sh: line 1: ../f: Permission denied". The path is as written, from the project root.
SHELL_SAYS = re.compile(r"^\S+: (?:line )?\d+: (?:cannot create |cannot open |can't create |can't open )?(.+?): "
                        r"(?:Permission denied|Read-only file system|Operation not permitted)")
SHOWN_PATHS = 1  # named in the line; the rest are counted
GIT_READ_ONLY = ("the project's .git is read-only to commands, so that nothing they write there runs later; "
                 "run git commands that change it yourself, or set sandbox to off")


def refused_line(sandbox: Sandbox | None, output: str) -> str | None:
    """One line saying which write the sandbox refused, or None when nothing points at it."""
    if sandbox is None or not sandbox.active:
        return None
    lines = [line for line in output.splitlines() if DENIED.search(line)]
    if not lines:
        return None
    places = [_real(path) for path in sandbox.writable()]
    kept = [_real(path) for path in sandbox.read_only()]
    found, in_git, candidates = [], [], 0
    for line in lines:
        redirected = SHELL_SAYS.match(line)
        for given in [redirected.group(1)] if redirected else _paths_in(line):
            candidates += 1
            path = _absolute(given, sandbox, from_root=bool(redirected))
            if path is not None and any(_beneath(path, place) for place in kept):
                in_git += [str(path)] if str(path) not in in_git else []
                continue
            if path is None:  # a name relative to some other directory (rmtree's, by its fd): named as given
                shown = given.strip()
            elif any(_beneath(path, place) for place in places) or not _user_may_write(path):
                continue
            else:
                shown = str(path)
            if shown not in found:
                found.append(shown)
    if in_git and not found:
        return f"sandbox: writing {_named(in_git)} was refused ({GIT_READ_ONLY})"
    read_only = sandbox.mode == READ_ONLY
    fix = "set sandbox to workspace-write, or to off" if read_only else KEY_HINT
    where = "the sandbox is read-only" if read_only else "outside the project"
    if found:
        return f"sandbox: writing {_named(found)} was refused ({where}; {fix})"
    if candidates:
        return None  # the paths named are writable places, or the user's own permissions refused them
    return f"sandbox: a write may have been refused ({where}; if so, {fix})"


def _named(found: list[str]) -> str:
    more = len(found) - SHOWN_PATHS
    return ", ".join(found[:SHOWN_PATHS]) + (f" (and {more} more)" if more > 0 else "")


def _paths_in(line: str) -> list[str]:
    quoted = [next(group for group in match.groups() if group) for match in QUOTED.finditer(line)]
    quoted = [text for text in quoted if "\x00" not in text and text.strip().rstrip(".")]
    rest = QUOTED.sub(" ", line)
    bare = list(BARE.finditer(rest))
    found = quoted + [match.group(1) for match in bare]
    if not found:  # git's "could not lock config file .git/config: ...": a relative path, from the root
        found = RELATIVE.findall(rest)
    if len(found) > 1 and bare[:1] and bare[0].start(1) == 0 and rest[bare[0].end(1):].startswith(":"):
        found.remove(bare[0].group(1))  # "/bin/sh: 1: cannot create x": the program's name, not what it wrote
    return found


def _absolute(given: str, sandbox: Sandbox, from_root: bool = False) -> Path | None:
    """The path, absolute; None for a relative name that is not the project's (so not known where).
    from_root: the name is known to be from the project root (the shell's, where commands start)."""
    given = given.strip() if from_root else given.strip().rstrip(".")
    path = sandbox.expand(given) if given.startswith("~") else Path(given)
    if not path.is_absolute():
        path = sandbox.root / path  # commands run in the project root
        if not from_root and not path.exists() and not ("/" in given and path.parent.is_dir()):
            return None
    return Path(os.path.normpath(path))


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path


def _beneath(path: Path, place: Path) -> bool:
    path = _real(path)
    return path == place or place in path.parents


def _user_may_write(path: Path) -> bool:
    """Whether ayder (unsandboxed, the same user) could write the path, or change its directory."""
    for candidate in (path, *path.parents):
        try:
            if candidate.exists() or candidate.is_symlink():
                break
        except OSError:
            return False
    else:
        return False
    if os.access(candidate, os.W_OK):
        return True
    return candidate == path and os.access(path.parent, os.W_OK)
