"""The first error of a compiler's, linter's or interpreter's output: rustc/cargo and ruff's blocks
(`--> file:line:col`), tsc, gcc/clang and mypy (`file:line[:col]: error:`), eslint, ruff/flake8/pylint
one-liners, go build and vet, Python and JavaScript tracebacks, and make as the last resort.

Each finder takes the output's lines and returns its error block, or None (see failure_excerpt.py).
Linters list many findings; the first few are kept (the limit cuts the rest).
"""

from __future__ import annotations

import re

FEW = 5  # one-line findings kept (ruff, flake8, mypy, eslint, go vet)
FEW_BLOCKS = 3  # multi-line findings kept (rustc, ruff's full format, gcc, tsc)

ARROW = re.compile(r"^\s*--> \S+:\d+")
WARNING = re.compile(r"^\s*warning\b", re.IGNORECASE)
TSC_ERROR = re.compile(r"^\S+(\(\d+,\d+\): | ?:\d+:\d+ - )error TS\d+")
TSC_DETAIL = re.compile(r"^(\s|\d+ )")
LOCATED_ERROR = re.compile(r"^\S+?:\d+(:\d+)?: (fatal error|error): ")
LOCATED_DETAIL = re.compile(r"^(\s*\d*\s*\||\S+?:\d+(:\d+)?: note: |\s+)")
ESLINT_ERROR = re.compile(r"^\s+\d+:\d+\s+error\s")
LINT_CODE = re.compile(r"^\S+?:\d+:\d+: [A-Z]{1,3}\d{2,4}\b")
GO_LOCATED = re.compile(r"^\S+\.go:\d+(:\d+)?: ")
TRACEBACK = re.compile(r"^Traceback \(most recent call last\):")
CHAINED = re.compile(r"^(During handling of the above exception|The above exception was the direct cause)")
FRAME_START = re.compile(r"^\s+File \"")
FRAMES_KEPT = 2  # a traceback's last frames: where it failed, and what called it
JS_ERROR = re.compile(r"^\s*(Uncaught )?[\w.]*(Error|Exception)( \[\w+\])?: ")
JS_FRAME = re.compile(r"^\s+at ")
JS_LOCATION = re.compile(r"^\S+:\d+$")  # node's `/path/file.js:3` above an uncaught error's source line
MAKE_ERROR = re.compile(r"^(g?make)(\[\d+\])?: \*\*\* ")
MAKE_ABOVE = 4  # lines above make's own error: what the recipe printed last


def _first(lines: list[str], pattern: re.Pattern, start: int = 0) -> int | None:
    return next((i for i in range(start, len(lines)) if pattern.match(lines[i])), None)


def arrow_blocks(lines: list[str]) -> list[str] | None:
    """rustc/cargo `error[E0308]: ...` and ruff's `F401 ...`, each with its ` --> file:line:col` and the
    source lines under it up to the blank line; warnings before the first error are skipped."""
    blocks: list[str] = []
    count = 0
    for index, line in enumerate(lines):
        if not ARROW.match(line) or count == FEW_BLOCKS:
            continue
        head = next((i for i in range(index - 1, -1, -1) if lines[i].strip()), None)
        if head is None or WARNING.match(lines[head]):
            continue
        end = next((i for i in range(index + 1, len(lines)) if not lines[i].strip()), len(lines))
        blocks += ([""] if blocks else []) + lines[head:end]
        count += 1
    return blocks or None


def tsc_errors(lines: list[str]) -> list[str] | None:
    """tsc's `file(line,col): error TS...` (or `file:line:col - error TS...` with the source under it)."""
    start = _first(lines, TSC_ERROR)
    if start is None:
        return None
    block: list[str] = []
    count = 0
    for line in lines[start:]:
        if TSC_ERROR.match(line):
            if count == FEW_BLOCKS:
                break
            count += 1
        elif line.strip() and not TSC_DETAIL.match(line):
            break  # the error's own lines are its source and the ~~~ under it
        block.append(line)
    return block


def located_errors(lines: list[str]) -> list[str] | None:
    """gcc/clang and mypy: `file:line[:col]: error: ...` with the context lines and notes under it."""
    start = _first(lines, LOCATED_ERROR)
    if start is None:
        return None
    block: list[str] = []
    count = 0
    in_error = False  # the lines under an error belong to it; those under a warning do not
    for line in lines[start:]:
        if LOCATED_ERROR.match(line):
            count += 1
            if count > FEW_BLOCKS:
                break
            block.append(line)
            in_error = True
        elif in_error and line.strip() and LOCATED_DETAIL.match(line):
            block.append(line)
        else:
            in_error = False
    return block


def eslint_errors(lines: list[str]) -> list[str] | None:
    """eslint's stylish output: the file's header line, then its first few `line:col  error  ...` lines."""
    start = _first(lines, ESLINT_ERROR)
    if start is None:
        return None
    header = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip() and not lines[i][0].isspace()), None)
    errors = [line for line in lines[start:] if ESLINT_ERROR.match(line)][:FEW]
    return ([header] if header else []) + errors


def lint_codes(lines: list[str]) -> list[str] | None:
    """ruff (concise), flake8, pylint: `path:line:col: CODE message`, the first few."""
    found = [line for line in lines if LINT_CODE.match(line)][:FEW]
    return found or None


def go_located(lines: list[str]) -> list[str] | None:
    """go build and go vet: `./file.go:line:col: message`, the first few, under their `# package` line."""
    start = _first(lines, GO_LOCATED)
    if start is None:
        return None
    package = [lines[start - 1]] if start and lines[start - 1].startswith("# ") else []
    return package + [line for line in lines[start:] if GO_LOCATED.match(line)][:FEW]


def python_traceback(lines: list[str]) -> list[str] | None:
    """The traceback that ended the program (the last of a chain), its last frames and its exception."""
    start = _first(lines, TRACEBACK)
    if start is None:
        return None
    while True:
        end = _traceback_end(lines, start)
        after = next((i for i in range(end, len(lines)) if lines[i].strip()), None)
        if after is None or not CHAINED.match(lines[after]):
            return condense_traceback(lines[start:end])
        following = _first(lines, TRACEBACK, after)
        if following is None:
            return condense_traceback(lines[start:end])
        start = following


def _traceback_end(lines: list[str], start: int) -> int:
    """The index after a traceback: past its indented frames, the exception's line and lines indented under it."""
    index = start + 1
    while index < len(lines) and (lines[index].startswith(" ") or not lines[index].strip()):
        index += 1
    index += 1  # the exception
    while index < len(lines) and lines[index].startswith((" ", "\t")):
        index += 1
    return min(index, len(lines))


def condense_traceback(block: list[str]) -> list[str]:
    """A traceback with only its last FRAMES_KEPT frames (each `File` line and the source under it)."""
    frames = [i for i, line in enumerate(block) if FRAME_START.match(line)]
    if len(frames) <= FRAMES_KEPT:
        return block
    keep_from = frames[-FRAMES_KEPT]
    head = [line for line in block[:frames[0]] if line.strip()]
    return [*head, f"  [... {len(frames) - FRAMES_KEPT} earlier frames ...]", *block[keep_from:]]


def js_error(lines: list[str]) -> list[str] | None:
    """node, jest outside a `●` block: `Error: message` (or AssertionError) down to the stack's first
    frame, with node's `file.js:LINE`, source and caret above an uncaught error."""
    for index, line in enumerate(lines):
        if not JS_ERROR.match(line):
            continue
        frame = next((i for i in range(index + 1, min(index + 15, len(lines))) if JS_FRAME.match(lines[i])), None)
        if frame is None:
            continue
        above = next((i for i in range(index - 1, max(index - 6, -1), -1) if JS_LOCATION.match(lines[i])), index)
        return lines[above:frame + 1]
    return None


def make_error(lines: list[str]) -> list[str] | None:
    """`make: *** [target] Error N` and what the recipe printed just above it (no tool's error was found)."""
    start = _first(lines, MAKE_ERROR)
    if start is None:
        return None
    above = [line for line in lines[:start] if line.strip()][-MAKE_ABOVE:]
    return [*above, lines[start]]


COMPILER_FINDERS = (arrow_blocks, tsc_errors, located_errors, eslint_errors, lint_codes, go_located,
                    python_traceback, js_error, make_error)
