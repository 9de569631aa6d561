"""Which write tools each edit format offers (the format itself, and what auto picks: config/edit_formats.py).

write_file stays in every format: it creates new files. The text formats (search-replace, whole)
offer no replace_string: the model writes its edits in the reply instead of in a JSON string.
lines offers replace_lines in place of replace_string, insert_line and delete_line (it does
what those two do, on lines the model has read).
"""

from __future__ import annotations

EDIT_TOOL_NAMES = frozenset({"write_file", "replace_string", "insert_line", "delete_line", "replace_lines"})

OFFERED_BY_FORMAT: dict[str, frozenset[str]] = {
    "replace": frozenset({"write_file", "replace_string", "insert_line", "delete_line"}),
    "lines": frozenset({"write_file", "replace_lines"}),
    "search-replace": frozenset({"write_file"}),
    "whole": frozenset({"write_file"}),
}


def offered_with(edit_format: str | None, name: str) -> bool:
    """Whether the tool `name` is offered with `edit_format` (None: every write tool; tools that do not
    write files always are)."""
    return edit_format is None or name not in EDIT_TOOL_NAMES or name in OFFERED_BY_FORMAT[edit_format]
