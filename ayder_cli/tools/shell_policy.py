"""The shell deny list: commands that are refused even with -x, because one typo there costs a machine.

It is a seatbelt for the classic accidents, not a sandbox: a command written to get
around it (an alias, a script, base64) will get around it. Patterns are Python
regular expressions searched anywhere in the command, with `^` and `$` matching at
each line. Most match only where a command starts (the start of a line, after
`;` `&` `|` `(` `{` `` ` `` `$(`, after `sudo`/`env`/`xargs`/..., or inside
`sh -c "..."`), so `echo rm -rf /` and `git commit -m "reboot"` are not refused,
while `echo $(rm -rf /)` and `bash -c 'rm -rf /'` are.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from ayder_cli.tools.base import ToolError

# Where a command starts, then words that run the command after them.
_START = r"(?:^|[;&|({`]|\$\(|\b(?:ba|da|k|z)?sh\s+-\w*c\w*\s+[\"']?)\s*"
_PREFIX = (r"(?:(?:sudo|doas|exec|nohup|command|builtin|env|time|nice|xargs|if|then|else|do|while|until|!)"
           r"(?:\s+-\S+)*\s+|\w+=\S*\s+)*")
_CMD = _START + _PREFIX + r"(?:[\w.~-]*/)*"  # ... and an optional directory before the command name
_END = r"(?=[\s;&|)`\"']|$)"  # the word ends here
_ARGS = r"(?:[^\s;&|]+[ \t]+)*?"  # any arguments of the same command
_ROOT_OR_HOME = r"[\"']?(?:/+\*?|~/?\*?|\$\{?HOME\}?/?\*?)[\"']?"  # / /* ~ ~/ ~/* $HOME ${HOME}/* "$HOME"
_BLOCK_DEVICE = r"/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d)"
_RECURSIVE = r"(?=[^;&|\n]*\s(?:-\w*R|--recursive)\b)"
_ROOT_TARGET = r"(?=[^;&|\n]*\s[\"']?/+\*?[\"']?(?:[\s;&|)]|$))"

RM_ROOT_OR_HOME = _CMD + r"rm[ \t]+" + _ARGS + _ROOT_OR_HOME + _END
RM_NO_PRESERVE_ROOT = _CMD + r"rm\b[^;&|\n]*--no-preserve-root"
RM_ALL_AFTER_CD = (_CMD + r"cd[ \t]+" + _ROOT_OR_HOME + r"[ \t]*(?:&&|;)[ \t]*"
                   + r"(?:[\w.~-]*/)*rm[ \t]+-\S*[rR]\S*[ \t]+" + _ARGS + r"\*")
MKFS = _CMD + r"mkfs(?:\.\w+)?" + _END
DD_TO_DISK = _CMD + r"dd\b[^;&|\n]*\bof=[\"']?" + _BLOCK_DEVICE
REDIRECT_TO_DISK = r">[ \t]*[\"']?" + _BLOCK_DEVICE
FORK_BOMB = r"(?<![\w:.-])([\w:.-]+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&"
CHMOD_ROOT = _CMD + r"chmod" + _END + _RECURSIVE + _ROOT_TARGET
CHOWN_ROOT = _CMD + r"ch(?:own|grp)" + _END + _RECURSIVE + _ROOT_TARGET
POWER_OFF = (_CMD + r"(?:(?:systemctl[ \t]+" + _ARGS + r")?(?:shutdown|reboot|halt|poweroff)|(?:tel)?init[ \t]+[06])"
             + _END)

REASONS: dict[str, str] = {
    RM_ROOT_OR_HOME: "it deletes the root or home directory",
    RM_NO_PRESERVE_ROOT: "rm --no-preserve-root deletes the root directory",
    RM_ALL_AFTER_CD: "it deletes everything in the root or home directory",
    MKFS: "mkfs formats a disk",
    DD_TO_DISK: "dd onto a disk device overwrites the disk",
    REDIRECT_TO_DISK: "writing to a disk device overwrites the disk",
    FORK_BOMB: "it is a fork bomb",
    CHMOD_ROOT: "chmod -R on / changes every file on the system",
    CHOWN_ROOT: "chown -R on / changes every file on the system",
    POWER_OFF: "it shuts down or restarts the machine",
}

DEFAULT_SHELL_DENY: tuple[str, ...] = tuple(REASONS)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def denied_by(command: str, patterns: Iterable[str]) -> str | None:
    """The first pattern that matches the command, or None if it may run."""
    for pattern in patterns:
        if _compiled(pattern).search(command):
            return pattern
    return None


def check_command(command: str, patterns: Iterable[str]) -> None:
    """Refuse an empty command or one on the deny list: ToolError says why."""
    if not command.strip():
        raise ToolError("the command is empty")
    pattern = denied_by(command, patterns)
    if pattern is not None:
        raise ToolError(refusal(command, pattern))


def refusal(command: str, pattern: str) -> str:
    """Why a command was refused, in words for the model and the user."""
    reason = REASONS.get(pattern, f"it matches the pattern `{pattern}`")
    shown = command.strip().replace("\n", " ")
    shown = shown if len(shown) <= 80 else shown[:79] + "…"
    return (f"refused: `{shown}` is on the shell deny list ({reason}); it is never run, even with -x. "
            "Do not retry it; if the user really wants it, they must run it themselves "
            "(the list is tools.shell_deny in the config)")
