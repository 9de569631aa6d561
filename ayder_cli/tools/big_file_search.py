"""search_codebase's Python search of a big file: a line at a time, never the whole file in memory.

A file past BIG_FILE_BYTES (a log, a dump, a minified bundle of a gigabyte on one line) is read
line by line. Of a line longer than LONG_LINE_BYTES only its start is kept, as the ripgrep search
shows it (a CutLine); the rest is searched a window at a time, each window overlapping the one
before by LONG_LINE_BYTES, so a match is found unless it is itself longer than that.
"""

from __future__ import annotations

import re
from collections import deque
from typing import BinaryIO, Iterator

from ayder_cli.storage.binary import SNIFF_BYTES, looks_binary
from ayder_cli.tools.line_matches import Record
from ayder_cli.tools.long_lines import LONG_LINE_BYTES, CutLine

BIG_FILE_BYTES = 8 * 1024 * 1024  # smaller files are read whole: a line at a time is slower
WINDOW_BYTES = 1 << 20  # of a long line, searched at once


def big_file_records(rel: str, path: str, regex: re.Pattern[str], context: int) -> Iterator[Record]:
    """The matching lines of the file and `context` lines around each, as search.py's file_records
    gives them; nothing for a binary or unreadable file."""
    try:
        stream = open(path, "rb")
    except OSError:
        return
    with stream:
        if looks_binary(stream.read(SNIFF_BYTES)):
            return
        stream.seek(0)
        before: deque[Record] = deque(maxlen=context or 1)
        after = 0
        for number, (line, matched) in enumerate(_lines(stream, regex), 1):
            if matched:
                yield from before if context else ()
                before.clear()
                yield rel, number, True, line
                after = context
            elif after:
                yield rel, number, False, line
                after -= 1
            elif context:
                before.append((rel, number, False, line))


def _lines(stream: BinaryIO, regex: re.Pattern[str]) -> Iterator[tuple[bytes, bool]]:
    """Each line (a CutLine past LONG_LINE_BYTES) without its line break, and whether the regex matches in it."""
    search = regex.search
    while head := stream.readline(LONG_LINE_BYTES):
        whole = head.endswith(b"\n") or len(head) < LONG_LINE_BYTES
        if whole:
            line = head[:-1] if head.endswith(b"\n") else head
            yield line, search(line.decode("utf-8", errors="replace")) is not None
            continue
        matched = search(head.decode("utf-8", errors="replace")) is not None
        tail, skipped = head, 0
        while chunk := stream.readline(WINDOW_BYTES):
            ended = chunk.endswith(b"\n")
            body = chunk[:-1] if ended else chunk
            skipped += len(body)
            if not matched:
                matched = search((tail + body).decode("utf-8", errors="replace")) is not None
            tail = body[-LONG_LINE_BYTES:]
            if ended:
                break
        line = CutLine(head)
        line.skipped = skipped
        yield line, matched
