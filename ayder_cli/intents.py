"""Reading what the model wrote: think blocks now; the tool-call formats arrive with the loop.

The streaming filter holds back only what could be the start of a tag and
releases it as soon as it is clearly text, so the work per delta stays small.
"""

from __future__ import annotations

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def _held_suffix(text: str, tags: tuple[str, ...]) -> int:
    """Length of the longest end of `text` that is a proper prefix of one of `tags`."""
    longest = 0
    for tag in tags:
        for size in range(min(len(tag) - 1, len(text)), longest, -1):
            if text.endswith(tag[:size]):
                longest = size
                break
    return longest


class ThinkFilter:
    """Streamed content -> (is_thinking, piece) pairs, with <think>...</think> split out."""

    def __init__(self) -> None:
        self.in_think = False
        self._pending = ""

    def feed(self, text: str) -> list[tuple[bool, str]]:
        out: list[tuple[bool, str]] = []
        buffer = self._pending + text
        while buffer:
            if self.in_think:
                tags: tuple[str, ...] = (THINK_CLOSE,)
                at = buffer.find(THINK_CLOSE)
                found = THINK_CLOSE
            else:
                # A stray closing tag (the opening one was in the prompt) is dropped.
                tags = (THINK_OPEN, THINK_CLOSE)
                opening, closing = buffer.find(THINK_OPEN), buffer.find(THINK_CLOSE)
                at, found = min(((opening, THINK_OPEN), (closing, THINK_CLOSE)), key=lambda p: (p[0] < 0, p[0]))
            if at < 0:
                held = _held_suffix(buffer, tags)
                if len(buffer) > held:
                    out.append((self.in_think, buffer[: len(buffer) - held]))
                self._pending = buffer[len(buffer) - held :]
                return out
            if at:
                out.append((self.in_think, buffer[:at]))
            self.in_think = found == THINK_OPEN
            buffer = buffer[at + len(found) :]
        self._pending = ""
        return out

    def finish(self) -> list[tuple[bool, str]]:
        """Whatever was held back, at the end of the reply."""
        pending, self._pending = self._pending, ""
        return [(self.in_think, pending)] if pending else []
