"""The line a native tool call shows while its arguments stream: `→ write_file src/app.py …  2.1 KB`.

Redrawn in place on stderr, so it is cut to the terminal's width (a wrapped line could not be
redrawn) and made safe (the path is the model's text). The normal activity line replaces it once
the call is whole.
"""

from __future__ import annotations

from ayder_cli.terminal.safe_text import cut_to_width, safe_line
from ayder_cli.wording import byte_size


class ArrivingLine:
    """The line of the call streaming now, in a terminal `columns` wide."""

    def __init__(self, columns: int) -> None:
        self.columns = columns
        self._shown: tuple[str, str, str] | None = None  # name, subject, size as last drawn

    def redraw(self, name: str, subject: str, size: int) -> str | None:
        """The line to draw now; None when what it shows has not changed (most fragments: a cheap check)."""
        shown = (name, subject, byte_size(size) if size else "")
        if shown == self._shown:
            return None
        self._shown = shown
        text = f"→ {name} {subject} …" if subject else f"→ {name} …"
        if size:
            text += f"  {shown[2]}"
        return cut_to_width(safe_line(text.replace("\n", " ")), max(self.columns - 1, 10))
