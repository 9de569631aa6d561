"""Where old_string's lines stand in a file at one level of forgiveness: every candidate place.

Two ways to look: whole lines (old_string holds a line break, or is one whole line), compared
by their keys at the level; and a piece of one line, compared with runs of spaces collapsed
(and lookalikes folded), for a fragment such as `foo(a,  b)`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from ayder_cli.matching.edit_adapt import Shift, shift_of
from ayder_cli.matching.edit_text import BLANK, SPACE_RUN, SPACES, TRAILING, Lines, canon, fold, key

PROBES = 4  # of each line's longest runs, the rarest is looked for
UNCHANGED_RUN = re.compile(r"[^\s'\"\-.\u2010-\u2014\u2018-\u201f\u2026\u2032\u2033\u2212]+")


@dataclass
class Place:
    """One candidate: the span of the file's text, and which file line each old line stands on."""

    start: int
    end: int
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (old line index, file line index)
    shift: Shift | None = None
    fragment: tuple[str, str] | None = None  # for a piece of a line: (old's piece, the file's piece)


class FileView:
    """A file's lines and each line's key at a level, made when first asked for: a search looks
    only at the lines holding old_string's longest word, so a 10,000-line file costs little."""

    def __init__(self, text: str):
        self.text = text
        self.lines = Lines.of(text)
        self._keys: dict[int, dict[int, str]] = {}
        self._counts: dict[str, int] = {}

    def count(self, run: str) -> int:
        if run not in self._counts:
            self._counts[run] = self.text.count(run) if run else len(self.text)
        return self._counts[run]

    def key(self, index: int, level: int) -> str:
        level = SPACES if level == BLANK else level  # the same keys; BLANK only skips the empty ones
        cache = self._keys.setdefault(level, {})
        if index not in cache:
            cache[index] = key(self.lines.contents[index], level)
        return cache[index]

    def lines_with(self, word: str) -> list[int]:
        """The lines (indices) whose text holds word; every line when word is ''."""
        if not word:
            return list(range(len(self.lines.contents)))
        found, at, starts = [], self.text.find(word), self.lines.starts
        while at != -1:
            index = bisect_right(starts, at) - 1
            if not found or found[-1] != index:
                found.append(index)
            at = self.text.find(word, starts[index + 1] if index + 1 < len(starts) else len(self.text))
        return found

    def step(self, index: int, level: int, by: int) -> int:
        """The next line before (by=-1) or after (by=1) index that is compared at this level, or -1."""
        index += by
        while 0 <= index < len(self.lines.contents):
            if level < BLANK or self.key(index, level):
                return index
            index += by
        return -1


def probe(view: FileView, text: str) -> str:
    """The rarest in the file of the longest runs of text a near miss cannot have changed (no
    space, quote, dash or dot), to find the lines worth comparing with a plain search."""
    runs = sorted(set(UNCHANGED_RUN.findall(text)), key=len, reverse=True)[:PROBES]
    return min(runs, key=lambda run: (view.count(run), -len(run)), default="")


def rarest(view: FileView, keys: list[str]) -> tuple[int, str]:
    """Which of keys to look for first, and its probe."""
    probes = [probe(view, k) for k in keys]
    best = min(range(len(keys)), key=lambda t: (view.count(probes[t]), t))
    return best, probes[best]


def line_places(view: FileView, old_lines: list[str], ends_with_break: bool, level: int) -> list[Place]:
    if level <= TRAILING:
        return _edge_places(view, old_lines, ends_with_break, level)
    return _whole_line_places(view, old_lines, ends_with_break, level)


def _edge_places(view: FileView, old_lines: list[str], ends_with_break: bool, level: int) -> list[Place]:
    """Up to TRAILING the first old line may end a file line and the last may begin one, as in an
    exact match; the lines between are whole."""
    m = len(old_lines)
    if m == 1 and not ends_with_break:
        return []  # a piece of one line: fragment_places
    lines, count = view.lines, len(view.lines.contents)
    wanted = [key(line, level) for line in old_lines]
    anchor = 1 if m >= 3 else 0
    places = []
    for found in view.lines_with(probe(view, wanted[anchor])):
        i, last = found - anchor, found - anchor + m - 1
        if i < 0 or last >= count or not view.key(i, level).endswith(wanted[0]):
            continue
        if any(view.key(i + j, level) != wanted[j] for j in range(1, m - 1)):
            continue
        if m > 1:
            if ends_with_break:
                if view.key(last, level) != wanted[-1]:
                    continue
            elif not view.key(last, level).startswith(wanted[-1]):
                continue
        if ends_with_break and not lines.endings[last]:
            continue
        start = lines.starts[i] + len(view.key(i, level)) - len(wanted[0])
        end = lines.end_of(last) if ends_with_break or m == 1 else lines.starts[last] + len(wanted[-1])
        places.append(Place(start, end, [(j, i + j) for j in range(m)]))
    return places


def _whole_line_places(view: FileView, old_lines: list[str], ends_with_break: bool, level: int) -> list[Place]:
    """From INDENT on every old line is a whole line, and the block may stand shifted as a whole."""
    old = [(j, key(line, level)) for j, line in enumerate(old_lines)]
    if level >= BLANK:
        old = [(j, k) for j, k in old if k]
    if not any(k for _, k in old):
        return []
    anchor, word = rarest(view, [k for _, k in old])
    lines = view.lines
    places = []
    for found in view.lines_with(word):
        if view.key(found, level) != old[anchor][1]:
            continue
        where = [found]
        for t in range(anchor - 1, -1, -1):  # the old lines before the anchor, walking up
            where.insert(0, view.step(where[0], level, -1))
            if where[0] < 0 or view.key(where[0], level) != old[t][1]:
                break
        else:
            for t in range(anchor + 1, len(old)):  # and after it, walking down
                where.append(view.step(where[-1], level, 1))
                if where[-1] < 0 or view.key(where[-1], level) != old[t][1]:
                    break
            else:
                pairs = [(j, i) for (j, _), i in zip(old, where)]
                shift = shift_of([(old_lines[j], lines.contents[i]) for j, i in pairs])
                if shift is not None:
                    places.append(Place(lines.starts[where[0]], lines.end_of(where[-1], with_ending=ends_with_break),
                                        pairs, shift))
    return places


def fragment_places(view: FileView, piece: str, lookalikes: bool) -> list[Place]:
    """A piece of one line found with runs of spaces collapsed (and lookalikes folded), inside any line."""
    wanted, _ = canon(piece.strip(" \t"), lookalikes)
    if not wanted.strip():
        return []
    places = []
    for i in view.lines_with(probe(view, wanted)):
        line = view.lines.contents[i]
        fast = SPACE_RUN.sub(" ", fold(line) if lookalikes else line)
        if wanted not in fast:
            continue
        text, pos = canon(line, lookalikes)
        at = text.find(wanted)
        while at != -1:
            last = at + len(wanted) - 1
            inside_ellipsis = (at > 0 and pos[at] == pos[at - 1]) or (last + 1 < len(pos) and pos[last + 1] == pos[last])
            if not inside_ellipsis:
                start, end = view.lines.starts[i] + pos[at], view.lines.starts[i] + pos[last] + 1
                places.append(Place(start, end, [(0, i)], fragment=(piece.strip(" \t"), line[pos[at]:pos[last] + 1])))
            at = text.find(wanted, at + len(wanted))
    return places

