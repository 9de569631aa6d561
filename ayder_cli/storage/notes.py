"""The notes the model keeps across sessions (the memory tools): .ayder/memory/memories.jsonl,
one JSON object a line, only ever appended to."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from ayder_cli.storage.atomic import append_record
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.no_follow import check_no_links


def append_note(root: Path, content: str, category: str, tags: list[str],
                mask: Callable[[str], str] = lambda text: text) -> dict:
    """Add one note, stamped with the time, its line passed through mask (API keys hidden); the note."""
    note = {
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "category": category,
        "tags": tags,
        "content": content,
    }
    line = (mask(json.dumps(note, ensure_ascii=False)) + "\n").encode("utf-8")
    append_record(Layout(root).memories, line)  # a crash loses at most this note
    return note


def read_notes(root: Path) -> list[dict]:
    """Every note kept, oldest first; a line that is not a note (a torn last line after a crash) is skipped."""
    path = Layout(root).memories
    check_no_links(path)  # a planted link to an outside file is not read to the model
    notes = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                note = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(note, dict) and isinstance(note.get("content"), str):
                notes.append(note)
    return notes
