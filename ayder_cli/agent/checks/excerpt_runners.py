"""The first failure of a test runner's output: pytest, unittest, jest/vitest, go test.

Each finder takes the output's lines and returns the lines of its first failure, or None when the
output is not its runner's (failure_excerpt.py tries them in order).
"""

from __future__ import annotations

import re

from ayder_cli.agent.checks.excerpt_compilers import condense_traceback

PYTEST_SECTION = re.compile(r"^={3,} (FAILURES|ERRORS) ={3,}$")
PYTEST_HEADER = re.compile(r"^_{3,} .+ _{3,}$")
PYTEST_END = re.compile(r"^(={3,}.*={3,}|-{3,} Captured .*-{3,})$")
PYTEST_KEEP = re.compile(r"^(>|E |\S+:\d+: |ImportError while|[A-Za-z_.]*(Error|Exception)\b)")
FRAME_RULE = re.compile(r"^(_ )+_?$")  # pytest's line between two frames of a traceback
PYTEST_FRAME = re.compile(r"^\S+:\d+: in ")
PYTEST_SUMMARY = re.compile(r"^(FAILED|ERROR) \S+")
SOURCE_BEFORE_ARROW = 2  # lines of the test's source kept above its `>` line

UNITTEST_HEADER = re.compile(r"^(FAIL|ERROR): \S+ \(")
RULE = re.compile(r"^(-{20,}|={20,})$")

JEST_BULLET = re.compile(r"^(\s*)● (?!Console)")
JEST_FILE = re.compile(r"^\s*FAIL\s+\S")
VITEST_FAILED = re.compile(r"^⎯+ Failed Tests? \d+ ⎯+$")
VITEST_END = re.compile(r"^⎯{3,}")
STACK_FRAME = re.compile(r"^\s+(at |❯ )")

GO_FAIL = re.compile(r"^(\s*)--- FAIL: ")


def pytest_failure(lines: list[str]) -> list[str] | None:
    """The first block of the FAILURES (or ERRORS: collection, import) section, its noise left out:
    the header, the source just above `>`, the `>` and `E` lines, the file:line lines; then the
    summary's FAILED line. Without those sections (--tb=no, -rf): the first FAILED/ERROR line."""
    start = next((i for i, line in enumerate(lines) if PYTEST_SECTION.match(line)), None)
    summary = next((line for line in lines if PYTEST_SUMMARY.match(line) and "::" in line), None)
    if start is None:
        return [summary] if summary else None
    header = next((i for i in range(start + 1, len(lines)) if PYTEST_HEADER.match(lines[i])), None)
    if header is None:
        return [summary] if summary else None
    end = next((i for i in range(header + 1, len(lines))
                if PYTEST_HEADER.match(lines[i]) or PYTEST_END.match(lines[i])), len(lines))
    body = lines[header + 1:end]
    keep = set()
    for index, line in enumerate(body):
        if PYTEST_KEEP.match(line):
            keep.add(index)
            if line.startswith(">"):
                keep.update(i for i in range(max(index - SOURCE_BEFORE_ARROW, 0), index)
                            if not FRAME_RULE.match(body[i]))
            elif PYTEST_FRAME.match(line) and index + 1 < len(body):
                keep.add(index + 1)  # a short traceback's frame: the source line under it
    block = [lines[header], *(line for index, line in enumerate(body) if index in keep)]
    if summary and summary not in block:
        block.append(summary)
    return block


def unittest_failure(lines: list[str]) -> list[str] | None:
    """`FAIL: test_x (module.Class.test_x)` and the tail of its traceback."""
    start = next((i for i, line in enumerate(lines) if UNITTEST_HEADER.match(line)), None)
    if start is None:
        return None
    body_start = start + 1 + (start + 1 < len(lines) and bool(RULE.match(lines[start + 1])))
    end = next((i for i in range(body_start, len(lines)) if RULE.match(lines[i])), len(lines))
    return [lines[start], *condense_traceback(lines[body_start:end])]


def jest_failure(lines: list[str]) -> list[str] | None:
    """jest's first `● suite › test` block (its stack cut to the first frame), with the FAIL file line
    above it; or vitest's first block under `Failed Tests`."""
    vitest = next((i for i, line in enumerate(lines) if VITEST_FAILED.match(line)), None)
    if vitest is not None:
        end = next((i for i in range(vitest + 1, len(lines)) if VITEST_END.match(lines[i])), len(lines))
        return _first_frame_only(lines[vitest + 1:end])
    start = next((i for i, line in enumerate(lines) if JEST_BULLET.match(line)), None)
    if start is None:
        return None
    indent = len(JEST_BULLET.match(lines[start]).group(1))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) <= indent), len(lines))
    above = next((lines[i] for i in range(start - 1, -1, -1) if JEST_FILE.match(lines[i])), None)
    return ([above] if above else []) + _first_frame_only(lines[start:end])


def _first_frame_only(block: list[str]) -> list[str]:
    """A JavaScript stack keeps its first frame: where the test failed; the rest is the runner's."""
    out: list[str] = []
    in_stack = False
    for line in block:
        if STACK_FRAME.match(line):
            if in_stack:
                continue
            in_stack = True
        elif line.strip():
            in_stack = False
        out.append(line)
    return out


def go_test_failure(lines: list[str]) -> list[str] | None:
    """The first `--- FAIL: TestX` with the indented lines under it (file_test.go:LINE: message)."""
    start = next((i for i, line in enumerate(lines) if GO_FAIL.match(line)), None)
    if start is None:
        return None
    indent = len(GO_FAIL.match(lines[start]).group(1))
    end = next((i for i in range(start + 1, len(lines))
                if len(lines[i]) - len(lines[i].lstrip()) <= indent), len(lines))
    return lines[start:end]


RUNNER_FINDERS = (pytest_failure, unittest_failure, jest_failure, go_test_failure)
