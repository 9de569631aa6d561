"""The last lines of text the scanner showed: where the path of an edit written as text stands.

Only their first characters are kept (KEPT): a longer line names no file.
"""

from __future__ import annotations

KEPT = 240
_BLANK = " \t\r"


class LinesSeen:
    """The current line so far, the line before it, and the last line with text in it when only blank
    lines came after that one (a path line, a blank line, then a SEARCH/REPLACE block)."""

    def __init__(self) -> None:
        self.current = ""
        self.before: str | None = None
        self.last_text: str | None = None

    def add(self, text: str, newline: int) -> None:
        """`text` was shown; `newline` is where its last line break is (-1: none)."""
        if newline < 0:
            if len(self.current) <= KEPT:
                self.current += text[: KEPT + 1]
            return
        end, first = newline, True
        while True:  # back from the last completed line to the last one with text (blank ones are few)
            start = text.rfind("\n", 0, end) + 1
            line = (self.current if start == 0 else "") + text[start : min(end, start + KEPT + 1)]
            if first:
                self.before, first = line, False
            if line.strip(_BLANK):
                self.last_text = line
                break
            if start == 0:
                break  # only blank lines in this text: the last line with text came before it
            end = start - 1
        self.current = text[newline + 1 : newline + 2 + KEPT]

    def removed(self) -> None:
        """Markup was taken out here: no line before the next one names a file."""
        self.current, self.before, self.last_text = "", None, None

    def opener_alone(self) -> bool:
        """Only spaces stand on the current line so far."""
        return not self.current.strip(" \t")
