"""The shell deny list: commands refused even with -x, because one typo there costs a machine.

A seatbelt for the classic accidents, not a sandbox: the built-in rules judge what would
run (what_runs.py), so quoting, wrappers and nesting do not get a command past them; what
only running the command would tell is not guessed at. What is refused and what is not:
the README, "Safety". A user's pattern under `tools.shell_deny` is a regular expression
searched in the command text, with `^` and `$` matching at each line; the built-in rules
sit in the same tuple (DEFAULT_SHELL_DENY) under names that start with "ayder:".
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Callable, Iterable

from ayder_cli.errors import ToolError
from ayder_cli.command_policy.braces import expand_braces
from ayder_cli.command_policy.fork_bomb import is_fork_bomb
from ayder_cli.command_policy.shell_words import MAX_DEPTH, TooDeep
from ayder_cli.command_policy.what_runs import (
    Run,
    WhatRuns,
    absolute_path,
    expand_home,
    home_directory,
    normalized_path,
    what_runs,
)

# --- what a target is

ROOT, HOME, SYSTEM = "root", "home", "system"
SYSTEM_DIRECTORIES = frozenset(
    "/bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /media /mnt /nix /opt /proc /root /run /sbin /snap "
    "/srv /sys /usr /var /Applications /Library /System /Users /Volumes /private".split())
HOMES_PARENTS = ("/home", "/Users")  # a directory right inside them is somebody's home
_GLOB = re.compile(r"[*?[]|\{[^}]*(?:,|\.\.)[^}]*\}")
_MATCHES_ALL = re.compile(r"[.*?]*\*[.*?]*")  # *, .*, *.*: a glob that takes everything in its directory
_BRACKET = re.compile(r"\[[!^]?\]?[^]]*\]")  # [!.], [a-z]: one character, for _MATCHES_ALL like `?`
_DISK = re.compile(r"/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|dm-\d|md\d|mapper/|disk/|root$)")


def target_kind(target: str, cwd: str | None = None) -> str | None:
    """ROOT, HOME or SYSTEM when deleting the target takes that directory or all that is in it; else None."""
    text, homes = expand_home(target)
    path = normalized_path(text, cwd)
    if path is None:
        return None
    homes.add(home_directory())
    parts = [part for part in path.split("/") if part]
    for at, part in enumerate(parts):
        if _GLOB.search(part):
            takes_all = _MATCHES_ALL.fullmatch(_BRACKET.sub("?", part)) is not None and at == len(parts) - 1
            if at == 0:  # a glob right under / takes top-level system directories
                return ROOT if takes_all else SYSTEM
            return _directory_kind("/" + "/".join(parts[:at]), homes) if takes_all else None
    return _directory_kind(path, homes)


def _directory_kind(path: str, homes: set[str]) -> str | None:
    if path == "/":
        return ROOT
    if path in homes or posixpath.dirname(path) in HOMES_PARENTS:
        return HOME
    if path in SYSTEM_DIRECTORIES or path in {posixpath.dirname(home) for home in homes}:
        return SYSTEM
    return None


def _is_disk(target: str, cwd: str | None) -> bool:
    path = absolute_path(target, cwd)
    return path is not None and _DISK.match(path) is not None


# --- the rules


def _options_and_operands(args: Iterable[str]) -> tuple[list[str], list[str]]:
    """GNU style: options may come anywhere before `--`; everything after it is an operand.
    Braces are expanded first, as bash would: `rm -rf {/,}` is `rm -rf /`."""
    options: list[str] = []
    operands: list[str] = []
    rest = iter([expanded for arg in args for expanded in expand_braces(arg) if expanded])
    for arg in rest:
        if arg == "--":
            operands.extend(rest)
        elif arg.startswith("-") and arg != "-":
            options.append(arg)
        else:
            operands.append(arg)
    return options, operands


def _has_option(options: list[str], letters: str, long: str, shortest: int) -> bool:
    """A short option among `letters` (alone or in a cluster: -rf), or `long` abbreviated to `shortest` or more."""
    for option in options:
        if option.startswith("--"):
            if len(option) >= shortest and long.startswith(option):
                return True
        elif any(letter in letters for letter in option[1:]):
            return True
    return False


def _rm_deletes(kind: str) -> Callable[[Run], bool]:
    def deletes(run: Run) -> bool:
        if run.name != "rm":
            return False
        options, operands = _options_and_operands(run.args)
        return (_has_option(options, "rR", "--recursive", 3)
                and any(target_kind(operand, run.cwd) == kind for operand in operands))
    return deletes


def _rm_no_preserve_root(run: Run) -> bool:
    return run.name == "rm" and _has_option(_options_and_operands(run.args)[0], "", "--no-preserve-root", 3)


def _formats(run: Run) -> bool:
    return re.fullmatch(r"mkfs(?:\.\w+)?|mke2fs|mkswap|mkdosfs|mkntfs", run.name) is not None


def _dd_to_disk(run: Run) -> bool:
    return run.name == "dd" and any(arg.startswith("of=") and _is_disk(arg[3:], run.cwd) for arg in run.args)


def _writes_to_disk(run: Run) -> bool:
    writes = (">", ">>", ">|", "<>", "&>", "&>>", ">&")
    if any(op in writes and _is_disk(target, run.cwd) for op, target in run.redirects):
        return True
    operands = _options_and_operands(run.args)[1]
    if run.name in ("tee", "shred"):
        return any(_is_disk(operand, run.cwd) for operand in operands)
    return run.name == "cp" and bool(operands) and _is_disk(operands[-1], run.cwd)


def _changes_every_file(names: tuple[str, ...]) -> Callable[[Run], bool]:
    def changes(run: Run) -> bool:
        if run.name not in names:
            return False
        options, operands = _options_and_operands(run.args)
        return (_has_option(options, "R", "--recursive", 5)
                and any(target_kind(operand, run.cwd) in (ROOT, SYSTEM) for operand in operands))
    return changes


_POWER_VERBS = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})


def _powers_off(run: Run) -> bool:
    if run.name in ("shutdown", "reboot", "halt", "poweroff"):
        return True
    if run.name in ("init", "telinit"):
        return run.args[:1] in (("0",), ("6",))
    if run.name in ("systemctl", "loginctl"):
        verbs = [arg for arg in run.args if not arg.startswith("-")]
        return bool(verbs) and verbs[0] in _POWER_VERBS
    return False


def _defines_a_fork_bomb(found: WhatRuns) -> bool:
    try:
        return any(is_fork_bomb(text) for text in found.texts)
    except TooDeep:  # refused by TOO_DEEP, after the rules that could name the harm
        found.too_deep = True
        return False


def _any_run(check: Callable[[Run], bool]) -> Callable[[WhatRuns], bool]:
    return lambda found: any(check(run) for run in found.runs)


RM_ROOT = "ayder:rm-root"
RM_HOME = "ayder:rm-home"
RM_SYSTEM_DIRECTORY = "ayder:rm-system-directory"
RM_NO_PRESERVE_ROOT = "ayder:rm-no-preserve-root"
MKFS = "ayder:mkfs"
DD_TO_DISK = "ayder:dd-to-disk"
WRITE_TO_DISK = "ayder:write-to-disk"
FORK_BOMB = "ayder:fork-bomb"
CHMOD_ROOT = "ayder:chmod-root"
CHOWN_ROOT = "ayder:chown-root"
POWER_OFF = "ayder:power-off"
TOO_DEEP = "ayder:too-deep"


def built_rules() -> dict[str, Callable[[WhatRuns], bool]]:
    """The built-in rules by name, each made by its factory. RULES holds them, built once at import;
    the tests build them again, so a factory that breaks is noticed (a mutation run cannot see a
    change in code that only ran at import)."""
    return {
        RM_ROOT: _any_run(_rm_deletes(ROOT)),
        RM_HOME: _any_run(_rm_deletes(HOME)),
        RM_SYSTEM_DIRECTORY: _any_run(_rm_deletes(SYSTEM)),
        RM_NO_PRESERVE_ROOT: _any_run(_rm_no_preserve_root),
        MKFS: _any_run(_formats),
        DD_TO_DISK: _any_run(_dd_to_disk),
        WRITE_TO_DISK: _any_run(_writes_to_disk),
        FORK_BOMB: _defines_a_fork_bomb,
        CHMOD_ROOT: _any_run(_changes_every_file(("chmod",))),
        CHOWN_ROOT: _any_run(_changes_every_file(("chown", "chgrp"))),
        POWER_OFF: _any_run(_powers_off),
        TOO_DEEP: lambda found: found.too_deep,
    }


RULES: dict[str, Callable[[WhatRuns], bool]] = built_rules()

REASONS: dict[str, str] = {
    RM_ROOT: "it deletes the root directory, everything on the machine",
    RM_HOME: "it deletes the home directory or everything in it",
    RM_SYSTEM_DIRECTORY: "it deletes a top-level system directory such as /usr, /etc or /home",
    RM_NO_PRESERVE_ROOT: "rm --no-preserve-root deletes the root directory",
    MKFS: "it formats a disk",
    DD_TO_DISK: "dd onto a disk device overwrites the disk",
    WRITE_TO_DISK: "writing to a disk device overwrites the disk",
    FORK_BOMB: "it is a fork bomb",
    CHMOD_ROOT: "chmod -R on / or a system directory changes every file under it",
    CHOWN_ROOT: "chown -R on / or a system directory changes the owner of every file under it",
    POWER_OFF: "it shuts down or restarts the machine",
    TOO_DEEP: f"it nests commands more than {MAX_DEPTH} deep, too deep to be judged",
}

DEFAULT_SHELL_DENY: tuple[str, ...] = tuple(RULES)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def denied_by(command: str, patterns: Iterable[str]) -> str | None:
    """The first rule or pattern that refuses the command, or None if it may run.

    A built-in rule (a name in RULES) judges what would run; anything else is a user's
    regular expression, searched in the command text.
    """
    found = None
    for pattern in patterns:
        rule = RULES.get(pattern)
        if rule is None:
            if _compiled(pattern).search(command):
                return pattern
            continue
        if found is None:  # parsed once, for all the rules
            found = what_runs(command)
        if rule(found):
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

