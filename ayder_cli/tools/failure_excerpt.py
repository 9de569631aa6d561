"""failure_excerpt(): the part of a failed check's output that says what failed, in at most `limit` characters.

A check (a test run, a linter, a compiler) prints pages of progress before the one block that
matters; a small model given all of it loses the error in the noise. The tool families are
recognised in excerpt_runners.py (test runners) and excerpt_compilers.py (compilers, linters,
tracebacks, make); the first family that finds its error block wins. Nothing recognised: the
lines around the first line that says error or fail, else the tail.
"""

from __future__ import annotations

import re

from ayder_cli.tools.excerpt_compilers import COMPILER_FINDERS
from ayder_cli.tools.excerpt_runners import RUNNER_FINDERS

# What run_shell_command puts around the streams (tools/shell.py _result): not the command's words.
FRAME = re.compile(r"^(exit code -?\d+|killed by signal \d+|timed out after .*|note: .*|--- std(out|err) ---"
                   r"|\[no output\]|\[\.\.\. [\d,]+ bytes cut from the middle \.\.\.\])$")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
SAYS_FAILED = re.compile(r"\b(error|errors|fail|failed|failure|failures|fatal)\b", re.IGNORECASE)
AROUND_BEFORE, AROUND_AFTER = 2, 6  # the fallback's lines around the first line that says error
MIN_LIMIT = 80  # below this nothing useful fits; a smaller limit is raised to it
FINDERS = (*RUNNER_FINDERS, *COMPILER_FINDERS)


def failure_excerpt(output: str, limit: int = 1200) -> str:
    """The first error block of a failed check's output (as run_shell_command renders it), whole lines,
    at most `limit` characters; a short marker says when lines were cut off."""
    limit = max(limit, MIN_LIMIT)
    lines = _command_lines(output)
    if not lines:
        return "[no output]"
    whole = "\n".join(lines)
    if len(whole) <= limit:
        return whole  # short already: all of it says more than any part
    for find in FINDERS:
        block = find(lines)
        if block:
            return _fit(block, limit)
    return _fit(_around_first_failure(lines) or lines[-AROUND_AFTER:], limit, from_end=not _first_failure(lines))


def _command_lines(output: str) -> list[str]:
    """The command's own lines: colours, run_shell_command's frame and blank ends taken off."""
    text = ANSI.sub("", output.replace("\r\n", "\n"))
    lines = [line.split("\r")[-1].rstrip() for line in text.split("\n")]  # a progress bar's last state
    lines = [line for line in lines if not FRAME.match(line)]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _first_failure(lines: list[str]) -> int | None:
    return next((i for i, line in enumerate(lines) if SAYS_FAILED.search(line)), None)


def _around_first_failure(lines: list[str]) -> list[str]:
    at = _first_failure(lines)
    if at is None:
        return []
    return lines[max(at - AROUND_BEFORE, 0):at + AROUND_AFTER]


def _fit(block: list[str], limit: int, from_end: bool = False) -> str:
    """Whole lines from the block's start (or, from_end, its end) while they fit in limit with the
    marker; a single line too long for it is shortened."""
    block = _drop_blank_runs(block)
    text = "\n".join(block)
    if len(text) <= limit:
        return text
    order = list(reversed(block)) if from_end else block
    kept: list[str] = []
    size = 0
    for index, line in enumerate(order):
        marker = _marker(len(order) - index)
        if size + len(line) + 1 + len(marker) > limit:
            if not kept:  # one huge line (minified code, a long assertion): its start
                room = limit - len(marker) - 2
                kept.append(line[:room] + "…")
            break
        kept.append(line)
        size += len(line) + 1
    marker = _marker(len(order) - len(kept))
    if from_end:
        return "\n".join([marker, *reversed(kept)])
    return "\n".join([*kept, marker])


def _marker(cut_lines: int) -> str:
    return f"[... {cut_lines} more line{'s' if cut_lines != 1 else ''} cut]"


def _drop_blank_runs(block: list[str]) -> list[str]:
    """Blank lines kept single, none at the ends: they cost room and say nothing."""
    out: list[str] = []
    for line in block:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out
