"""Where a JSON object or array ends, found incrementally: braces count only outside strings."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

_TOKENS = re.compile(r'[\\"{}\[\]<]')


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

    def end(self, buf: str) -> int | None:
        """The index after the value (or after `stop`); None while neither has arrived."""
        for token in _TOKENS.finditer(buf, self.position):
            char, at = token.group(0), token.start()
            if at < self.position:
                continue  # the character an escape just covered
            if char == "\\" and self.in_string:
                if at + 1 == len(buf):
                    return None  # the escaped character has not arrived
                self.position = at + 2
                continue
            if char == '"':
                self.in_string = not self.in_string
            elif self.in_string:
                pass
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth = max(0, self.depth - 1)
                if self.depth == 0:
                    self.position = at + 1
                    return at + 1
            elif self.stop and buf.startswith(self.stop, at):
                self.stopped = True
                return at + len(self.stop)
            elif self.stop and len(buf) - at < len(self.stop) and self.stop.startswith(buf[at:]):
                self.position = at
                return None  # a part of `stop` at the end: wait for the rest
            self.position = at + 1
        self.position = max(self.position, len(buf))
        return None


def json_values(text: str, between: str = "") -> Iterator[tuple[Any, int]]:
    """Each JSON value in `text` in turn, with where it ends; stops at the first thing that is not one.

    Whitespace and the characters in `between` may separate the values. Raises
    json.JSONDecodeError if the first value, or a later object or array, is broken.
    """
    skip = re.compile(r"[\s%s]*" % re.escape(between))
    decoder, position, first = json.JSONDecoder(), skip.match(text).end(), True
    while position < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            if first or text[position] in "{[":  # a broken value, not text after the values
                raise
            return
        first = False
        yield value, position
        position = skip.match(text, position).end()
