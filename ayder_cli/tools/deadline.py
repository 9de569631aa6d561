"""The time limit of one tool call (tool_timeout_s): the Python search and the tree walks stop
at it and say so, keeping what they found. The clock is passed in, so tests make it jump."""

from __future__ import annotations

import time
from typing import Callable


class Deadline:
    """`seconds` from now by `clock`; None: never. Once passed, it stays passed (`hit`)."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.end = None if seconds is None else self.clock() + seconds
        self.hit = False

    def passed(self) -> bool:
        if not self.hit and self.end is not None and self.clock() >= self.end:
            self.hit = True
        return self.hit

    def expire(self) -> None:
        """Mark it passed (a watchdog that stopped a subprocess at the limit)."""
        self.hit = True

    def remaining(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - self.clock())

    def note(self, found: str) -> str:
        """The line that ends a stopped result: "[stopped after 30 s (tool_timeout_s): 12 entries so far; ...]"."""
        return (f"[stopped after {self.seconds:g} s (tool_timeout_s): results so far, {found}; "
                "narrow the directory or pattern, or raise tool_timeout_s]")


NEVER = Deadline(None)
