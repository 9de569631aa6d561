"""A tool call while it streams (native, or written as text and held by the intent scanner): its
name, what it works on (read from the partial JSON as soon as the value is whole) and how much has
come, for a line that grows with it.

Per fragment the work is bounded: the subject is looked for only in the new text and a short
tail of the text before it, and no more once found, so a 2 MB write_file costs no more per
piece than a small one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ayder_cli.llm.wire_types import ToolCallFragment

# What a call works on, in the order a tool's schema names it: the first of these shown.
SUBJECT_KEYS = ("file_path", "path", "directory", "command", "pattern", "identifier")
_SUBJECT = re.compile(r'"(' + "|".join(SUBJECT_KEYS) + r')"\s*:\s*"((?:[^"\\]|\\.)*)"')
TAIL_CHARS = 300  # a key and its value split across fragments are found if this short


@dataclass
class ArrivingCall:
    index: int
    name: str = ""
    subject: str = ""  # the path (or command, pattern) once its value is whole; "" before
    size: int = 0  # characters of arguments so far (0: they came whole, as Ollama sends them)
    _tail: str = ""

    def read(self, text: str) -> None:
        """More of the arguments: the subject looked for in them and the short tail before them."""
        if not self.subject:
            text = self._tail + text
            self.subject = _subject_in(text)
            self._tail = "" if self.subject else text[-TAIL_CHARS:]


class ArrivingCalls:
    """The native calls of one reply as their fragments come."""

    def __init__(self) -> None:
        self._calls: dict[int, ArrivingCall] = {}

    def add(self, fragments: list[ToolCallFragment]) -> ArrivingCall:
        """Take a delta's fragments in; the call the last of them belongs to."""
        call = None
        for fragment in fragments:
            call = self._calls.get(fragment.index)
            if call is None:
                call = self._calls[fragment.index] = ArrivingCall(fragment.index)
            if fragment.name and fragment.name != call.name:
                call.name += fragment.name  # as the Accumulator joins it
            arguments = fragment.arguments
            if isinstance(arguments, dict):
                call.subject = call.subject or _subject_of(arguments)
            elif arguments:
                call.size += len(arguments)
                call.read(arguments)
        return call


# A call written as text names its tool near its opener: `[CALL] name {...}`, `{"name": "name", ...}`.
_TEXT_NAME = re.compile(r'\[CALL\]\s*([A-Za-z_][\w.-]*)|"name"\s*:\s*"([A-Za-z_][\w.-]*)"')
NAME_WITHIN = 200  # characters from the opener a text call's name is looked for in


class ArrivingText:
    """A call written as text while the intent scanner holds it: shown once its name is one of the
    tools offered ([CALL] lines and JSON calls; other dialects get the activity line only)."""

    def __init__(self, tools) -> None:
        self.tools = tools  # the names offered (a dict of schemas by name will do)
        self._call: ArrivingCall | None = None
        self._head = ""  # the held markup's start: another block starts otherwise
        self._seen = 0  # characters of it read so far

    def see(self, held: str) -> ArrivingCall | None:
        """The call in the markup held now (StreamFilter.held()); None while none can be named."""
        if not held or not held.startswith(self._head) or len(held) < self._seen:
            self._call, self._head, self._seen = None, held[:20], 0
        if not held:
            return None
        if self._call is None:
            match = _TEXT_NAME.search(held, 0, NAME_WITHIN)
            name = match and (match.group(1) or match.group(2))
            if not name or name not in self.tools:
                return None
            self._call = ArrivingCall(-1, name)
        self._call.read(held[self._seen:])
        self._call.size = self._seen = len(held)
        return self._call


def _subject_in(text: str) -> str:
    """The first subject whose value is whole in `text`, unescaped; "" when none is yet."""
    found = {}
    for match in _SUBJECT.finditer(text):
        found.setdefault(match.group(1), match.group(2))
    for key in SUBJECT_KEYS:
        if key in found:
            try:
                return json.loads(f'"{found[key]}"')
            except json.JSONDecodeError:
                return found[key]
    return ""


def _subject_of(arguments: dict) -> str:
    for key in SUBJECT_KEYS:
        if isinstance(arguments.get(key), str):
            return arguments[key]
    return ""
