"""get_file_info: what a file or directory is (type, size, lines, time, mode), without reading it to the model."""

from __future__ import annotations

import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.storage.binary import SNIFF_BYTES, looks_binary
from ayder_cli.storage.paths import display_path, resolve_in_root
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.tools.gitignore import IgnoreRules
from ayder_cli.tools.walk import scan

COUNT_LINES_UP_TO_BYTES = 32 * 1024 * 1024


def get_file_info(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    given = args["file_path"]
    path = resolve_in_root(context.root, given)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ToolError(f"no such file: {given}") from None
    except OSError as exc:
        raise ToolError(f"cannot read {given}: {exc.strerror or exc}") from None
    shown = display_path(context.root, path)
    lines = [f"path: {shown}"]
    link = context.root / given
    if link.is_symlink():
        lines.append(f"symlink: {display_path(context.root, link.parent.resolve() / link.name)} -> {shown}")
    rules = IgnoreRules.for_root(context.root)
    if stat.S_ISDIR(info.st_mode):
        lines.append("type: directory")
        try:
            entries, ignored = scan(rules, "" if shown == "." else shown)
            more = f" ({ignored} more ignored by .gitignore)" if ignored else ""
            lines.append(f"entries: {len(entries)}{more}")
        except OSError as exc:
            lines.append(f"entries: unreadable ({exc.strerror or exc})")
    elif stat.S_ISREG(info.st_mode):
        kind, line_count = _text_or_binary(path, info.st_size)
        lines.append(f"type: {kind} file")
        lines.append(f"size: {_size(info.st_size)}")
        if line_count is not None:
            lines.append(f"lines: {line_count:,}")
        elif kind == "text":
            lines.append(f"lines: not counted (over {COUNT_LINES_UP_TO_BYTES // 1024 // 1024} MB)")
    else:
        lines.append("type: other (a device, socket or pipe)")
    modified = datetime.fromtimestamp(info.st_mtime, tz=timezone.utc)
    lines.append(f"modified: {modified.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    lines.append(f"mode: {stat.filemode(info.st_mode)} ({stat.S_IMODE(info.st_mode):04o})")
    if shown != "." and rules.is_excluded(shown, stat.S_ISDIR(info.st_mode)):
        lines.append("ignored by .gitignore: yes")
    summary = next(line for line in lines if line.startswith("type: "))[len("type: "):]
    return ToolResult(ok=True, output="\n".join(lines), summary=summary)


def _text_or_binary(path: Path, size: int) -> tuple[str, int | None]:
    """("text" or "binary", the number of lines of a text file not over the counting limit)."""
    try:
        with path.open("rb") as stream:
            head = stream.read(SNIFF_BYTES)
            if looks_binary(head):
                return "binary", None
            if size > COUNT_LINES_UP_TO_BYTES:
                return "text", None
            lines, last = head.count(b"\n"), head[-1:]
            while chunk := stream.read(1 << 20):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError as exc:
        raise ToolError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    return "text", lines + (1 if last and last != b"\n" else 0)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size:,} bytes"
    unit = "KB" if size < 1024 * 1024 else "MB"
    scaled = size / 1024 if unit == "KB" else size / 1024 / 1024
    return f"{size:,} bytes ({scaled:.1f} {unit})"


GET_FILE_INFO = ToolSpec(
    name="get_file_info",
    description="Size, line count, modified time, text/binary and mode of a file.",
    parameters={
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
        "additionalProperties": False,
    },
    permission="r",
    run=get_file_info,
    path_args=("file_path",),
    group="files",
)
