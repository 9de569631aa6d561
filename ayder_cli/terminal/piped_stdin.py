"""Piped stdin: read as text that never fails, waited for beside a prompt, attached as context.

Python reads a pipe with `surrogateescape`, so bytes that are not UTF-8 would
reach the prompt as lone surrogates and fail the moment the prompt is sent or
saved. LenientStdin turns them into the replacement character instead, and the
caller says so once. read_piped_stdin never hangs on a pipe nobody writes to;
attach_context puts what came after the prompt, fenced.
"""

from __future__ import annotations

import codecs
import io
import os
import select
import stat
from typing import IO, BinaryIO


class LenientStdin:
    def __init__(self, raw: BinaryIO) -> None:
        self.replaced = 0  # undecodable bytes seen so far
        handler = f"ayder-stdin-{id(self)}"
        codecs.register_error(handler, self._replace)
        self.text = io.TextIOWrapper(raw, encoding="utf-8", errors=handler)

    def _replace(self, error: UnicodeError) -> tuple[str, int]:
        if not isinstance(error, UnicodeDecodeError):
            raise error
        self.replaced += error.end - error.start
        return "\ufffd", error.end

    def take_replaced(self) -> int:
        """Bytes replaced since the last call (so each notice is said once)."""
        count, self.replaced = self.replaced, 0
        return count


def read_piped_stdin(stdin: IO[str] | None, wait_s: float = 1.0) -> str | None:
    """Context piped in beside a prompt; never hangs on an open pipe that nobody writes to.

    A file, /dev/null or a stream with no file descriptor is read at once. For a pipe, wait up
    to `wait_s` for the first byte (or EOF); if nothing comes, return None and leave stdin alone.
    """
    if stdin is None:
        return None
    try:
        fd = stdin.fileno()
    except io.UnsupportedOperation:  # a stream in memory (a test's StringIO): all there, read at once
        return stdin.read()
    except (OSError, ValueError):
        return None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
        return stdin.read()
    if os.isatty(fd):
        return None
    ready, _, _ = select.select([fd], [], [], wait_s)
    if not ready:
        return None
    return stdin.read()


def attach_context(prompt: str, context: str) -> str:
    """The prompt, then the piped input in a fence longer than any fence inside it."""
    if not context.strip():
        return prompt
    ticks = 3
    while "`" * ticks in context:
        ticks += 1
    fence = "`" * ticks
    return f"{prompt}\n\n{fence}\n{context.rstrip()}\n{fence}"
