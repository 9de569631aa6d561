"""The read-only file tools: read_file and list_files (which honours .gitignore)."""

from __future__ import annotations

import difflib
import io
import os
from pathlib import Path
from typing import Any

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.storage.binary import SNIFF_BYTES, looks_binary
from ayder_cli.storage.paths import display_path, resolve_in_root
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.tools.deadline import Deadline
from ayder_cli.tools.gitignore import IgnoreRules, InvalidPattern, compile_glob
from ayder_cli.tools.long_lines import CutLine, bounded_lines, bytes_after
from ayder_cli.tools.seen_lines import CUT
from ayder_cli.tools.walk import scan, walk_entries
from ayder_cli.wording import counted

MAX_LINES = 2000  # per read_file call
MAX_LINE_CHARS = 2000  # a minified file's one long line should not fill the whole reply
LINE_HEAD_BYTES = 4 * MAX_LINE_CHARS + 4  # of a line, at most this is held: enough for MAX_LINE_CHARS in UTF-8
MAX_ENTRIES = 1000  # per list_files call
COUNT_TOTAL_UP_TO_BYTES = 4 * 1024 * 1024  # beyond this, a range read does not scan on for the total
NOTE_ROOM = 200  # characters kept free for the closing note


def read_file(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    given = args["file_path"]
    path = resolve_in_root(context.root, given)
    if not path.exists():
        raise ToolError(f"no such file: {given}{_suggestion(context.root, path)}")
    if path.is_dir():
        raise ToolError(f"{given} is a directory, not a file; use list_files to see what it holds")
    if not path.is_file():
        raise ToolError(f"{given} is not a regular file (a device, socket or pipe); it cannot be read")
    start = args.get("start_line", 1)
    end = args.get("end_line")
    if start < 1:
        raise ToolError(f"start_line must be 1 or more (lines are numbered from 1), got {start}")
    if end is not None and end < start:
        raise ToolError(f"end_line ({end}) is before start_line ({start})")
    ranged = "start_line" in args or "end_line" in args
    held = context.editor.read(path) if context.editor is not None else None  # the editor's text, unsaved too
    try:
        with _opened(path, held) as stream:
            if looks_binary(stream.read(SNIFF_BYTES)):
                size = stream.seek(0, os.SEEK_END)
                raise ToolError(f"{given} is a binary file ({size:,} bytes); read_file reads text files only")
            stream.seek(0)
            texts: list[str | None] = []
            result = _read_lines(stream, given, start, end, context.max_output_chars, ranged, texts)
    except OSError as exc:
        raise ToolError(f"cannot read {given}: {exc.strerror or exc}") from None
    context.seen.saw(path, start, texts)  # replace_lines edits only lines the model has seen
    return result


def _opened(path: Path, held: str | None) -> io.BufferedReader:
    """The file to read: on disk, or the text the editor holds of it."""
    return path.open("rb") if held is None else io.BufferedReader(io.BytesIO(held.encode("utf-8")))


def _read_lines(
    stream: io.BufferedReader, given: str, start: int, end: int | None, max_chars: int, ranged: bool,
    texts: list[str | None],
) -> ToolResult:
    """Stream the file up to the last line wanted: a range near the top of a huge file reads only that far.
    texts: each line shown, as shown (CUT: cut short)."""
    last_wanted = start + MAX_LINES - 1 if end is None else min(end, start + MAX_LINES - 1)
    budget = max_chars - NOTE_ROOM
    shown: list[str] = []
    used = 0
    number = 0  # lines read so far
    more = False  # the file goes on past the last line shown
    out_of_room = False
    for number, raw in enumerate(bounded_lines(stream, LINE_HEAD_BYTES), 1):
        if number < start:
            continue
        text = _decode(raw)
        line = f"{number:>6}\t{text}"
        if shown and used + len(line) + 1 > budget:
            more = out_of_room = True
            break
        shown.append(line)
        texts.append(CUT if isinstance(raw, CutLine) or len(text) > MAX_LINE_CHARS else text)
        used += len(line) + 1
        if number == last_wanted:
            more = bool(stream.peek(1))  # without reading the next line, which may be huge
            break
    total = _count_total(stream, number) if more else number

    if not shown:
        if total == 0 and start == 1:
            return ToolResult(ok=True, output="[empty file]", summary="0 lines")
        raise ToolError(f"start_line {start} is past the end of {given} ({total} lines)")
    last_shown = start + len(shown) - 1
    of_total = f"of {total}" if total is not None else f"of a {_size_text(stream)} file"
    capped = more and (end is None or end > last_wanted)  # stopped short of what was asked
    note = ""
    if out_of_room or capped:
        why = "output limit reached" if out_of_room else f"at most {MAX_LINES} lines per call"
        note = f"\n[lines {start}-{last_shown} {of_total}; {why}; ask for start_line={last_shown + 1} to read more]"
    elif ranged:
        note = f"\n[lines {start}-{last_shown} {of_total}]"
    return ToolResult(ok=True, output="\n".join(shown) + note, summary=counted(len(shown), "line"))


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    if isinstance(raw, CutLine):  # the rest of the line was not read into memory: its size in bytes is what is known
        more = bytes_after(text, MAX_LINE_CHARS, raw.skipped)
        return f"{text[:MAX_LINE_CHARS]}… [{more:,} more bytes on this line]"
    if len(text) > MAX_LINE_CHARS:
        text = f"{text[:MAX_LINE_CHARS]}… [{len(text) - MAX_LINE_CHARS:,} more characters on this line]"
    return text


def _count_total(stream: io.BufferedReader, lines_read: int) -> int | None:
    """Lines in the whole file, counting on from where reading stopped; None for files too big to scan."""
    if _size(stream) > COUNT_TOTAL_UP_TO_BYTES:
        return None
    total, last = lines_read, b"\n"
    while chunk := stream.read(1 << 16):
        total += chunk.count(b"\n")
        last = chunk[-1:]
    return total if last == b"\n" else total + 1


def _size(stream: io.BufferedReader) -> int:
    """The file's size in bytes (the file's, or the editor's text's), the stream left where it was."""
    where = stream.tell()
    size = stream.seek(0, os.SEEK_END)
    stream.seek(where)
    return size


def _size_text(stream: io.BufferedReader) -> str:
    size = _size(stream)
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"


def list_files(context: ToolContext, args: dict[str, Any], deadline: Deadline | None = None) -> ToolResult:
    """One level, or every level below for a path glob (stopped at tool_timeout_s, keeping what it found)."""
    deadline = deadline or Deadline(context.tool_timeout_s, context.clock)
    given = args.get("directory") or "."
    path = resolve_in_root(context.root, given)
    if not path.exists():
        raise ToolError(f"no such directory: {given}{_suggestion(context.root, path)}")
    if not path.is_dir():
        raise ToolError(f"{given} is a file, not a directory; use read_file to read it")
    pattern = args.get("pattern") or None
    try:
        glob = compile_glob(pattern) if pattern else None
    except InvalidPattern as exc:
        raise ToolError(f"invalid pattern {pattern!r}: {exc}") from None
    rules = IgnoreRules.for_root(context.root)
    start = "" if path == context.root else display_path(context.root, path)
    ignored = 0
    try:
        if glob is not None and ("/" in pattern or "**" in pattern):
            found = walk_entries(rules, start, deadline=deadline)  # a path glob: every level below
        else:
            found, ignored = scan(rules, start)
    except OSError as exc:
        raise ToolError(f"cannot list {given}: {exc.strerror or exc}") from None
    # Root-relative names, so the model can pass any of them straight to read_file.
    entries = [(entry.rel, entry.points_to_dir()) for entry in found if glob is None
               or glob.matches(entry.rel[len(start) + 1:] if start else entry.rel, entry.name,
                               entry.kind == "dir")]
    lines = [f"{rel}/" if is_dir else rel for rel, is_dir in entries[:MAX_ENTRIES]]
    if not entries and not deadline.hit:
        lines.append(f"[no entries match {pattern}]" if glob else "[empty directory]")
    summary = counted(len(entries), "entry", "entries")
    if len(entries) > MAX_ENTRIES:
        lines.append(f"[{MAX_ENTRIES} of {len(entries)} entries shown]")
        summary = f"{MAX_ENTRIES} of {summary}"
    if ignored and glob is None:
        lines.append(f"[{ignored} more ignored by .gitignore]")
    if deadline.hit:
        lines.append(deadline.note(counted(len(entries), "entry", "entries")))
        summary = f"stopped after {deadline.seconds:g} s: {summary}"
    return ToolResult(ok=True, output="\n".join(lines), summary=summary)


def _suggestion(root: Path, missing: Path) -> str:
    """'; did you mean X?' for names close to the missing one in the same directory, else ''."""
    try:
        names = [name for name in os.listdir(missing.parent) if name != ".git"]
    except OSError:
        return ""
    close = difflib.get_close_matches(missing.name, names, n=3, cutoff=0.6)
    if not close:
        return ""
    return f"; did you mean {' or '.join(display_path(root, missing.parent / name) for name in close)}?"


READ_FILE = ToolSpec(
    name="read_file",
    description="Read a text file with numbered lines; start_line/end_line (from 1, inclusive) pick a range.",
    parameters={
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    },
    permission="r",
    run=read_file,
)

LIST_FILES = ToolSpec(
    name="list_files",
    description="List a directory (default .), one level; directories end with /.",
    parameters={
        "type": "object",
        "properties": {
            "directory": {"type": "string"},
            "pattern": {"type": "string", "description": "glob: *.py; with / or **, recursive"},
        },
        "additionalProperties": False,
    },
    permission="r",
    run=list_files,
    path_args=("directory",),
)
