"""save_memory / load_memory: notes the model keeps across sessions in .ayder/memory/memories.jsonl."""

from __future__ import annotations

from typing import Any

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.storage.notes import append_note, read_notes
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.wording import counted

DEFAULT_LIMIT = 10


def save_memory(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    content = args["content"].strip()
    if not content:
        raise ToolError("save_memory needs some content")
    note = append_note(context.repo_root, content, args.get("category") or "general",
                       [str(tag) for tag in args.get("tags") or []], context.mask)
    return ToolResult(True, f"saved a {note['category']} note", summary="saved")


def load_memory(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    notes = read_notes(context.repo_root)
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
