"""The reply's text as the scanner reads it: a short buffer, and the input not yet in it."""

from __future__ import annotations

from collections import deque

SLICE = 4096  # input enters the buffer this much at a time (more while it holds), so it stays short


class ScanBuffer:
    """`text` is what the scanner looks at; input enters it a slice at a time."""

    def __init__(self) -> None:
        self.text = ""  # short, except markup held until its end is known
        self._pending: deque[tuple[str, int]] = deque()  # input not yet in `text`: (text, offset)
        self.final = False  # the reply is complete

    def add(self, text: str) -> None:
        self._pending.append((text, 0))

    @property
    def at_end(self) -> bool:
        """The reply is complete and all of it is in the buffer."""
        return self.final and not self._pending

    def take(self, size: int) -> str:
        """Remove and return the first `size` characters of the buffer."""
        taken, self.text = self.text[:size], self.text[size:]
        return taken

    def pull(self) -> bool:
        """Move the next slice of pending input into the buffer; False if there is none."""
        if not self._pending:
            return False
        text, start = self._pending.popleft()
        size = max(SLICE, len(self.text))  # a held buffer at least doubles: re-reading it stays linear
        if start + size < len(text):
            self._pending.appendleft((text, start + size))
        buffer, self.text = self.text, ""
        buffer += text[start : start + size]  # a local, so CPython can grow it in place
        self.text = buffer
        return True

    def replay(self) -> None:
        """Read the buffer again from its start, a slice at a time (after a hold turned out to be text)."""
        if self.text:
            self._pending.appendleft((self.text, 0))
            self.text = ""

    @property
    def long(self) -> bool:
        """A long hold just ended: the rest is better read again a slice at a time."""
        return len(self.text) > 2 * SLICE
