"""MiniMax-M1: <tool_calls> with one JSON call object per line, then </tool_calls>.

A line is read on its own, so a bad line (cut off, not JSON, not a call) is
reported and the good lines around it still run; a line may hold several
objects, or an array of them; an object written over
several lines is read whole once its braces close. (MiniMax-M2's
<minimax:tool_call> is read by the XML dialects.)
"""

from __future__ import annotations

import json
import re

from ayder_cli.calls import json_loads, json_raw_decode
from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.json_extent import JsonExtent
from ayder_cli.wording import short

OPENER, CLOSER = "<tool_calls>", "</tool_calls>"
_NEWLINE = re.compile("\n")
_BETWEEN = re.compile(r"[\s,]*")


class JsonLines(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.position = len(OPENER)  # the start of the next line to read
        self.items: list[tuple[int, int, bool]] = []  # (start, end, is a whole JSON value)
        self.pending: int | None = None  # where an object that did not end on its line starts
        self.extent: JsonExtent | None = None  # where that object's braces close
        self.closed: int | None = None  # where they did, once known

    def read(self, buf: str, final: bool) -> Verdict:
        if not self.items and self.pending is None:
            following = self.context.following(buf, len(OPENER))
            if not following:
                return NOT_MINE if final else NEED_MORE
            if not following.startswith(("{", "[")):
                return NOT_MINE
        while True:
            start = self._first_visible(buf)
            newline = self.context.skip_run(buf, start, _NEWLINE)
            if newline == len(buf) and not final:
                return self._close(buf, start) if buf.startswith(CLOSER, start) else NEED_MORE
            if buf.startswith(CLOSER, start):
                return self._close(buf, start)
            closer = buf.find(CLOSER, start, newline)  # after the last object, on its line
            if closer >= 0 and _spans(buf[start:newline].rstrip()) is None:
                self._line(buf, start, closer)
                return self._close(buf, closer)
            if start < newline:
                self._line(buf, start, newline)
            if newline == len(buf):
                self._bad_pending(newline)
                return Ends(len(buf))
            self.position = newline + 1

    def _first_visible(self, buf: str) -> int:
        at = self.position
        while at < len(buf) and buf[at] in " \t\r":
            at += 1
        return at

    def _line(self, buf: str, start: int, end: int) -> None:
        line = buf[start:end].rstrip()
        spans = _spans(line) if line.startswith(("{", "[")) else None
        if spans:  # one object, several on the line, or an array of them
            self._bad_pending(start)
            self.items += [(start + a, start + b, True) for a, b in spans]
            return
        if self.pending is None:
            if not line.startswith("{"):
                self.items.append((start, start + len(line), False))
                return
            self.pending, self.extent, self.closed = start, JsonExtent(start, stop=CLOSER), None
        if self.closed is None:
            self.closed = self.extent.end(buf)  # read on from where it stopped: each character once
        if self.closed is not None and self.closed <= end and not self.extent.stopped:
            self.items.append((self.pending, self.closed, True))  # an object written over several lines
            self.pending = self.extent = None

    def _bad_pending(self, end: int) -> None:
        if self.pending is not None:
            self.items.append((self.pending, end, False))
            self.pending = self.extent = None

    def _close(self, buf: str, at: int) -> Verdict:
        self._bad_pending(at)
        return Ends(at + len(CLOSER))

    def finish(self, text: str) -> None:
        for start, end, whole in self.items:
            line = text[start:end]
            value = _decoded(line) if whole else None
            if value is None:
                self.found.error(f"a line in <tool_calls> is not valid JSON (it may be cut off): {short(line)}")
            elif isinstance(value, list):
                self.found.add_json_calls(value, line, "a line in <tool_calls>")
            elif not self.found.add_json_call(value, line):
                self.found.error(f'a line in <tool_calls> needs {{"name": ..., "arguments": {{...}}}}: {short(line)}')


def _spans(line: str) -> list[tuple[int, int]] | None:
    """Where each JSON object or array on the line starts and ends, when they are all the line holds
    (apart by spaces or commas); None otherwise."""
    spans, at = [], 0
    while at < len(line):
        try:
            value, end = json_raw_decode(line, at)
        except ValueError:
            return None
        if not isinstance(value, (dict, list)):
            return None
        spans.append((at, end))
        at = _BETWEEN.match(line, end).end()
    return spans or None


def _decoded(text: str):
    try:
        return json_loads(text)
    except json.JSONDecodeError:
        return None


DIALECT = Dialect("minimax-m1", JsonLines, openers=(OPENER,))
