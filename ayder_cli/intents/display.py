"""What the user sees of a reply: no markup, no leaked special tokens, no blank lines left where they were.

The scanner removes calls, think blocks and stray tokens (the `markers`
dialect lists those); `View` closes the gap they leave. Whitespace around
removed markup collapses to at most one empty line (mid-line, to one space),
and to nothing at the start or the end of the reply. Everything else is shown exactly as the model
wrote it.

Whitespace at the end of what has arrived is held until the next visible
character (or the end) says whether markup was removed inside its run.
Nothing else is held, so plain text still shows as it streams.
"""

from __future__ import annotations

_SPACE = " \t\r\n"


class View:
    """Text released to the user, with the whitespace around removed markup collapsed."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self._held = ""  # whitespace at the end of what arrived: shown once the next visible text comes
        self._touched = False  # markup was removed inside the held whitespace run
        self._started = False  # something visible was shown

    def removed(self) -> None:
        """Markup was taken out here."""
        self._touched = True

    def add(self, text: str) -> str:
        """Take scanned text; return what can be shown now."""
        if not self._held and not self._touched and text[-1] not in _SPACE:  # the common case: show it all
            self._started = True
            self.shown.append(text)
            return text
        visible_end = len(text.rstrip(_SPACE))
        if not visible_end:
            self._held += text
            return ""
        visible_start = len(text) - len(text.lstrip(_SPACE))
        shown = self._release(self._held + text[:visible_start], at_end=False) + text[visible_start:visible_end]
        self._started = True
        self._held = text[visible_end:]
        self.shown.append(shown)
        return shown

    def finish(self) -> str:
        shown = self._release(self._held, at_end=True)
        self.shown.append(shown)
        return shown

    def _release(self, space: str, at_end: bool) -> str:
        touched, self._touched, self._held = self._touched, False, ""
        if not touched:
            return space
        if at_end or not self._started:
            return ""
        newlines = space.count("\n")
        # Mid-line, the spaces on both sides of what was removed become one.
        return "\n" * min(newlines, 2) + space[space.rfind("\n") + 1 :] if newlines else space[:1]


class Output:
    """The pieces of one reply, in order: ("text", shown) through a View, and ("thinking", text)."""

    def __init__(self) -> None:
        self.view = View()
        self.thinking: list[str] = []  # one entry per think block
        self._pieces: list[tuple[str, str]] = []
        self._block: list[str] = []  # the think block being read

    def text(self, text: str) -> None:
        shown = self.view.add(text)
        if shown:
            self._pieces.append(("text", shown))

    def think(self, text: str) -> None:
        if text:
            self._pieces.append(("thinking", text))
            self._block.append(text)

    def end_think(self) -> None:
        if self._block:
            self.thinking.append("".join(self._block))
            self._block = []

    def finish(self) -> None:
        self.end_think()
        shown = self.view.finish()
        if shown:
            self._pieces.append(("text", shown))

    def take(self) -> list[tuple[str, str]]:
        """The pieces since the last take."""
        pieces, self._pieces = self._pieces, []
        return pieces

    @property
    def display(self) -> str:
        return "".join(self.view.shown)
