"""Whether a command line defines a fork bomb: functions that start themselves again, twice or more,
in new processes, with no condition that could stop them.

`:(){ :|:& };:` is the famous spelling; any name, spacing, `function f { ... }`, a subshell
body `f() ( ... )`, `f|f` without `&`, `f& f&` and two functions calling each other are the
same bomb. A recursive function with a base case (`if`, `case`, `&&`, `||`) is not refused.
"""

from __future__ import annotations

import re
from typing import Iterator

from ayder_cli.command_policy import shell_words
from ayder_cli.command_policy.shell_words import SimpleCommand, TooDeep

_NAME = r"[^\s;&|()<>'\"\\$`{}]+"
_DEFINITION = re.compile(rf"(?<![^\s;&|(){{}}])(?:function\s+({_NAME})\s*(?:\(\s*\))?|({_NAME})\s*\(\s*\))\s*([{{(])")
_CONDITION = re.compile(r"(?<![\w-])(?:if|case)(?![\w-])|&&|\|\|")
_FORKS = re.compile(r"[|&`(]")  # a pipe, &, a subshell or a substitution: a new process
_PAIRS = {"}": "{", ")": "("}
BUDGET = 65536  # body characters read beyond the text's own length: only nesting spends it


def is_fork_bomb(text: str) -> bool:
    """Whether the text defines a function that, once called, multiplies its processes without end.

    Raises TooDeep when function bodies nest so deep that reading each would cost too much.
    """
    calls: dict[str, list[str]] = {}  # each function that could multiply: the defined names its body runs
    names = set()
    closing = _closing_positions(text)
    budget = BUDGET + len(text)  # bodies side by side never exceed it; bodies inside bodies may
    for match in _DEFINITION.finditer(text):
        name = match.group(1) or match.group(2)
        names.add(name)
        opening = match.end(3) - 1
        body = text[opening + 1:closing.get(opening, len(text))]
        budget -= len(body)
        if budget < 0:
            raise TooDeep("function definitions nested too deep to judge")
        if (match.group(3) == "(" or _FORKS.search(body)) and not _CONDITION.search(body):
            calls[name] = _programs(body)
    return any(_multiplies(name, calls, names) for name in calls)


def _closing_positions(text: str) -> dict[int, int]:
    """For each { and ( of the text, where the one closing it is (quotes are not read: a bomb has none)."""
    closing, opened = {}, []
    for at, char in enumerate(text):
        if char in "{(":
            opened.append(at)
        elif char in _PAIRS:
            while opened and text[opened[-1]] != _PAIRS[char]:
                opened.pop()
            if opened:
                closing[opened.pop()] = at
    return closing


def _programs(body: str) -> list[str]:
    try:
        commands = shell_words.parse(body)
    except TooDeep:
        return []
    return [command.argv[0] for command in _all(commands) if command.argv]


def _all(commands: list[SimpleCommand]) -> Iterator[SimpleCommand]:
    for command in commands:
        for inner in command.inner_scripts():
            yield from _all(inner)
        yield command


def _multiplies(name: str, calls: dict[str, list[str]], names: set[str]) -> bool:
    """Whether `name` runs, twice or more, functions that lead back to it."""
    returning = [callee for callee in calls[name] if callee in names and _leads_to(callee, name, calls)]
    return len(returning) >= 2


def _leads_to(start: str, goal: str, calls: dict[str, list[str]]) -> bool:
    seen, waiting = set(), [start]
    while waiting:
        name = waiting.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            waiting.extend(calls.get(name, ()))
    return False
