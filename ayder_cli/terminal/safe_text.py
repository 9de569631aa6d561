"""The one sanitizer for text from outside (a model's answer and thinking, a server's message, a
name, a path, a command's output) on its way to ayder's terminal; a line cut or wrapped to a width.

Text from outside may hold escape sequences (a clipboard write, a new window title, a cursor
report that types into the prompt, a cleared screen) and other control characters: shown raw,
they would act on the user's terminal. They are removed, the visible text kept; ayder's own
styling is added after, so it stays. A stream (StreamSanitizer) holds back a sequence cut at a
delta's end until the next delta says what it is. A command's line also drops what a carriage
return wrote over (a progress bar's last state is kept).
"""

from __future__ import annotations

import os
import re
import unicodedata

# A string's body (OSC, DCS, SOS, PM, APC): up to its terminator, a line's end, or the next control.
_BODY = r"[^\x07\x1b\n\x80-\x9f]*"
# CSI (ESC [ or 8-bit CSI, to its final byte), the strings (ended by BEL or ST when they are), and the
# two-character escapes (ESC 7, ESC c, ESC ( B, ...).
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    rf"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]){_BODY}(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[!-/]*[0-~]"
)
# The start of one of them, at the very end of a delta: the next delta may finish it.
_UNFINISHED = re.compile(
    rf"(?:(?:\x1b\[|\x9b)[0-?]*[ -/]*|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]){_BODY}\x1b?|\x1b[!-/]*)\Z")
_STRING_REST = re.compile(_BODY + r"(?:\x07|\x9c)?")  # the rest of a string's body, and its BEL or ST
# What is left that a terminal would act on: C0 controls but the tab and newline, DEL, C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_INTRODUCERS = "\x1b\x90\x98\x9b\x9d\x9e\x9f"
_STRING_STARTS = ("\x1b]", "\x1bP", "\x1bX", "\x1b^", "\x1b_", *"\x90\x98\x9d\x9e\x9f")
MAX_HELD = 1024  # the most of an unfinished sequence a stream holds back; a longer one is dropped


def safe_text(text: str) -> str:
    """Text from outside with nothing left that a terminal would act on; newlines and tabs stay."""
    if not _CONTROLS.search(text):
        return text  # the usual text: nothing to do
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


class StreamSanitizer:
    """safe_text() for a stream of deltas: a sequence split across two deltas is removed all the same."""

    def __init__(self) -> None:
        self._held = ""  # the start of a sequence at the last delta's end
        self._in_string = False  # inside a string (an OSC's body) too long to hold: the rest is dropped

    def feed(self, delta: str) -> str:
        """What of this delta can be shown now (safe); the start of a sequence at its end waits."""
        text = self._held + delta
        self._held = ""
        if self._in_string:
            body = _STRING_REST.match(text)
            end = body.end() if body else 0  # it always matches, if only nothing
            self._in_string = end == len(text) and text[end - 1:end] not in ("\x07", "\x9c")
            text = text[end:]
        if not _CONTROLS.search(text):
            return text
        start = _unfinished_start(text)
        if start is not None:
            text, held = text[:start], text[start:]
            if len(held) < MAX_HELD:
                self._held = held
            else:  # a string's body longer than any title: dropped, and what follows of it too
                self._in_string = held[:2] in _STRING_STARTS or held[0] in _STRING_STARTS
        return safe_text(text)

    def finish(self) -> None:
        """The stream ended: a sequence it held is dropped (it was never text)."""
        self._held, self._in_string = "", False


def safe_line(raw: str) -> str:
    """One line of output (no newline in it) with nothing left that a terminal would act on."""
    raw = raw.rstrip("\r")
    if "\r" in raw:
        raw = raw[raw.rfind("\r") + 1:]
    if raw.isprintable():
        return raw  # the usual line: nothing to do
    return safe_text(raw).replace("\n", "").expandtabs(8)


def cut_to_width(text: str, columns: int) -> str:
    """text in at most `columns` terminal columns; a cut line ends in "…" (wide characters count two)."""
    if len(text) <= columns and text.isascii():
        return text
    used = 0
    for index, char in enumerate(text):
        used += _columns(char)
        if used > columns:
            kept = text[:index]
            while kept and _width(kept) > columns - 1:  # room for the mark
                kept = kept[:-1]
            return kept + "…"
    return text


def wrap_row(lead: str, text: str, columns: int | None, min_text: int = 30) -> str:
    """lead + text, wrapped at word boundaries to `columns`, later lines under the text. When the
    lead leaves less than min_text columns, the text goes on the lines below it, indented. columns
    None (no terminal: a log, a pipe): one line, as grep expects."""
    if columns is None:
        return lead + text
    import textwrap  # only when a line is too long for the terminal

    width = max(columns - 1, 20)
    if len(lead) + min_text <= width:
        return textwrap.fill(text, width=width, initial_indent=lead, subsequent_indent=" " * len(lead),
                             break_long_words=False, break_on_hyphens=False)
    indent = " " * (len(lead) - len(lead.lstrip()) + 5)
    head = textwrap.fill(lead.strip(), width=width, initial_indent=lead[:len(lead) - len(lead.lstrip())],
                         subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    body = textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=False, break_on_hyphens=False)
    return f"{head}\n{body}"


def terminal_columns(environment) -> int:
    """The width of the terminal stderr shows on, now (it may have changed): COLUMNS, else 80, where unknown."""
    try:
        return os.get_terminal_size(environment.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):
        given = environment.env.get("COLUMNS", "")
        return int(given) if given.isdigit() and int(given) > 0 else 80


def _columns(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _width(text: str) -> int:
    return sum(_columns(char) for char in text)


def _unfinished_start(text: str) -> int | None:
    """Where a sequence that the next delta may finish starts at text's end (None: nothing unfinished)."""
    start = _last_introducer(text, len(text))
    if start < 0 or not _UNFINISHED.match(text, start):
        return None
    if start == len(text) - 1 and text[start] == "\x1b":  # maybe the first half of a string's ESC \
        earlier = _last_introducer(text, start)
        if earlier >= 0 and _UNFINISHED.match(text, earlier):
            return earlier
    return start


def _last_introducer(text: str, end: int) -> int:
    return max(text.rfind(char, 0, end) for char in _INTRODUCERS)
