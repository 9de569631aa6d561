"""search_codebase: every line of the project's text files that a regex matches, honouring .gitignore.

It runs ripgrep (ripgrep.py) when `rg` is on PATH and the Python search below otherwise; both
give the same lines in the same order (files in path order, lines in file order), because both
feed one formatter with the same records: (path, line number, is it a match, text). The
Python search (line_matches.py finds the lines) sends a Tally instead of the lines past the
result cap: they are counted, never shown, and counting is much cheaper.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.storage.binary import looks_binary
from ayder_cli.storage.paths import display_path, resolve_in_root
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.tools.big_file_search import BIG_FILE_BYTES, big_file_records
from ayder_cli.tools.deadline import NEVER, Deadline
from ayder_cli.tools.gitignore import IgnoreRules, InvalidPattern, compile_glob
from ayder_cli.tools.line_matches import Record, Tally, Text, file_records, is_plain_literal, required_literal
from ayder_cli.tools.long_lines import LONG_LINE_BYTES, CutLine
from ayder_cli.tools.ripgrep import RipgrepFailed, rg_records
from ayder_cli.tools.search_query import Query
from ayder_cli.tools.walk import walk_entries
from ayder_cli.wording import counted

BACKENDS = ("auto", "python", "rg")  # auto: ripgrep when it is on PATH, else Python; the others force one
DEFAULT_MAX_RESULTS = 100
MAX_RESULTS_LIMIT = 1000
MAX_CONTEXT_LINES = 10
MAX_LINE_CHARS = 300  # of each result line's text


def search_codebase(context: ToolContext, args: dict[str, Any], deadline: Deadline | None = None) -> ToolResult:
    return search(
        context.root,
        args["pattern"],
        file_pattern=args.get("file_pattern"),
        case_sensitive=args.get("case_sensitive", True),
        context_lines=args.get("context_lines", 0),
        max_results=args.get("max_results", DEFAULT_MAX_RESULTS),
        directory=args.get("directory") or ".",
        backend=context.search_backend,
        deadline=deadline or Deadline(context.tool_timeout_s, context.clock),
    )


def search(
    root: Path,
    pattern: str,
    *,
    file_pattern: str | None = None,
    case_sensitive: bool = True,
    context_lines: int = 0,
    max_results: int = DEFAULT_MAX_RESULTS,
    directory: str = ".",
    backend: str = "auto",
    deadline: Deadline | None = None,
) -> ToolResult:
    """Every line of the project's text files matching `pattern`, as `path:line: text`;
    past the `deadline`, the lines found so far and a note saying it stopped."""
    deadline = deadline or NEVER
    root = Path(root).resolve()
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    try:
        regex = re.compile(pattern, flags)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from None
    target = resolve_in_root(root, directory)
    if not target.exists():
        raise ToolError(f"no such directory: {directory}")
    glob = None
    if file_pattern:
        try:
            glob = compile_glob(file_pattern)
        except InvalidPattern as exc:
            raise ToolError(f"invalid file_pattern {file_pattern!r}: {exc}") from None
    start = "" if target == root else display_path(root, target)
    literal = required_literal(regex)
    query = Query(regex, pattern, case_sensitive, max(0, min(context_lines, MAX_CONTEXT_LINES)),
                  start, not target.is_dir(), glob, literal, literal is not None and is_plain_literal(regex))
    rules = IgnoreRules.for_root(root)
    cap = max(1, min(max_results, MAX_RESULTS_LIMIT))
    output, summary = _format(_records(rules, query, backend, cap, deadline), query, cap)
    if deadline.hit:
        if summary == "no matches":
            output, summary = "[no matches so far]", "no matches so far"
        output += "\n" + deadline.note(summary)
        summary = f"stopped after {deadline.seconds:g} s: {summary}"
    return ToolResult(ok=True, output=output, summary=summary)


def _records(rules: IgnoreRules, query: Query, backend: str, cap: int,
             deadline: Deadline = NEVER) -> Iterator[Record | Tally]:
    if backend not in BACKENDS:
        raise ValueError(f"unknown search backend {backend!r}")
    rg = shutil.which("rg") if backend != "python" else None
    if backend == "rg" and rg is None:
        raise ToolError("ripgrep (rg) is not installed")
    if rg and not query.start_is_file:
        records = rg_records(rg, rules, query, deadline)
        try:
            first = next(records, None)
        except RipgrepFailed:  # e.g. a pattern only Python's re accepts (look-around)
            return python_records(rules, query, cap, deadline)
        return _chain(first, records)
    return python_records(rules, query, cap, deadline)


def _chain(first: Record | None, rest: Iterator[Record]) -> Iterator[Record]:
    if first is not None:
        yield first
        yield from rest


def _format(records: Iterator[Record | Tally], query: Query, max_results: int) -> tuple[str, str]:
    """grep-like lines for the first max_results matching lines, their context, and a note."""
    lines: list[str] = []
    shown = total = 0
    files: set[str] = set()
    previous: tuple[str, int] | None = None  # the last record shown
    last_match_line = 0
    for record in records:
        if type(record) is Tally:  # lines past the cap, counted by the Python search
            total += record.matches
            files.add(record.path)
            continue
        path, number, is_match, text = record
        if is_match:
            total += 1
            files.add(path)
        if shown >= max_results:
            # Past the cap: only the after-context of the last match shown, then just count.
            if is_match or previous is None or path != previous[0] or number != previous[1] + 1 \
                    or number > last_match_line + query.context:
                previous = (path, -2)  # nothing more is shown
                continue
        elif is_match:
            shown += 1
            last_match_line = number
        if query.context and previous is not None and (path, number - 1) != previous:
            lines.append("--")
        lines.append(_result_line(path, number, is_match, text))
        previous = (path, number)
    if total == 0:
        return _no_matches(query), "no matches"
    if total > shown:
        lines.append(f"[{shown} of {total} matching lines shown; narrow the pattern, "
                     "file_pattern or directory to see the rest]")
    return "\n".join(lines), f"{counted(total, 'matching line')} in {counted(len(files), 'file')}"


def _result_line(path: str, number: int, is_match: bool, text: Text) -> str:
    skipped = text.skipped if isinstance(text, CutLine) else 0  # rg's line, not read to its end
    size = len(text) + skipped if isinstance(text, bytes) else None
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.rstrip("\r")
    if len(text) > MAX_LINE_CHARS:
        size = size if size is not None else len(text.encode("utf-8", errors="surrogateescape"))
        if size > LONG_LINE_BYTES:  # the rest counted alike whether it was read (Python) or skipped (rg)
            more = size - len(text[:MAX_LINE_CHARS].encode("utf-8", errors="surrogateescape"))
            text = f"{text[:MAX_LINE_CHARS]}… [{more:,} more bytes]"
        else:
            text = f"{text[:MAX_LINE_CHARS]}… [{len(text) - MAX_LINE_CHARS:,} more characters]"
    mark = ":" if is_match else "-"
    return f"{path}{mark}{number}{mark} {text}"


def _no_matches(query: Query) -> str:
    where = f" in {query.start}" if query.start else ""
    which = f" (files matching {query.file_glob.source})" if query.file_glob else ""
    case = "" if query.case_sensitive else ", ignoring case"
    return (f"[no matches for {query.pattern!r}{where}{which}{case}; "
            "binary files and paths ignored by .gitignore are not searched]")


# --- the Python search


def python_records(rules: IgnoreRules, query: Query, limit: int | None = None,
                   deadline: Deadline = NEVER) -> Iterator[Record | Tally]:
    """The records of every matching line, walking and reading the files in Python; past
    `limit` matching lines, one Tally per file instead (counting is cheaper than showing).
    Past the `deadline` (checked after each file) it stops: `deadline.hit` tells the caller."""
    left = limit
    for rel, path in _files(rules, query, deadline):
        text = _text(path, query)
        if text is BIG:  # read a line at a time; _format counts what is past the cap
            for record in big_file_records(rel, path, query.regex, query.context):
                left = left - 1 if left and record[2] else left
                yield record
        elif text is not None:
            for record in file_records(rel, text, query.regex, query.context, query.literal,
                                       not query.case_sensitive, left):
                if left is not None and type(record) is not Tally and record[2]:
                    left -= 1
                yield record
        if deadline.passed():
            return


def _files(rules: IgnoreRules, query: Query, deadline: Deadline = NEVER) -> Iterator[tuple[str, str]]:
    """(root-relative, absolute) path of each file to search."""
    if not query.start_is_file:
        yield from ((entry.rel, entry.path) for entry in walk_entries(rules, query.start, deadline=deadline)
                    if entry.kind == "file" and query.wants(entry.rel))
        return
    name = query.start.rpartition("/")[2]
    if query.file_glob is None or query.file_glob.matches(name, name, False):
        yield query.start, str(rules.root / query.start)


def _text(path: str, query: Query) -> Text | _Big | None:
    """The file's text; None if it is unreadable, binary, or lacks the literal every match holds.
    The bytes as they are for a plain literal: the lines shown are decoded, nothing else."""
    data = _read(path)
    if data is None or data is BIG:
        return data
    if query.literal and query.case_sensitive and data.find(query.literal.encode("utf-8")) == -1:
        return None  # cannot match: not even decoded
    if looks_binary(data):
        return None  # binary: skipped, as rg does
    if query.plain and (query.case_sensitive or data.isascii()):
        return data
    return data.decode("utf-8", errors="replace")


class _Big:
    """_read's answer for a file past BIG_FILE_BYTES: searched a line at a time, not read whole."""


BIG = _Big()


def _read(path: str) -> bytes | _Big | None:
    """The whole file (os.read with the size from fstat: a third cheaper than open().read()); BIG
    for a big one."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > BIG_FILE_BYTES:
            return BIG
        data = os.read(fd, size + 1)
        if len(data) > size:  # it grew while we read: take the rest too
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


SEARCH_CODEBASE = ToolSpec(
    name="search_codebase",
    description="Regex search of the project's text files; prints path:line: text.",
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "file_pattern": {"type": "string", "description": "glob: *.py"},
            "case_sensitive": {"type": "boolean"},
            "context_lines": {"type": "integer"},
            "max_results": {"type": "integer"},
            "directory": {"type": "string"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    permission="r",
    run=search_codebase,
    aliases={"query": "pattern", "regex": "pattern", "glob": "file_pattern", "include": "file_pattern",
             "context": "context_lines"},
    path_args=("directory",),
)
