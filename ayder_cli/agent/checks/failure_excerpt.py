"""failure_excerpt(): the part of a failed check's output that says what failed, in at most `limit` characters.

A check (a test run, a linter, a compiler) prints pages of progress before the one block that
matters; a small model given all of it loses the error in the noise. The tool families are
recognised in excerpt_runners.py (test runners) and excerpt_compilers.py (compilers, linters,
tracebacks, make); the first family that finds its error block wins. Nothing recognised: the
lines around the first line that says error or fail, else the tail.
"""

from __future__ import annotations

import re

from ayder_cli.agent.checks.excerpt_compilers import COMPILER_FINDERS, make_error, python_traceback
from ayder_cli.agent.checks.excerpt_runners import RUNNER_FINDERS, pytest_failure, unittest_failure
from ayder_cli.wording import counted

# What run_shell_command puts around the streams (tools/shell.py _result): its status line and notes
# before the output's header, the header, the mark where it cut the output's middle.
FRAME_START = re.compile(r"^(exit code -?\d+|killed by signal \d+|timed out after .*)$")
FRAME_LINE = re.compile(r"^(--- output ---|\[no output\]|\[\.\.\. [\d,]+ bytes cut from the middle \.\.\.\])$")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
SAYS_FAILED = re.compile(r"\b(error|errors|fail|failed|failure|failures|fatal)\b", re.IGNORECASE)
AROUND_BEFORE, AROUND_AFTER = 2, 6  # the fallback's lines around the first line that says error
FINDERS = (*RUNNER_FINDERS, *COMPILER_FINDERS)
# Blocks whose end matters most (the assertion, the exception, make's own error): when too long, their
# first lines kept (the test's name: 1) and as much of their end as fits. Others keep their start.
KEEP_END = {pytest_failure: 1, unittest_failure: 1, python_traceback: 1, make_error: 0}


def failure_excerpt(output: str, limit: int = 1200) -> str:
    """The first error block of a failed check's output (as run_shell_command renders it), whole lines,
    at most `limit` characters; a short marker says when lines were cut off."""
    lines = _command_lines(output)
    if not lines:
        return "[no output]"
    whole = "\n".join(lines)
    if len(whole) <= limit:
        return whole  # short already: all of it says more than any part
    for find in FINDERS:
        block = find(lines)
        if block:
            return _fit(block, limit, head=KEEP_END.get(find))
    at = _first_failure(lines)
    if at is None:
        return _fit(lines[-AROUND_AFTER * 2:], limit, head=0)
    around = lines[max(at - AROUND_BEFORE, 0):at + AROUND_AFTER]
    if len("\n".join(around)) > limit:
        around = lines[at:at + AROUND_AFTER]  # no room for the lines above: the line that says it first
    return _fit(around, limit)


def _command_lines(output: str) -> list[str]:
    """The command's own lines: colours, run_shell_command's frame and blank ends taken off."""
    text = ANSI.sub("", output.replace("\r\n", "\n"))
    lines = [line.split("\r")[-1].rstrip() for line in text.split("\n")]  # a progress bar's last state
    if lines and FRAME_START.match(lines[0]):
        header = next((i for i, line in enumerate(lines) if FRAME_LINE.match(line)), len(lines))
        lines = lines[header:]  # the status line and run_shell_command's notes under it
    lines = [line for line in lines if not FRAME_LINE.match(line)]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _first_failure(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if SAYS_FAILED.search(line)), None)


def _fit(block: list[str], limit: int, head: int | None = None) -> str:
    """Whole lines from the block's start while they fit in limit with the marker; with `head`, its
    first `head` lines and then as many of its last lines as fit. A single line too long is shortened."""
    block = _drop_blank_runs(block)
    text = "\n".join(block)
    if len(text) <= limit:
        return text
    ends = head is not None
    first, rest = (block[:head], block[head:]) if ends else ([], block)
    room = limit - sum(len(line) + 1 for line in first)
    order = list(reversed(rest)) if ends else rest
    kept: list[str] = []
    for index, line in enumerate(order):
        marker = _marker(len(order) - index)
        if len(line) + 1 + len(marker) > room:
            if not kept:  # one huge line (minified code, a long assertion): its start
                kept.append(line[:max(room - len(_marker(len(order) - index - 1)) - 2, 0)] + "…")
            break
        kept.append(line)
        room -= len(line) + 1
    marker = _marker(len(order) - len(kept))
    shown = [*first, marker, *reversed(kept)] if ends else [*kept, marker]
    return "\n".join(line for line in shown if line)[:limit]  # the last guard: never over the limit


def _marker(cut_lines: int) -> str:
    return f"[... {counted(cut_lines, 'more line')} cut]"


def _drop_blank_runs(block: list[str]) -> list[str]:
    """Blank lines kept single, none at the ends: they cost room and say nothing."""
    out: list[str] = []
    for line in block:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out
