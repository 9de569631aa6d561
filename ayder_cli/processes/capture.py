"""Capture: what a command writes to one pipe, kept as its head and its tail in bounded memory
(run_shell_command and the background processes read their output into one)."""

from __future__ import annotations

READ_CHUNK = 65536  # the most read from a command's pipe at a time


class Capture:
    """The head and the tail of an output stream, in bounded memory, and how many bytes went by."""

    def __init__(self, keep: int) -> None:
        self.keep = max(keep, 2)
        self.head = bytearray()  # the first keep/2 bytes
        self.tail = bytearray()  # the last keep/2 bytes after those
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - (self.keep - self.keep // 2)
            if excess > 0:
                del self.tail[:excess]

    def render(self, budget: int) -> str:
        """The output as text, at most about budget characters; when longer, its middle is cut out."""
        kept = bytes(self.head) + bytes(self.tail)
        complete = self.total == len(kept)
        if complete and len(kept) <= budget:
            return _decode(kept)
        budget = min(max(budget, 2), self.keep)
        head = kept[: budget // 2]
        tail = (kept if complete else bytes(self.tail))[-(budget - budget // 2):]
        # Whole lines where a line end is near, so no line is shown half-cut.
        newline = head.rfind(b"\n")
        if newline >= len(head) // 2:
            head = head[: newline + 1]
        newline = tail.find(b"\n")
        if newline != -1 and newline < len(tail) // 2:
            tail = tail[newline + 1:]
        text = _decode(head)
        if text and not text.endswith("\n"):
            text += "\n"
        cut = self.total - len(head) - len(tail)
        return f"{text}[... {cut:,} bytes cut from the middle ...]\n{_decode(tail)}"


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
