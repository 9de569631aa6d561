"""Keys read from the terminal itself: whether a stream is a terminal whose mode can be set, that mode out of
line mode for a while, and what is waiting to be read."""

from __future__ import annotations

import io
import os
import select
from contextlib import contextmanager
from typing import IO, Iterator


def key_fd(reader: IO[str]) -> int | None:
    """The reader's descriptor when it is a terminal whose mode can be set: keys are read one at a time."""
    try:
        import termios

        fd = reader.fileno()
        if not os.isatty(fd):
            return None
        termios.tcgetattr(fd)
        return fd
    except (ImportError, AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


@contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """The terminal out of line mode within (no Enter needed, no echo; Ctrl-C still interrupts), its mode
    restored whatever happens."""
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except termios.error:  # the terminal went away (hung up): nothing left to restore
            pass


def read_waiting(fd: int, data: bytes = b"", wait_s: float = 0, size: int = 4096) -> bytes:
    """`data` and what more the terminal holds, each piece awaited at most `wait_s`."""
    while select.select([fd], [], [], wait_s)[0]:
        more = os.read(fd, size)
        if not more:
            break
        data += more
    return data
