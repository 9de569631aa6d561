"""A native tool call while its arguments stream: its name, what it works on (read from the
partial JSON as soon as the value is whole) and how much has come, for a line that grows with it.

Per fragment the work is bounded: the subject is looked for only in the new text and a short
tail of the text before it, and no more once found, so a 2 MB write_file costs no more per
piece than a small one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ayder_cli.llm.base import ToolCallFragment

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
                if not call.subject:
                    text = call._tail + arguments
                    call.subject = _subject_in(text)
                    call._tail = "" if call.subject else text[-TAIL_CHARS:]
        return call


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
