"""What a command line would really run, as far as can be known without running it (what_runs):
every simple command unwrapped, recursively, from the commands that only run another one (sudo,
env, timeout, xargs, sh -c, eval, ...), with the directory a cd leaves it in. deny.py judges it.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass, field

from ayder_cli.command_policy import shell_words
from ayder_cli.command_policy.shell_words import SimpleCommand, TooDeep

_TILDE = re.compile(r"~([\w.-]*)(?=/|$)")
# $HOME, ${HOME}, and ${HOME...} forms that give HOME when it is set: ${HOME%/}, ${HOME:-x}, ${HOME-x}, ${HOME?}
_HOME_VARIABLE = re.compile(r"\$HOME(?!\w)|\$\{HOME(?:[:%#/^,@=?-][^}]*)?\}")
_HOME_ALTERNATE = re.compile(r"\$\{HOME:?\+")  # ${HOME+word}: the word, since HOME is set


# --- paths as the shell would expand them


def home_directory() -> str:
    """The directory ~ and $HOME stand for in the commands ayder runs (they inherit its HOME)."""
    return _collapsed(os.path.expanduser("~"))


def _home_of(user: str) -> str:
    if not user:
        return home_directory()
    home = os.path.expanduser("~" + user)
    # An unknown user leaves ~name as it is in the shell; still, it was meant as a home.
    return _collapsed(home) if home.startswith("/") else "/home/" + user


def _collapsed(path: str) -> str:
    return posixpath.normpath(re.sub("/+", "/", path)) if path.startswith("/") else path


def expand_home(text: str) -> tuple[str, set[str]]:
    """The text with ~, ~user, $HOME and ${HOME} replaced as the shell would; and the homes it named."""
    homes = set()
    text = _alternates_taken(text)
    tilde = _TILDE.match(text)
    if tilde:
        homes.add(_home_of(tilde.group(1)))
        text = _home_of(tilde.group(1)) + text[tilde.end():]
    if _HOME_VARIABLE.search(text):
        homes.add(home_directory())
        text = _HOME_VARIABLE.sub(lambda _: home_directory(), text)
    return text, homes


def _alternates_taken(text: str) -> str:
    """${HOME+word} and ${HOME:+word} replaced by their word (which may itself say $HOME)."""
    for _ in range(8):  # nested ones, a few levels; deeper is not a spelling anyone types
        start = _HOME_ALTERNATE.search(text)
        if start is None:
            return text
        at, depth = start.end(), 1
        while at < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            at += 1
        text = text[:start.start()] + text[start.end():at - 1 if depth == 0 else at] + text[at:]
    return text


def normalized_path(text: str, cwd: str | None) -> str | None:
    """An absolute path without // . or ..; None when it cannot be known before the command runs."""
    if "$" in text or "`" in text:  # another variable or a substitution
        return None
    if not text.startswith("/"):
        if cwd is None:  # relative to the project root, wherever that is
            return None
        text = cwd + "/" + text
    return _collapsed(text)


def absolute_path(text: str, cwd: str | None) -> str | None:
    """A word as the path it names: homes expanded, then normalized_path."""
    return normalized_path(expand_home(text)[0], cwd)


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


def built_wrappers() -> dict[str, _Wrapper]:
    """The commands that only run another, by name. WRAPPERS holds them, built once at import; the
    tests build them again, so a mistake in building them is noticed (as for deny.built_rules)."""
    return {
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


WRAPPERS: dict[str, _Wrapper] = built_wrappers()
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

    def _child(self, commands: list[SimpleCommand], depth: int, same_shell: bool) -> None:
        """A child process starts where its parent is, and its cd does not move the parent."""
        cwd = self.cwd
        self._commands(commands, depth)
        if not same_shell:
            self.cwd = cwd

    def _commands(self, commands: list[SimpleCommand], depth: int) -> None:
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
        # A whole command line as one word: sudo -s 'cmd', watch 'cmd'. A blank inside a substitution
        # does not count: `$(which python3) -V` would be itself again; its inner command is judged already.
        if argv and _BLANK.search(_substitutions_removed(argv[0])):
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


def _substitutions_removed(word: str) -> str:
    """The word without its $(...) and `...` (a ${x:-a b} stays: unquoted, its blank splits words)."""
    kept, at = [], 0
    while at < len(word):
        if word.startswith("$(", at):
            at, depth = at + 2, 1
            while at < len(word) and depth:
                depth += (word[at] == "(") - (word[at] == ")")
                at += 1
        elif word[at] == "`":
            end = word.find("`", at + 1)
            at = len(word) if end < 0 else end + 1
        else:
            kept.append(word[at])
            at += 1
    return "".join(kept)


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


def _stdin_scripts(command: SimpleCommand, previous: SimpleCommand | None) -> list[str]:
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
        return home_directory()
    return None if operands[0] == "-" else absolute_path(operands[0], run.cwd)

