"""What was typed on the terminal before ayder asked its first question (while it started): taken
off the terminal before the question is put, so that only a key pressed after it answers it, and
handed back to the prompt after (whole lines as entries, a line not ended as the prompt's text)."""

from __future__ import annotations

from typing import IO

from ayder_cli.terminal.key_input import cbreak, key_fd, read_waiting


class TypedAhead:
    def __init__(self) -> None:
        self.lines: list[str] = []  # ended with Enter: entries, handled in order
        self.partial = ""  # typed but not ended: the next prompt starts with it

    def take_from(self, stream: IO[str]) -> None:
        """Read what the terminal holds, without waiting."""
        text = pending_input(stream).replace("\r\n", "\n").replace("\r", "\n")
        if not text:
            return
        *ended, rest = (self.partial + _printable(text)).split("\n")
        self.lines += [line for line in ended if line.strip()]
        self.partial = rest

    def next_line(self) -> str | None:
        return self.lines.pop(0) if self.lines else None

    def take_partial(self) -> str:
        partial, self.partial = self.partial, ""
        return partial


def _printable(text: str) -> str:
    """The text typed, less control characters and keys' escape sequences (an arrow pressed while waiting)."""
    return "".join(ch for ch in text if ch.isprintable() or ch in "\n\t")


def pending_input(stream: IO[str]) -> str:
    """The bytes typed and not yet read, a line not ended with Enter included; "" when the stream is no terminal."""
    fd = key_fd(stream)
    if fd is None:
        return ""

    with cbreak(fd):  # out of line mode: a line not ended can be read too
        data = read_waiting(fd)
    return data.decode("utf-8", errors="replace")

