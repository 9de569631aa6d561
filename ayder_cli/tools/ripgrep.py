"""search_codebase's ripgrep backend: rg asked to see the same files as the Python walk, and
its output read into the same records (path, line number, is it a match, text)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from ayder_cli.storage.atomic import TEMP_PREFIX
from ayder_cli.storage.binary import file_looks_binary
from ayder_cli.storage.layout import STATE_DIR
from ayder_cli.tools.deadline import NEVER, Deadline
from ayder_cli.tools.gitignore import IgnoreRules
from ayder_cli.tools.line_matches import Record
from ayder_cli.tools.long_lines import LONG_LINE_BYTES, CutLine, bounded_lines
from ayder_cli.tools.search_query import Query

RG_TIMEOUT_S = 120.0
RG_LINE_HEAD_BYTES = 4096 + 32 + LONG_LINE_BYTES  # the path, the line number, then the line's start
_RG_LINE = re.compile(rb"(\d+)([:-])")


class RipgrepFailed(Exception):
    """rg stopped before giving any line (an error of its own); the Python search takes over."""


def ripgrep_argv(rg: str, query: Query, ignore_file: str | None) -> list[str]:
    """rg told to see the same files as the Python walk: .gitignore files from the root
    down only (nothing from above the root, no .ignore, no git excludes or global rules),
    hidden files included, `.git` skipped, no encoding guesses, paths in sorted order.
    Binary files are searched as text (--text) and dropped by _parse_rg with the Python
    search's own test (storage.binary): rg's test stops at the first NUL anywhere.
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


def rg_records(rg: str, rules: IgnoreRules, query: Query, deadline: Deadline = NEVER) -> Iterator[Record]:
    """The records of every matching line as rg finds them; RipgrepFailed if rg gave none and failed."""
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
    for raw in bounded_lines(process.stdout, RG_LINE_HEAD_BYTES):  # a huge matching line is not held whole
        path_part, separator, rest = raw.partition(b"\0")
        if not separator:
            continue  # the "--" between groups: the formatter draws its own
        if path_part != path_bytes:
            if deadline.passed():  # checked once a file: the next file's lines are not read
                return
            path_bytes, path = path_part, os.fsdecode(path_part)
            # Globs rg could not be given, and binary files (rg searched them as text).
            wanted = query.wants(path) and not file_looks_binary(os.path.join(root, path))
        found = _RG_LINE.match(rest)
        if not wanted or found is None:
            continue
        any_line = True
        text = rest[found.end():].rstrip(b"\n")
        if isinstance(raw, CutLine):
            text = CutLine(text)
            text.skipped = raw.skipped
        yield path, int(found[1]), found[2] == b":", text
    if not any_line and process.wait(timeout=RG_TIMEOUT_S) not in (0, 1) and not deadline.hit:
        raise RipgrepFailed


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
