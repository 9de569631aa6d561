"""The text forms the forgiving match compares: lines with their offsets, and each line's key at a level.

A level says what is forgiven, each including the ones before it. The keys are made with str
methods over the whole file (fast); canon() makes the same key one character at a time with
where each character came from, for the few lines a match lands on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate
from operator import add

EOL, TRAILING, INDENT, SPACES, BLANK, LOOKALIKE = range(1, 7)

LINE_BREAK = re.compile(r"\r\n|\r|\n")
SPACE_RUN = re.compile(r"[ \t]+")

# Characters a model writes for another that looks the same (word processors' quotes and dashes,
# a space that does not break); each is read as the plain one.
_SINGLE = {c: "'" for c in "\u2018\u2019\u201a\u201b\u2032"}
_DOUBLE = {c: '"' for c in "\u201c\u201d\u201e\u201f\u2033"}
_SPACE = {c: " " for c in "\u00a0\u2002\u2003\u2007\u2009\u200a\u202f"}
_DASH = {c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"}
LOOKALIKES = {**_SINGLE, **_DOUBLE, **_SPACE, **_DASH}
ELLIPSIS = "\u2026"
_FOLD = str.maketrans({**LOOKALIKES, ELLIPSIS: "..."})


def fold(line: str) -> str:
    return line.translate(_FOLD)


_ANY_LOOKALIKE = re.compile("[" + "".join(LOOKALIKES) + ELLIPSIS + "]")


def has_lookalike(text: str) -> bool:
    return _ANY_LOOKALIKE.search(text) is not None


def key(line: str, level: int) -> str:
    """What is compared of one line (no line ending) at a level."""
    if level >= LOOKALIKE:
        line = fold(line)
    if level >= INDENT:
        return SPACE_RUN.sub(" ", line.strip(" \t")) if level >= SPACES else line.strip(" \t")
    if level >= TRAILING:
        return line.rstrip(" \t")
    return line


def canon(line: str, lookalikes: bool) -> tuple[str, list[int]]:
    """The line with runs of spaces and tabs made one space (and lookalikes folded), and for each
    character of the result the index in `line` it came from. Edges are not stripped."""
    out: list[str] = []
    pos: list[int] = []
    in_run = False
    for index, char in enumerate(line):
        if lookalikes:
            char = LOOKALIKES.get(char, char)
        if char in " \t":
            if not in_run:
                out.append(" ")
                pos.append(index)
            in_run = True
            continue
        in_run = False
        if lookalikes and char == ELLIPSIS:
            out.extend("...")
            pos.extend((index, index, index))
        else:
            out.append(char)
            pos.append(index)
    return "".join(out), pos


def leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str, tab: int) -> int:
    column = 0
    for char in indent:
        column = (column // tab + 1) * tab if char == "\t" else column + 1
    return column


@dataclass
class Lines:
    """A text split at \\r\\n, \\r or \\n: each line's content, its ending and where it starts."""

    contents: list[str]
    endings: list[str]
    starts: list[int]

    @classmethod
    def of(cls, text: str) -> "Lines":
        if "\r" in text:
            contents, endings = LINE_BREAK.split(text), [*LINE_BREAK.findall(text), ""]
        else:  # the usual case, and a faster split
            contents = text.split("\n")
            endings = ["\n"] * (len(contents) - 1) + [""]
        if contents and contents[-1] == "" and len(contents) > 1:
            contents, endings = contents[:-1], endings[:-1]  # the text ends with a line break
        starts = list(accumulate(map(add, map(len, contents), map(len, endings)), initial=0))[:-1]
        return cls(contents, endings, starts)

    def end_of(self, index: int, with_ending: bool = True) -> int:
        return self.starts[index] + len(self.contents[index]) + (len(self.endings[index]) if with_ending else 0)

    def line_at(self, offset: int) -> int:
        """The 1-based number of the line holding offset."""
        low, high = 0, len(self.starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self.starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1


def split_model_text(text: str) -> tuple[list[str], bool]:
    """A string the model wrote, as lines, and whether it ended with a line break."""
    lines = LINE_BREAK.split(text)
    if len(lines) > 1 and lines[-1] == "":
        return lines[:-1], True
    return lines, False
