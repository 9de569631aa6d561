"""save_memory / load_memory: notes the model keeps across sessions in .ayder/memory/memories.jsonl."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ayder_cli.wording import counted
from ayder_cli.storage.atomic import append_record
from ayder_cli.storage.layout import Layout
from ayder_cli.tools.base import ToolContext, ToolError, ToolResult, ToolSpec

DEFAULT_LIMIT = 10


def memories_path(root: Path) -> Path:
    return Layout(root).memories


def save_memory(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    content = args["content"].strip()
    if not content:
        raise ToolError("save_memory needs some content")
    record = {
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "category": args.get("category") or "general",
        "tags": [str(tag) for tag in args.get("tags") or []],
        "content": content,
    }
    line = (context.mask(json.dumps(record, ensure_ascii=False)) + "\n").encode("utf-8")
    append_record(memories_path(context.root), line)  # a crash loses at most this note
    return ToolResult(True, f"saved a {record['category']} note", summary="saved")


def load_memory(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    path = memories_path(context.root)
    notes = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                note = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line after a crash
            if isinstance(note, dict) and isinstance(note.get("content"), str):
                notes.append(note)
    category, query = args.get("category"), (args.get("query") or "").lower()
    if category:
        notes = [note for note in notes if note.get("category") == category]
    if query:
        notes = [note for note in notes
                 if query in note["content"].lower() or any(query in str(tag).lower() for tag in note.get("tags", []))]
    limit = args.get("limit") or DEFAULT_LIMIT
    shown = notes[-limit:][::-1]  # newest first
    if not shown:
        return ToolResult(True, "no saved notes match", summary="0 notes")
    lines = [f"[{note.get('time', '?')}] ({note.get('category')}) {note['content']}"
             + (f"  #{' #'.join(note['tags'])}" if note.get("tags") else "") for note in shown]
    return ToolResult(True, "\n".join(lines), summary=counted(len(shown), 'note'))


SAVE_MEMORY = ToolSpec(
    name="save_memory",
    description="Keep a note for later sessions (decisions, conventions, facts about this project).",
    parameters={
        "type": "object",
        "properties": {"content": {"type": "string"}, "category": {"type": "string"},
                       "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["content"],
        "additionalProperties": False,
    },
    permission="w",
    run=save_memory,
    group="memory",
    aliases={"note": "content", "text": "content"},
)

LOAD_MEMORY = ToolSpec(
    name="load_memory",
    description="Read saved notes, newest first; filter by category or a word.",
    parameters={
        "type": "object",
        "properties": {"category": {"type": "string"}, "query": {"type": "string"}, "limit": {"type": "integer"}},
        "additionalProperties": False,
    },
    permission="r",
    run=load_memory,
    group="memory",
    aliases={"search": "query"},
)

MEMORY_TOOLS = [SAVE_MEMORY, LOAD_MEMORY]
