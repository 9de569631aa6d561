"""The read tools that search and describe the project: search_codebase,
get_project_structure and get_file_info. All of them honour .gitignore (see gitignore.py).

search_codebase runs ripgrep when `rg` is on PATH and a Python search otherwise; both give
the same lines in the same order (files in path order, lines in file order), because both
feed one formatter with the same records: (path, line number, is it a match, text). The
Python search (line_matches.py finds the lines) sends a Tally instead of the lines past the
result cap: they are counted, never shown, and counting is much cheaper.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ayder_cli.wording import counted
from ayder_cli.storage.layout import STATE_DIR
from ayder_cli.tools.base import ToolContext, ToolError, ToolResult, ToolSpec
from ayder_cli.storage.atomic import TEMP_PREFIX
from ayder_cli.tools.deadline import NEVER, Deadline
from ayder_cli.tools.gitignore import Glob, IgnoreRules, InvalidPattern, compile_glob, scan, walk_entries
from ayder_cli.tools.line_matches import Record, Tally, Text, file_records, is_plain_literal, required_literal
from ayder_cli.storage.paths import display_path, resolve_in_root

# "auto": ripgrep when it is on PATH, else Python; "python" or "rg" force one (tests, benchmarks).
BACKEND = "auto"
DEFAULT_MAX_RESULTS = 100
MAX_RESULTS_LIMIT = 1000
MAX_CONTEXT_LINES = 10
MAX_LINE_CHARS = 300  # of each result line's text
BINARY_SNIFF_BYTES = 8192  # a NUL byte in the first 8 KB: binary, not searched
RG_TIMEOUT_S = 120.0
TREE_MAX_LINES = 400
TREE_MAX_PER_DIR = 40
DEFAULT_DEPTH = 3
COUNT_LINES_UP_TO_BYTES = 32 * 1024 * 1024



# --- search_codebase


@dataclass(frozen=True)
class Query:
    regex: re.Pattern[str]
    pattern: str
    case_sensitive: bool
    context: int
    start: str  # root-relative directory or file ("" for the root)
    start_is_file: bool
    file_glob: Glob | None
    literal: str | None = None  # a string every match contains (see required_literal)
    plain: bool = False  # the pattern is that string and nothing else (see is_plain_literal)


def search_codebase(context: ToolContext, args: dict[str, Any], deadline: Deadline | None = None) -> ToolResult:
    return search(
        context.root,
        args["pattern"],
        file_pattern=args.get("file_pattern"),
        case_sensitive=args.get("case_sensitive", True),
        context_lines=args.get("context_lines", 0),
        max_results=args.get("max_results", DEFAULT_MAX_RESULTS),
        directory=args.get("directory") or ".",
        deadline=deadline or Deadline(context.tool_timeout_s),
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
    backend: str | None = None,
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
    output, summary = _format(_records(rules, query, backend or BACKEND, cap, deadline), query, cap)
    if deadline.hit:
        if summary == "no matches":
            output, summary = "[no matches so far]", "no matches so far"
        output += "\n" + deadline.note(summary)
        summary = f"stopped after {deadline.seconds:g} s: {summary}"
    return ToolResult(ok=True, output=output, summary=summary)


def _records(rules: IgnoreRules, query: Query, backend: str, cap: int,
             deadline: Deadline = NEVER) -> Iterator[Record | Tally]:
    if backend not in ("auto", "python", "rg"):
        raise ValueError(f"unknown search backend {backend!r}")
    rg = shutil.which("rg") if backend != "python" else None
    if backend == "rg" and rg is None:
        raise ToolError("ripgrep (rg) is not installed")
    if rg and not query.start_is_file:
        records = _rg_records(rg, rules, query, deadline)
        try:
            first = next(records, None)
        except _RipgrepFailed:  # e.g. a pattern only Python's re accepts (look-around)
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
    noun = "line" if total == 1 else "lines"
    return "\n".join(lines), f"{total} matching {noun} in {counted(len(files), 'file')}"


def _result_line(path: str, number: int, is_match: bool, text: Text) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.rstrip("\r")
    if len(text) > MAX_LINE_CHARS:
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
        if text is not None:
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
                    if entry.kind == "file" and _wanted(query, entry.rel))
        return
    name = query.start.rpartition("/")[2]
    if query.file_glob is None or query.file_glob.matches(name, name, False):
        yield query.start, str(rules.root / query.start)


def _text(path: str, query: Query) -> Text | None:
    """The file's text; None if it is unreadable, binary, or lacks the literal every match holds.
    The bytes as they are for a plain literal: the lines shown are decoded, nothing else."""
    data = _read(path)
    if data is None:
        return None
    if query.literal and query.case_sensitive and data.find(query.literal.encode("utf-8")) == -1:
        return None  # cannot match: not even decoded
    if data.find(b"\0", 0, BINARY_SNIFF_BYTES) != -1:
        return None  # binary: skipped, as rg does
    if query.plain and (query.case_sensitive or data.isascii()):
        return data
    return data.decode("utf-8", errors="replace")


def _read(path: str) -> bytes | None:
    """The whole file (os.read with the size from fstat: a third cheaper than open().read())."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
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


def _is_binary(path: str) -> bool:
    try:
        with open(path, "rb") as stream:
            return b"\0" in stream.read(BINARY_SNIFF_BYTES)
    except OSError:
        return True  # unreadable: not searched


def _wanted(query: Query, rel: str) -> bool:
    if query.file_glob is None:
        return True
    below = rel[len(query.start) + 1:] if query.start else rel
    return query.file_glob.matches(below, below.rpartition("/")[2], False)


# --- the ripgrep search


class _RipgrepFailed(Exception):
    """rg stopped before giving any line (an error of its own); the Python search takes over."""


_RG_LINE = re.compile(rb"(\d+)([:-])")


def ripgrep_argv(rg: str, query: Query, ignore_file: str | None) -> list[str]:
    """rg told to see the same files as the Python walk: .gitignore files from the root
    down only (nothing from above the root, no .ignore, no git excludes or global rules),
    hidden files included, `.git` skipped, no encoding guesses, paths in sorted order.
    Binary files are searched as text (--text) and dropped by _parse_rg with the Python
    search's own test (a NUL in the first 8 KB): rg's test stops at the first NUL anywhere.
    (rg 13 still reads .rgignore files; a project with one can see the two searches differ.)"""
    argv = [
        rg, "--no-config", "--no-messages", "--hidden", "--glob", "!.git", "--glob", f"!/{STATE_DIR}", "--glob", f"!{TEMP_PREFIX}*",
        "--no-ignore-parent", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global",
        "--no-require-git", "--encoding", "none", "--text", "--sort", "path",
        "--line-number", "--with-filename", "--no-heading", "--null", "--color", "never",
        "--case-sensitive" if query.case_sensitive else "--ignore-case",
    ]
    if query.context:
        argv += ["--context", str(query.context)]
    glob = query.file_glob
    if glob is not None and not glob.anchored and re.fullmatch(r"[\w.*?-]+", glob.glob):
        # A file type filters names without overriding .gitignore (a --glob would override it).
        argv += ["--type-add", f"ayder:{glob.glob}", "--type", "ayder"]
    if ignore_file:
        argv += ["--ignore-file", ignore_file]
    argv += ["--regexp", query.pattern]
    if query.start:
        argv += ["--", query.start]
    return argv


def _rg_records(rg: str, rules: IgnoreRules, query: Query, deadline: Deadline = NEVER) -> Iterator[Record]:
    ignore_file = None
    try:
        above = _rules_above(rules, query.start)
        if above:
            with tempfile.NamedTemporaryFile("w", suffix=".gitignore", delete=False,
                                             encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(above)
                ignore_file = handle.name
        process = subprocess.Popen(ripgrep_argv(rg, query, ignore_file), cwd=rules.root,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        watchdog = _watchdog(process, deadline)
        try:
            yield from _parse_rg(process, rules.root, query, deadline)
        finally:
            if watchdog is not None:
                watchdog.cancel()
            if process.poll() is None:
                process.kill()
            process.stdout.close()
            process.wait()
    finally:
        if ignore_file:
            os.unlink(ignore_file)


def _watchdog(process: subprocess.Popen, deadline: Deadline) -> threading.Timer | None:
    """A timer that stops rg at the deadline, even while it prints nothing."""
    remaining = deadline.remaining()
    if remaining is None:
        return None

    def stop() -> None:
        if process.poll() is None:
            deadline.expire()
            process.kill()

    timer = threading.Timer(remaining, stop)
    timer.daemon = True
    timer.start()
    return timer


def _parse_rg(process: subprocess.Popen, root: Path, query: Query, deadline: Deadline = NEVER) -> Iterator[Record]:
    path_bytes, path, wanted = b"", "", True
    any_line = False
    for raw in process.stdout:
        path_part, separator, rest = raw.partition(b"\0")
        if not separator:
            continue  # the "--" between groups: the formatter draws its own
        if path_part != path_bytes:
            if deadline.passed():  # checked once a file: the next file's lines are not read
                return
            path_bytes, path = path_part, os.fsdecode(path_part)
            # Globs rg could not be given, and binary files (rg searched them as text).
            wanted = _wanted(query, path) and not _is_binary(os.path.join(root, path))
        found = _RG_LINE.match(rest)
        if not wanted or found is None:
            continue
        any_line = True
        yield path, int(found[1]), found[2] == b":", rest[found.end():].rstrip(b"\n")
    if not any_line and process.wait(timeout=RG_TIMEOUT_S) not in (0, 1) and not deadline.hit:
        raise _RipgrepFailed


def _rules_above(rules: IgnoreRules, start: str) -> str:
    """The .gitignore rules of the directories above `start`, rewritten relative to the root,
    for rg's --ignore-file (rg itself reads only the .gitignore files from `start` down)."""
    if not start:
        return ""
    lines = []
    for rule_set in rules.chain(start.rpartition("/")[0]):
        base = "/" + _escape_glob(rule_set.base) + "/" if rule_set.base else "/"
        for rule in rule_set.rules:
            body = rule.glob if rule.anchored else "**/" + rule.glob
            lines.append(f"{'!' if rule.negated else ''}{base}{body}{'/' if rule.dir_only else ''}")
    return "\n".join(lines) + "\n" if lines else ""


def _escape_glob(text: str) -> str:
    return re.sub(r"([\\*?\[\]{}])", r"\\\1", text)


# --- get_project_structure


def get_project_structure(context: ToolContext, args: dict[str, Any], deadline: Deadline | None = None) -> ToolResult:
    depth = max(1, args.get("max_depth", DEFAULT_DEPTH))
    rules = IgnoreRules.for_root(context.root)
    return project_tree(rules, depth, deadline or Deadline(context.tool_timeout_s))


@dataclass
class _Node:
    rel: str
    name: str
    is_dir: bool  # shown with a trailing /
    expandable: bool  # a real directory, not a link to one (links are never followed)
    children: list["_Node"] | None = None  # None: not expanded
    hidden: int = 0  # entries beyond the per-directory cap
    count: int | None = None  # entries of an unexpanded directory, when known


def project_tree(rules: IgnoreRules, max_depth: int, deadline: Deadline = NEVER) -> ToolResult:
    """Level by level, so a cut keeps every top-level directory rather than the first few in full.
    Past the `deadline` (checked after each directory read) the tree shown is what was read."""
    top = _Node("", ".", True, True)
    level, depth, used, cut_at = [top], 0, 0, 0
    while level and depth < max_depth:
        planned = []
        for node in level:
            planned.append((node, _children(rules, node)))
            if deadline.passed():
                break
        adding = sum(len(shown) + (1 if hidden else 0) for _, (shown, hidden, _) in planned)
        if depth and used + adding > TREE_MAX_LINES:
            for node, (_, _, total) in planned:
                node.count = total
            cut_at = depth
            break
        level = []
        for node, (shown, hidden, _) in planned:
            node.children, node.hidden = shown, hidden
            level += [child for child in shown if child.expandable]
        used += adding
        depth += 1
        if deadline.hit:
            break
    else:
        for node in level:  # at the depth limit: say how much each holds
            node.count = _children(rules, node)[2]
    lines: list[str] = []
    _render(top, 0, lines)
    if not lines:
        lines.append("[empty project]")
    if cut_at:
        lines.append(f"[shown to depth {cut_at} to stay under {TREE_MAX_LINES} lines; "
                     "use list_files or a smaller max_depth]")
    if deadline.hit:
        lines.append(deadline.note(f"{used} entries"))
        return ToolResult(ok=True, output="\n".join(lines),
                          summary=f"stopped after {deadline.seconds:g} s: {used} entries")
    return ToolResult(ok=True, output="\n".join(lines), summary=f"{used} entries")


def _children(rules: IgnoreRules, node: _Node) -> tuple[list[_Node], int, int]:
    """(the entries shown, how many more, the total) of a directory, directories first."""
    try:
        entries, _ = scan(rules, node.rel)
    except OSError:
        return [], 0, 0
    nodes = [_Node(entry.rel, entry.name, entry.points_to_dir(), entry.kind == "dir") for entry in entries]
    nodes.sort(key=lambda item: (not item.is_dir, item.name))
    return nodes[:TREE_MAX_PER_DIR], max(0, len(nodes) - TREE_MAX_PER_DIR), len(nodes)


def _render(node: _Node, depth: int, lines: list[str]) -> None:
    indent = "  " * (depth - 1)
    if depth:
        text = f"{indent}{node.name}/" if node.is_dir else f"{indent}{node.name}"
        if node.expandable and node.children is None and node.count:
            text += f" ({node.count} {'entry' if node.count == 1 else 'entries'})"
        lines.append(text)
    for child in node.children or ():
        _render(child, depth + 1, lines)
    if node.hidden:
        lines.append(f"{'  ' * depth}… {node.hidden} more")


# --- get_file_info


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
            head = stream.read(BINARY_SNIFF_BYTES)
            if b"\0" in head:
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


# --- the specs

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
    aliases={"query": "pattern", "regex": "pattern", "path": "directory", "dir": "directory",
             "glob": "file_pattern", "include": "file_pattern", "context": "context_lines"},
    path_args=("directory",),
)

GET_PROJECT_STRUCTURE = ToolSpec(
    name="get_project_structure",
    description=f"Indented tree of the project's directories and files, {DEFAULT_DEPTH} levels unless max_depth.",
    parameters={
        "type": "object",
        "properties": {"max_depth": {"type": "integer"}},
        "additionalProperties": False,
    },
    permission="r",
    run=get_project_structure,
    aliases={"depth": "max_depth"},
    group="files",
)

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
    aliases={"path": "file_path"},
    path_args=("file_path",),
    group="files",
)

SEARCH_TOOLS = [SEARCH_CODEBASE, GET_PROJECT_STRUCTURE, GET_FILE_INFO]
