"""The write tools: write_file, replace_string, insert_line, delete_line, replace_lines.

Each one first plans its change (the file's text before and after) without
writing; `preview` shows that plan for the confirmation diff, and `run`
writes it through atomic_write, which records the old content for /undo,
and tells the session's SeenLines what the model now knows of the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.storage.atomic import atomic_write, check_writable_path
from ayder_cli.storage.binary import looks_binary
from ayder_cli.storage.paths import display_path, resolve_in_root
from ayder_cli.tools.spec import EditorFiles, Preview, ToolContext, ToolSpec
from ayder_cli.tools.edit_compiles import still_compiles
from ayder_cli.matching.edit_match import EditMiss, find_edit
from ayder_cli.matching.edit_nearest import closest_region
from ayder_cli.matching.edit_text import Lines
from ayder_cli.wording import counted


@dataclass
class Change:
    """One planned write: where, the text before (None: a new file) and after, and what to tell the model."""

    path: Path
    shown: str
    old: str | None
    new: str
    summary: str
    output: str
    whole: bool = False  # the model gave the whole new text (write_file): every line of it is known


# --- reading the file a change starts from


def _target(context: ToolContext, given: str) -> tuple[Path, str]:
    path = resolve_in_root(context.root, given)
    shown = display_path(context.root, path)
    check_writable_path(path, context.root, shown)
    return path, shown


def _read_text(path: Path, shown: str, missing_ok: bool = False, lenient: bool = False,
               editor: EditorFiles | None = None) -> str | None:
    """The file's text exactly as stored (line endings kept); None if missing and missing_ok. With an
    editor (ACP), the text it holds, unsaved changes and all, when it has the file.

    lenient: text that is not UTF-8 is decoded with replacement characters (for a whole-file
    overwrite, whose diff only shows it) instead of being refused.
    """
    held = editor.read(path) if editor is not None else None
    if held is not None:
        return held
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return None
        raise ToolError(f"no such file: {shown}; write_file creates a new file") from None
    except NotADirectoryError:
        if missing_ok:
            return None  # atomic_write says which parent is a file
        raise ToolError(f"no such file: {shown}") from None
    except OSError as exc:
        raise ToolError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if looks_binary(data):
        raise ToolError(f"{shown} is a binary file ({len(data):,} bytes); the write tools change text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if lenient:
            return data.decode("utf-8", errors="replace")
        raise ToolError(f"{shown} is not UTF-8 text; the write tools change UTF-8 files only") from None


def _split_lines(text: str) -> list[str]:
    """Lines with their endings, split at \\n only (numbered as read_file numbers them)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _newline_of(text: str) -> str:
    """The file's line ending: \\r\\n if its first line ends so, else \\n."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _count_lines(text: str) -> int:
    return len(_split_lines(text))


# --- the four changes


def plan_write_file(context: ToolContext, args: dict[str, Any]) -> Change:
    path, shown = _target(context, args["file_path"])
    content = args["content"]
    old = _read_text(path, shown, missing_ok=True, lenient=True, editor=context.editor)
    lines = _count_lines(content)
    if old is None:
        output = f"created {shown} ({counted(lines, 'line')})"
    elif old == content:
        output = f"{shown} already holds this content; nothing changed"
    else:
        output = f"wrote {shown} ({counted(lines, 'line')}, was {_count_lines(old)})"
    return Change(path, shown, old, content, f"wrote {counted(lines, 'line')}", output, whole=True)


def plan_replace_string(context: ToolContext, args: dict[str, Any]) -> Change:
    path, shown = _target(context, args["file_path"])
    old_string, new_string = args["old_string"], args["new_string"]
    replace_all = bool(args.get("replace_all", False))
    if old_string == "":  # nothing to find: only a file that does not exist yet (a SEARCH/REPLACE block's new file)
        return _plan_new_file(path, shown, new_string)
    text = _read_text(path, shown, editor=context.editor)
    if old_string == new_string:
        raise ToolError("old_string and new_string are the same; nothing would change")
    count = text.count(old_string)
    if count > 1 and not replace_all:
        where = _line_numbers(text, old_string)
        raise ToolError(
            f"old_string appears {count} times in {shown} (lines {where}); include more surrounding text "
            "to make it unique, or set replace_all=true"
        )
    if replace_all:
        return _replace_every(path, shown, text, old_string, new_string, count)
    how = ""
    if count == 1:
        start, end, replacement = (at := text.index(old_string)), at + len(old_string), new_string
        first_line = text.count("\n", 0, start) + 1
    else:
        try:
            found = find_edit(text, old_string, new_string)
        except EditMiss as miss:
            if miss.lines:
                raise ToolError(f"old_string is not in {shown} as written; {miss}") from None
            raise ToolError(f"old_string not found in {shown}{miss}") from None
        start, end, replacement, how, first_line = found.start, found.end, found.replacement, found.how, found.line
    new = text[:start] + replacement + text[end:]
    if new == text:
        raise ToolError(f"old_string and new_string are the same once fitted to {shown}; nothing would change")
    if how:
        still_compiles(path, shown, text, new, how)
    now = counted(_count_lines(new), "line")
    output = f"replaced 1 occurrence in {shown} at line {first_line}; it now has {now}"
    if how:
        output += f"; {how} (the file's exact text is in the diff; read_file shows it)"
    return Change(path, shown, text, new, "replaced 1 occurrence", output)


def _plan_new_file(path: Path, shown: str, content: str) -> Change:
    if _read_text(path, shown, missing_ok=True, lenient=True) is not None:
        raise ToolError(f"old_string is empty, and {shown} exists; give the exact text to replace "
                        "(an empty old_string creates a new file; write_file writes a whole file)")
    lines = counted(_count_lines(content), "line")
    return Change(path, shown, None, content, f"created {lines}", f"created {shown} ({lines})", whole=True)


def _replace_every(path: Path, shown: str, text: str, old_string: str, new_string: str, count: int) -> Change:
    """replace_all matches the exact text only (line endings aside): a forgiving match of many places
    is too easy to get wrong."""
    if count == 0 and "\r\n" in text and "\n" in old_string and "\r\n" not in old_string:
        # The model writes \n; a CRLF file holds \r\n. Match it, and keep the file's endings.
        crlf_old = old_string.replace("\n", "\r\n")
        if text.count(crlf_old):
            old_string, new_string = crlf_old, new_string.replace("\r\n", "\n").replace("\n", "\r\n")
            count = text.count(old_string)
    if count == 0:
        miss = closest_region(Lines.of(text), old_string, text)
        raise ToolError(f"old_string not found in {shown} (replace_all matches the exact text only){miss}")
    first_line = text[: text.index(old_string)].count("\n") + 1
    new = text.replace(old_string, new_string)
    at = f"at line {first_line}" if count == 1 else f"from line {first_line}"
    now = counted(_count_lines(new), "line")
    output = f"replaced {counted(count, 'occurrence')} in {shown} {at}; it now has {now}"
    return Change(path, shown, text, new, f"replaced {counted(count, 'occurrence')}", output)


def _line_numbers(text: str, needle: str, most: int = 5) -> str:
    numbers, start = [], 0
    while len(numbers) < most + 1 and (found := text.find(needle, start)) != -1:
        numbers.append(text.count("\n", 0, found) + 1)
        start = found + len(needle)
    listed = ", ".join(str(n) for n in numbers[:most])
    return listed + (", ..." if len(numbers) > most else "")


def plan_insert_line(context: ToolContext, args: dict[str, Any]) -> Change:
    path, shown = _target(context, args["file_path"])
    number, content = args["line_number"], args["content"]
    text = _read_text(path, shown, editor=context.editor)
    lines = _split_lines(text)
    total = len(lines)
    if not 1 <= number <= total + 1:
        raise ToolError(
            f"line_number {number} is out of range: {shown} has {counted(total, 'line')}; "
            f"give 1 to {total + 1} ({total + 1} appends)"
        )
    newline = _newline_of(text)
    block = content.replace("\r\n", "\n").replace("\n", newline)
    if not block.endswith(newline):
        block += newline
    if number == total + 1 and lines and not lines[-1].endswith("\n"):
        lines[-1] += newline  # the last line had no ending; the new text goes on a line of its own
    added = _count_lines(block)
    new = "".join(lines[: number - 1]) + block + "".join(lines[number - 1 :])
    where = "at the end" if number == total + 1 else f"before line {number}"
    output = f"inserted {counted(added, 'line')} into {shown} {where}; it now has {counted(total + added, 'line')}"
    return Change(path, shown, text, new, f"inserted {counted(added, 'line')}", output)


def plan_delete_line(context: ToolContext, args: dict[str, Any]) -> Change:
    path, shown = _target(context, args["file_path"])
    number = args["line_number"]
    text = _read_text(path, shown, editor=context.editor)
    lines = _split_lines(text)
    total = len(lines)
    if not 1 <= number <= total:
        span = f"give 1 to {total}" if total else "it is empty"
        raise ToolError(f"line_number {number} is out of range: {shown} has {counted(total, 'line')}; {span}")
    removed = lines.pop(number - 1).rstrip("\r\n")
    if len(removed) > 80:
        removed = removed[:79] + "…"
    new = "".join(lines)
    output = f"deleted line {number} of {shown} ({removed!r}); it now has {counted(total - 1, 'line')}"
    return Change(path, shown, text, new, f"deleted line {number}", output)


def plan_replace_lines(context: ToolContext, args: dict[str, Any]) -> Change:
    """Lines start..end become content; end = start - 1 inserts before start; content "" deletes them.
    Only on lines the model has seen as they are now (tools/seen_lines.py)."""
    path, shown = _target(context, args["file_path"])
    start, end, content = args["start_line"], args["end_line"], args["content"]
    text = _read_text(path, shown, editor=context.editor)
    lines = _split_lines(text)
    total = len(lines)
    if start < 1 or end < start - 1:
        raise ToolError(f"start_line {start}, end_line {end}: give 1 <= start_line <= end_line "
                        "(end_line = start_line - 1 inserts before start_line)")
    if end > total or start > total + 1:
        raise ToolError(f"lines {start}-{end} are out of range: {shown} has {counted(total, 'line')}"
                        + (f"; start_line={total + 1}, end_line={total} appends" if start > total else ""))
    refusal = context.seen.check(path, shown, [line.rstrip("\r\n") for line in lines], start, end)
    if refusal:
        raise ToolError(refusal)
    newline = _newline_of(text) if text else "\n"
    block = content.replace("\r\n", "\n").replace("\n", newline)
    if block and not block.endswith(newline) and (end < total or text.endswith("\n")):
        block += newline  # the lines after it, or the file's last line ending, stay as they were
    if start == total + 1 and lines and not lines[-1].endswith("\n") and block:
        lines[-1] += newline  # appended after a last line that had no ending
    new = "".join(lines[: start - 1]) + block + "".join(lines[end:])
    added, removed = _count_lines(block), end - start + 1
    if removed == 0:
        did = f"inserted {counted(added, 'line')} before line {start}" if start <= total else \
            f"appended {counted(added, 'line')}"
    elif not block:
        did = f"deleted lines {start}-{end}" if removed > 1 else f"deleted line {start}"
    else:
        did = f"replaced lines {start}-{end} with {counted(added, 'line')}"
    shift = f"; lines after it moved by {added - removed:+d}" if added != removed and end < total else ""
    output = f"{did} in {shown}{shift}; it now has {counted(_count_lines(new), 'line')}"
    return Change(path, shown, text, new, did, output)


# --- preview and run, the same for every tool


Plan = Callable[[ToolContext, dict[str, Any]], Change]


def _previewer(plan: Plan) -> Callable[[ToolContext, dict[str, Any]], Preview]:
    def preview(context: ToolContext, args: dict[str, Any]) -> Preview:
        change = plan(context, args)
        return Preview(change.shown, change.old, change.new)

    return preview


def _runner(plan: Plan, name: str) -> Callable[[ToolContext, dict[str, Any]], ToolResult]:
    def run(context: ToolContext, args: dict[str, Any]) -> ToolResult:
        change = plan(context, args)
        if change.old == change.new:
            if change.whole:
                context.seen.wrote(change.path, change.new)
            return ToolResult(ok=True, output=change.output, summary="no change")
        atomic_write(change.path, change.new, context.root, context.journal, name)
        if context.editor is not None:
            context.editor.wrote(change.path, change.new)
        if change.whole:
            context.seen.wrote(change.path, change.new)
        else:  # the seen lines move with the edit, so the model's next edit by number lands
            context.seen.edited(change.path, change.old or "", change.new)
        return ToolResult(ok=True, output=change.output, summary=change.summary)

    run.__name__ = name
    return run


FILE_PATH = {"type": "string"}
LINE_ALIASES = {"line": "line_number", "line_no": "line_number", "lineno": "line_number", "line_num": "line_number"}


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str],
          aliases: dict[str, str], plan: Plan, group: str = "core") -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {"file_path": FILE_PATH, **properties},
            "required": ["file_path", *required],
            "additionalProperties": False,
        },
        permission="w",
        run=_runner(plan, name),
        aliases=aliases,  # file_path's other names are the common ones (validate.COMMON_ALIASES)
        path_args=("file_path",),
        preview=_previewer(plan),
        group=group,
    )


WRITE_FILE = _spec(
    "write_file",
    "Create or overwrite a text file.",
    {"content": {"type": "string"}},
    ["content"],
    {"text": "content", "contents": "content", "data": "content"},
    plan_write_file,
)

REPLACE_STRING = _spec(
    "replace_string",
    "Replace exact text in a file; old_string must occur once unless replace_all.",
    {
        "old_string": {"type": "string"},
        "new_string": {"type": "string"},
        "replace_all": {"type": "boolean"},
    },
    ["old_string", "new_string"],
    {"old": "old_string", "old_str": "old_string", "old_text": "old_string", "search": "old_string",
     "new": "new_string", "new_str": "new_string", "new_text": "new_string", "replace": "new_string",
     "replacement": "new_string"},
    plan_replace_string,
)

INSERT_LINE = _spec(
    "insert_line",
    "Insert lines of content before line_number (from 1; line count + 1 appends).",
    {
        "line_number": {"type": "integer"},
        "content": {"type": "string"},
    },
    ["line_number", "content"],
    {**LINE_ALIASES, "text": "content", "line_content": "content"},
    plan_insert_line,
    group="files",
)

DELETE_LINE = _spec(
    "delete_line",
    "Delete one line of a file (from 1).",
    {"line_number": {"type": "integer"}},
    ["line_number"],
    LINE_ALIASES,
    plan_delete_line,
    group="files",
)

REPLACE_LINES = _spec(
    "replace_lines",
    "Replace lines start_line..end_line, as read in this session, with content.",
    {
        "start_line": {"type": "integer"},
        "end_line": {"type": "integer", "description": "start_line - 1: insert before start_line"},
        "content": {"type": "string", "description": "\"\" deletes the lines"},
    },
    ["start_line", "end_line", "content"],
    {"start": "start_line", "end": "end_line", "text": "content", "new_content": "content", "lines": "content"},
    plan_replace_lines,
)

EDIT_TOOLS = [WRITE_FILE, REPLACE_STRING, INSERT_LINE, DELETE_LINE, REPLACE_LINES]
