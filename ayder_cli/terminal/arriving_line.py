"""The line a native tool call shows while its arguments stream: `→ write_file src/app.py …  2.1 KB`.

Redrawn in place on stderr, so it is cut to the terminal's width (a wrapped line could not be
redrawn) and made safe (the path is the model's text). The normal activity line replaces it once
the call is whole.
"""

from __future__ import annotations

from ayder_cli.terminal.safe_text import cut_to_width, safe_line


def arriving_line(name: str, subject: str, size: int, columns: int) -> str:
    """The line for a call named `name` working on `subject` ("" while unknown), `size` characters so far."""
    text = f"→ {name} {subject} …" if subject else f"→ {name} …"
    if size:
        text += f"  {byte_size(size)}"
    return cut_to_width(safe_line(text.replace("\n", " ")), max(columns - 1, 10))


def byte_size(size: int) -> str:
    """812 B, 2.1 KB, 1.4 MB."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"

