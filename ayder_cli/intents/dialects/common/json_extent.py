"""Where a JSON object or array ends, found incrementally: braces count only outside strings."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from ayder_cli.calls import json_loads, json_raw_decode

_OUTSIDE = re.compile(r'["{}\[\]<]')  # what matters between strings
# A string's characters up to its closing quote, escapes whole ("unrolled": no backtracking stack).
_IN_STRING = re.compile(r"[^\"\\]*(?:\\.[^\"\\]*)*", re.S)


class JsonExtent:
    """Reads a JSON value from `start` on, delta by delta, without reading any character twice.

    `stop` is a tag (like "</tool_call>") that ends the search when it appears
    outside a string: the JSON was cut off and its block closed anyway.
    """

    def __init__(self, start: int, stop: str | None = None) -> None:
        self.position = start
        self.stop = stop
        self.in_string = False
        self.depth = 0
        self.stopped = False  # the search ended at `stop`, not at the value's end
        self.fresh = True

    def end(self, buf: str) -> int | None:
        """The index after the value (or after `stop`); None while neither has arrived."""
        position = self.position
        if self.fresh:  # the first look: a value already whole is read by the C decoder at once
            self.fresh = False
            try:
                self.position = json_raw_decode(buf, position)[1]
                return self.position
            except ValueError:
                pass  # cut off so far, or broken: read it token by token from here on
        while True:
            if self.in_string:
                position = _IN_STRING.match(buf, position).end()
                if position == len(buf) or buf[position] != '"':  # the end, or a lone backslash there
                    self.position = position
                    return None
                self.in_string, position = False, position + 1
                continue
            found = _OUTSIDE.search(buf, position)
            if found is None:
                self.position = len(buf)
                return None
            char, at = found.group(0), found.start()
            position = at + 1
            if char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth = max(0, self.depth - 1)
                if self.depth == 0:
                    self.position = position
                    return position
            elif self.stop and buf.startswith(self.stop, at):
                self.stopped = True
                return at + len(self.stop)
            elif self.stop and len(buf) - at < len(self.stop) and self.stop.startswith(buf[at:]):
                self.position = at
                return None  # a part of `stop` at the end: wait for the rest


def json_values(text: str, between: str = "") -> Iterator[tuple[Any, int]]:
    """Each JSON value in `text` in turn, with where it ends; stops at the first thing that is not one.

    Whitespace and the characters in `between` may separate the values. Raises
    json.JSONDecodeError if the first value, or a later object or array, is broken.
    """
    skip = re.compile(r"[\s%s]*" % re.escape(between))
    position, first = skip.match(text).end(), True
    while position < len(text):
        try:
            value, position = json_raw_decode(text, position)
        except json.JSONDecodeError:
            if first or text[position] in "{[":  # a broken value, not text after the values
                raise
            return
        first = False
        yield value, position
        position = skip.match(text, position).end()


class JsonSequence:
    """JSON objects one after another (apart by whitespace or the `between` characters), up to one of
    the `ends` tokens or the end of the reply. Found by JsonExtent, so a string may quote anything.

    Other text either ends the sequence (`text_ends`) or is kept, to its line's end, as a bad entry.
    `items` holds (start, end, is_json) spans of the buffer.
    """

    def __init__(self, start: int, ends: tuple[str, ...], between: str = "", text_ends: bool = False) -> None:
        self.position = start
        self.ends = ends
        self.text_ends = text_ends
        self._skip = re.compile(r"[\s%s]*" % re.escape(between))
        self._extent: JsonExtent | None = None
        self.items: list[tuple[int, int, bool]] = []

    def end(self, buf: str, final: bool) -> int | None:
        """Where the sequence ends (after its end token, if any); None while that is not known."""
        while True:
            if self._extent is not None:
                end = self._extent.end(buf)
                if end is None:
                    return self._cut(buf) if final else None
                self.items.append((self.position, end, True))
                self._extent, self.position = None, end
            at = self._skip.match(buf, self.position).end()
            if at == len(buf):
                return len(buf) if final else None
            token = next((token for token in self.ends if buf.startswith(token, at)), None)
            if token is not None:
                return at + len(token)
            if not final and any(token.startswith(buf[at:]) for token in self.ends):
                return None  # the start of an end token
            if buf[at] in "{[":
                self.position, self._extent = at, JsonExtent(at)
                continue
            if self.text_ends:
                return at
            newline = buf.find("\n", at)
            if newline < 0 and not final:
                return None
            self.items.append((at, newline if newline >= 0 else len(buf), False))
            self.position = newline if newline >= 0 else len(buf)

    def _cut(self, buf: str) -> int:
        self.items.append((self.position, len(buf), True))  # a value cut off at the end of the reply
        self._extent = None
        return len(buf)

    def values(self, text: str) -> Iterator[tuple[Any, str]]:
        """Each item decoded (None when it is not valid JSON), with its text."""
        for start, end, is_json in self.items:
            raw = text[start:end]
            try:
                yield (json_loads(raw) if is_json else None), raw
            except json.JSONDecodeError:
                yield None, raw
