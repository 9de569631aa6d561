"""The shell deny list: commands refused even with -x, because one typo there costs a machine.

It is a seatbelt for the classic accidents, not a sandbox. It judges what would run,
not the text: the command is split the way /bin/sh will split it (shell_words), and
every simple command in it (lists, pipelines, subshells, `{ ...; }`, `$(...)`,
backquotes, here-documents) is unwrapped, recursively, from the commands that only run
another one: sudo, doas, pkexec, env (with -S), nice, ionice, timeout, stdbuf, setsid,
nohup, command, exec, builtin, time, busybox, toybox, xargs, chroot, watch, leading
`VAR=value` words, eval (its arguments are parsed again), sh/bash/dash/zsh/ksh/... -c
and su -c (their strings are parsed again), and a shell fed by echo, printf, a
here-document or a here-string. What is left is judged on its program name (a
directory before it, as in /bin/rm or ./rm, does not matter) and its arguments. Refused:

- rm with -r, -R or --recursive (in any order or cluster, before or after the paths)
  of the root directory, a home directory or a top-level system directory (/usr, /etc,
  /bin, /home, /var, /boot, /lib, /opt, /root, ... and the directory that holds $HOME),
  or of everything in one, however it is spelt: `/` `//` `/.` `/*` `/*/` `~` `~/` `~/*`
  `~user` `$HOME` `${HOME}/*` `"$HOME"`, quoted or not, and relative paths after a `cd`
  to one of them (`cd / && rm -rf *`). A path inside them is fine: `rm -rf ~/project/tmp`,
  `rm -rf /tmp/build`, `rm -rf /usr/local/lib/x`. A quoted `'~'` or `'$HOME'` is refused
  although the shell would take it literally: a refusal costs a retype, a miss a home;
- rm --no-preserve-root; mkfs, mke2fs, mkswap; dd with of= a disk device; a redirection,
  tee, cp or shred onto a disk device;
- chmod, chown or chgrp -R on / or a top-level system directory;
- shutdown, reboot, halt, poweroff, init or telinit 0 or 6, systemctl or loginctl
  poweroff, reboot, halt or kexec;
- a fork bomb (a pattern searched in the command and in every string parsed again, so
  `echo ':(){ :|:& };:'` is refused too);
- commands nested too deeply to be judged (more than shell_words.MAX_DEPTH levels).

What it does not try to catch, because it would have to run the command to know:
- aliases, shell functions defined earlier, and scripts (`./clean.sh`, `sh clean.sh`,
  `make clean`): only the command line is read, never the files it runs;
- program names or arguments computed when it runs: `$(echo rm)`, `"$cmd"`,
  `${x:-rm}`, printf formats, base64, `xxd -r`;
- variables other than HOME: `rm -rf "$DIR/"` with DIR unset, `/home/$USER`,
  `sh -c 'rm -rf "$1"' _ /`; and HOME is taken to be the user's home even where the
  command sets it first;
- arguments that arrive on stdin (`echo / | xargs rm -rf`), and a shell fed by a file,
  `cat` or `curl` rather than by echo, printf or a here-document;
- other ways to destroy files: `find / -delete`, `find ~ -exec rm -rf {} +`,
  `rsync --delete`, `mv ~ /tmp`, `shred` or `truncate` of files, `git clean`, `> file`;
- other interpreters and machines: `python -c`, `perl -e`, `node -e`, `ssh host rm -rf /`;
- relative paths that climb out of the project (`rm -rf ../..`): the project root is not
  assumed to be anywhere, so only a cd made in the same command line is followed (one
  inside `( ... )` is taken to last after it; one inside `sh -c` or `$(...)` is not);
- wrappers not listed above (strace, flock, nsenter, systemd-run, parallel, ...).

Patterns the user adds under `tools.shell_deny` are Python regular expressions searched
in the command text, with `^` and `$` matching at each line. The built-in rules sit in
the same tuple (DEFAULT_SHELL_DENY) under names that start with "ayder:".
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

from ayder_cli.tools import shell_words
from ayder_cli.tools.base import ToolError
from ayder_cli.tools.shell_words import Command, TooDeep

# --- what a target is

ROOT, HOME, SYSTEM = "root", "home", "system"
SYSTEM_DIRECTORIES = frozenset(
    "/bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /media /mnt /nix /opt /proc /root /run /sbin /snap "
    "/srv /sys /usr /var /Applications /Library /System /Users /Volumes /private".split())
HOMES_PARENTS = ("/home", "/Users")  # a directory right inside them is somebody's home
_TILDE = re.compile(r"~([\w.-]*)(?=/|$)")
_HOME_VARIABLE = re.compile(r"\$HOME(?!\w)|\$\{HOME(?:[:%#/^,@][^}]*)?\}")
_GLOB = re.compile(r"[*?[]|\{[^}]*(?:,|\.\.)[^}]*\}")
_MATCHES_ALL = re.compile(r"[.*?]*\*[.*?]*")  # *, .*, *.*: a glob that takes everything in its directory
_DISK = re.compile(r"/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|dm-\d|md\d|mapper/|disk/|root$)")


def _home() -> str:
    """The directory ~ and $HOME stand for in the commands ayder runs (they inherit its HOME)."""
    return _collapsed(os.path.expanduser("~"))


def _home_of(user: str) -> str:
    if not user:
        return _home()
    home = os.path.expanduser("~" + user)
    # An unknown user leaves ~name as it is in the shell; still, it was meant as a home.
    return _collapsed(home) if home.startswith("/") else "/home/" + user


def _collapsed(path: str) -> str:
    return posixpath.normpath(re.sub("/+", "/", path)) if path.startswith("/") else path


def _expanded(text: str) -> tuple[str, set[str]]:
    """The text with ~, ~user, $HOME and ${HOME} replaced as the shell would; and the homes it named."""
    homes = set()
    tilde = _TILDE.match(text)
    if tilde:
        homes.add(_home_of(tilde.group(1)))
        text = _home_of(tilde.group(1)) + text[tilde.end():]
    if _HOME_VARIABLE.search(text):
        homes.add(_home())
        text = _HOME_VARIABLE.sub(lambda _: _home(), text)
    return text, homes


def _normalized(text: str, cwd: str | None) -> str | None:
    """An absolute path without // . or ..; None when it cannot be known before the command runs."""
    if "$" in text or "`" in text:  # another variable or a substitution
        return None
    if not text.startswith("/"):
        if cwd is None:  # relative to the project root, wherever that is
            return None
        text = cwd + "/" + text
    return _collapsed(text)


def _absolute(text: str, cwd: str | None) -> str | None:
    return _normalized(_expanded(text)[0], cwd)


def target_kind(target: str, cwd: str | None = None) -> str | None:
    """ROOT, HOME or SYSTEM when deleting the target takes that directory or all that is in it; else None."""
    text, homes = _expanded(target)
    path = _normalized(text, cwd)
    if path is None:
        return None
    homes.add(_home())
    parts = [part for part in path.split("/") if part]
    for at, part in enumerate(parts):
        if _GLOB.search(part):
            takes_all = _MATCHES_ALL.fullmatch(part) is not None and at == len(parts) - 1
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
    path = _absolute(target, cwd)
    return path is not None and _DISK.match(path) is not None


# --- what would run


@dataclass(frozen=True)
class Run:
    """One program as it would run: its name, arguments, redirections, and the directory a cd left it in."""

    name: str
    args: tuple[str, ...]
    redirects: tuple[tuple[str, str], ...] = ()  # (operator, target)
    cwd: str | None = None  # absolute when a cd earlier in the command line says; None: the project root


@dataclass(frozen=True)
class _Wrapper:
    """A command that only runs another: how its options look, and what stands between them and the command."""

    values: str = ""  # short options whose value is attached or the next word (sudo -u root)
    long_values: frozenset[str] = frozenset()  # long options whose value may be the next word
    attached: str = ""  # short options whose value can only be attached (xargs -i{})
    operands: int = 0  # words between the options and the command: timeout's duration, chroot's root
    split: frozenset[str] = frozenset()  # options whose value is split into the command's first words (env -S)

    def command_after(self, args: list[str]) -> list[str]:
        at, front = 0, []
        while at < len(args) and args[at].startswith("-"):
            arg = args[at]
            at += 1
            if arg == "--":
                break
            name, value, at = self._option(arg, args, at)
            if name in self.split and value:
                front = value.split()
        return front + args[at + self.operands:]

    def _option(self, arg: str, args: list[str], at: int) -> tuple[str, str, int]:
        """The option's name, its value, and where the next word is."""
        if arg.startswith("--"):
            name, equals, value = arg[2:].partition("=")
            if not equals and name in self.long_values and at < len(args):
                return name, args[at], at + 1
            return name, value, at
        for end, letter in enumerate(arg[1:], start=2):
            if letter in self.attached:
                return letter, arg[end:], at
            if letter in self.values:
                if end < len(arg):
                    return letter, arg[end:], at
                return letter, (args[at] if at < len(args) else ""), at + 1
        return arg[1:], "", at


def _long(names: str) -> frozenset[str]:
    return frozenset(names.split())


WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _Wrapper("ugpCDrtUTR", _long("user group prompt close-from chdir role type other-user "
                                         "command-timeout chroot host")),
    "doas": _Wrapper("uC"),
    "pkexec": _Wrapper(long_values=_long("user")),
    "env": _Wrapper("uCS", _long("unset chdir split-string"), split=_long("S split-string")),
    "nice": _Wrapper("n", _long("adjustment")),
    "ionice": _Wrapper("cnpPu", _long("class classdata pid pgid uid")),
    "timeout": _Wrapper("sk", _long("signal kill-after"), operands=1),
    "stdbuf": _Wrapper("ioe", _long("input output error")),
    "setsid": _Wrapper(),
    "nohup": _Wrapper(),
    "command": _Wrapper(),
    "exec": _Wrapper("a"),
    "builtin": _Wrapper(),
    "time": _Wrapper("fo", _long("format output")),
    "busybox": _Wrapper(),
    "toybox": _Wrapper(),
    "xargs": _Wrapper("adEILnPs", _long("arg-file delimiter max-lines max-args max-procs max-chars "
                                        "process-slot-var"), attached="eil"),
    "chroot": _Wrapper(operands=1),
    "watch": _Wrapper("n", _long("interval"), attached="d"),
}
SHELLS = frozenset("sh bash dash zsh ksh mksh pdksh lksh ash yash posh fish csh tcsh".split())
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*\+?=")
_BLANK = re.compile(r"[ \t\n]")


@dataclass
class WhatRuns:
    """Every program a command line would run, in order, and every text a shell would parse on the way."""

    runs: list[Run] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # the command line, then eval's and sh -c's strings
    too_deep: bool = False
    cwd: str | None = None  # where the last cd went, while walking

    def script(self, text: str, depth: int, same_shell: bool = True) -> None:
        """Text a shell parses: the command line, eval's arguments, the string of sh -c (a child shell)."""
        self.texts.append(text)
        self._child(shell_words.parse(text, depth), depth, same_shell)

    def _child(self, commands: list[Command], depth: int, same_shell: bool) -> None:
        """A child process starts where its parent is, and its cd does not move the parent."""
        cwd = self.cwd
        self._commands(commands, depth)
        if not same_shell:
            self.cwd = cwd

    def _commands(self, commands: list[Command], depth: int) -> None:
        previous = None
        for command in commands:
            for inner in command.inner_scripts():
                self._child(inner, depth + 1, same_shell=False)
            redirects = tuple((redirect.op, redirect.target.text) for redirect in command.redirects)
            self._unwrap(command.argv, redirects, _stdin_scripts(command, previous), depth)
            previous = command

    def _unwrap(self, argv: list[str], redirects: tuple[tuple[str, str], ...], stdin: list[str],
                depth: int) -> None:
        """Peel the commands that only run another one; add what is left; parse the scripts it runs."""
        name = ""
        while True:
            argv = _without_assignments(argv)
            name = program_name(argv[0]) if argv else ""
            if name not in WRAPPERS:
                break
            argv = WRAPPERS[name].command_after(argv[1:])
        self._add(Run(name, tuple(argv[1:]), redirects, self.cwd))
        if argv and _BLANK.search(argv[0]):  # a whole command line as one word: sudo -s 'cmd', watch 'cmd'
            self.script(" ".join(argv), depth + 1, same_shell=False)
        for text, same_shell in _scripts_run_by(name, argv[1:], stdin):
            self.script(text, depth + 1, same_shell)

    def _add(self, run: Run) -> None:
        self.runs.append(run)
        if run.name in ("cd", "pushd", "popd"):
            self.cwd = _directory_after_cd(run)


def what_runs(command: str) -> WhatRuns:
    """What the command line would run, as far as it can be known without running it."""
    found = WhatRuns()
    try:
        found.script(command, 0)
    except TooDeep:
        found.too_deep = True
    return found


def program_name(word: str) -> str:
    """The program a command word names: /bin/rm and ./rm are rm."""
    return word.rsplit("/", 1)[-1]


def _without_assignments(argv: list[str]) -> list[str]:
    at = 0
    while at < len(argv) and _ASSIGNMENT.match(argv[at]):
        at += 1
    return argv[at:]


def _scripts_run_by(name: str, args: list[str], stdin: list[str]) -> list[tuple[str, bool]]:
    """The texts this program parses as shell commands, each with whether it runs in the same shell."""
    if name == "eval":
        return [(" ".join(args), True)]
    if name in SHELLS:
        with_c, operands = _shell_operands(args)
        scripts = operands[:1] if with_c else ([] if operands else stdin)
        return [(script, False) for script in scripts]
    if name in ("su", "runuser"):
        return [(script, False) for script in _su_scripts(args)]
    return []


def _shell_operands(args: list[str]) -> tuple[bool, list[str]]:
    """Whether the shell got -c (in any cluster: -ec, -lc), and the words after its options."""
    at, with_c = 0, False
    while at < len(args) and args[at][:1] in ("-", "+") and args[at] not in ("-", "+"):
        arg = args[at]
        at += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            at += arg[2:] in ("rcfile", "init-file")  # their value is the next word
            continue
        with_c = with_c or "c" in arg[1:]
        at += arg[-1] in "oO"  # -o errexit, +O extglob
    if at < len(args) and args[at] in ("-", "+"):
        at += 1
    return with_c, args[at:]


def _su_scripts(args: list[str]) -> list[str]:
    """su -c 'cmd', su --command=cmd, su root -c cmd."""
    scripts = []
    for at, arg in enumerate(args):
        if arg.startswith("--command="):
            scripts.append(arg.partition("=")[2])
        elif arg == "--command" or (arg[:1] == "-" and arg[1:2] != "-" and arg.endswith("c")):
            scripts.extend(args[at + 1:at + 2])
    return scripts


def _stdin_scripts(command: Command, previous: Command | None) -> list[str]:
    """What a shell reading its standard input would read: a here-document, a here-string, echo's words."""
    scripts = [redirect.target.heredoc if redirect.op != "<<<" else redirect.target.text
               for redirect in command.redirects if redirect.op in ("<<", "<<-", "<<<")]
    if previous is not None and command.after in ("|", "|&"):
        scripts.extend(_echoed(previous.argv))
    return [script for script in scripts if script]


def _echoed(argv: list[str]) -> list[str]:
    name, args = (program_name(argv[0]), argv[1:]) if argv else ("", [])
    if name == "echo":
        while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
            args = args[1:]
        return [" ".join(args).replace("\\n", "\n")]
    if name == "printf":
        return [arg.replace("\\n", "\n") for arg in args]
    return []


def _directory_after_cd(run: Run) -> str | None:
    operands = [arg for arg in run.args if not (arg.startswith("-") and len(arg) > 1)]
    if run.name == "popd" or (not operands and run.name == "pushd"):
        return None
    if not operands:
        return _home()
    return None if operands[0] == "-" else _absolute(operands[0], run.cwd)


# --- the rules


def _options_and_operands(args: Iterable[str]) -> tuple[list[str], list[str]]:
    """GNU style: options may come anywhere before `--`; everything after it is an operand."""
    options: list[str] = []
    operands: list[str] = []
    rest = iter(args)
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


FORK_BOMB_PATTERN = re.compile(r"(?<![\w:.-])([\w:.-]+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&")


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

RULES: dict[str, Callable[[WhatRuns], bool]] = {
    RM_ROOT: _any_run(_rm_deletes(ROOT)),
    RM_HOME: _any_run(_rm_deletes(HOME)),
    RM_SYSTEM_DIRECTORY: _any_run(_rm_deletes(SYSTEM)),
    RM_NO_PRESERVE_ROOT: _any_run(_rm_no_preserve_root),
    MKFS: _any_run(_formats),
    DD_TO_DISK: _any_run(_dd_to_disk),
    WRITE_TO_DISK: _any_run(_writes_to_disk),
    FORK_BOMB: lambda found: any(FORK_BOMB_PATTERN.search(text) for text in found.texts),
    CHMOD_ROOT: _any_run(_changes_every_file(("chmod",))),
    CHOWN_ROOT: _any_run(_changes_every_file(("chown", "chgrp"))),
    POWER_OFF: _any_run(_powers_off),
    TOO_DEEP: lambda found: found.too_deep,
}

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
    TOO_DEEP: f"it nests commands more than {shell_words.MAX_DEPTH} deep, too deep to be judged",
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
