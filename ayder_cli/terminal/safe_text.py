"""A line a command printed, made safe to show on ayder's terminal, and cut to a width.

A command's output may hold escape sequences (colours, a cleared screen, a moved
cursor, a new window title) and other control characters: shown raw, they would
act on the user's terminal and break the live view's redraw. They are removed;
a carriage return keeps only what was written after it (a progress bar's last state).
"""

from __future__ import annotations

import os
import re
import unicodedata

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \, or to the end), DCS/SOS/PM/APC strings,
# and the two-character escapes (ESC 7, ESC c, ESC ( B, ...).
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\|$)"
    r"|\x1b[ -/]*[0-~]"
)
# What is left that a terminal would act on: C0 controls but the tab, DEL, C1 controls (8-bit CSI ...).
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def safe_line(raw: str) -> str:
    """One line of output (no newline in it) with nothing left that a terminal would act on."""
    raw = raw.rstrip("\r")
    if "\r" in raw:
        raw = raw[raw.rfind("\r") + 1:]
    if raw.isprintable():
        return raw  # the usual line: nothing to do
    return _CONTROLS.sub("", _ESCAPES.sub("", raw)).expandtabs(8)


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
