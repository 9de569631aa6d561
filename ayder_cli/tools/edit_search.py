"""Where old_string's lines stand in a file at one level of forgiveness: every candidate place.

Two ways to look: whole lines (old_string holds a line break, or is one whole line), compared
by their keys at the level; and a piece of one line, compared with runs of spaces collapsed
(and lookalikes folded), for a fragment such as `foo(a,  b)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ayder_cli.tools.edit_adapt import Shift, shift_of
from ayder_cli.tools.edit_text import BLANK, SPACE_RUN, TRAILING, Lines, canon, fold, key


@dataclass
class Place:
    """One candidate: the span of the file's text, and which file line each old line stands on."""

    start: int
    end: int
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (old line index, file line index)
    shift: Shift | None = None
    fragment: tuple[str, str] | None = None  # for a piece of a line: (old's piece, the file's piece)


class FileView:
    """A file's lines and, per level, their keys and where each key stands (built once per level)."""

    def __init__(self, text: str):
        self.text = text
        self.lines = Lines.of(text)
        self._keys: dict[int, list[str]] = {}
        self._index: dict[int, tuple[list[int], dict[str, list[int]]]] = {}

    def keys(self, level: int) -> list[str]:
        if level not in self._keys:
            self._keys[level] = [key(line, level) for line in self.lines.contents]
        return self._keys[level]

    def index(self, level: int) -> tuple[list[int], dict[str, list[int]]]:
        """The file lines compared at this level (blank ones left out from BLANK on) and, for each
        key, the positions in that list where it stands."""
        if level not in self._index:
            keys = self.keys(level)
            kept = [i for i, k in enumerate(keys) if k] if level >= BLANK else list(range(len(keys)))
            where: dict[str, list[int]] = {}
            for position, i in enumerate(kept):
                where.setdefault(keys[i], []).append(position)
            self._index[level] = (kept, where)
        return self._index[level]


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
    keys, lines = view.keys(level), view.lines
    wanted = [key(line, level) for line in old_lines]
    if m >= 3:
        _, where = view.index(level)
        starts = [position - 1 for position in where.get(wanted[1], ()) if position >= 1]
    else:
        starts = range(len(keys))
    places = []
    for i in starts:
        last = i + m - 1
        if last >= len(keys) or not keys[i].endswith(wanted[0]):
            continue
        if any(keys[i + j] != wanted[j] for j in range(1, m - 1)):
            continue
        if m > 1:
            if ends_with_break:
                if keys[last] != wanted[-1]:
                    continue
            elif not keys[last].startswith(wanted[-1]):
                continue
        if ends_with_break and not lines.endings[last]:
            continue
        start = lines.starts[i] + len(keys[i]) - len(wanted[0])
        end = lines.end_of(last) if ends_with_break else lines.starts[last] + len(wanted[-1])
        if m == 1:
            end = lines.end_of(last)
        places.append(Place(start, end, [(j, i + j) for j in range(m)]))
    return places


def _whole_line_places(view: FileView, old_lines: list[str], ends_with_break: bool, level: int) -> list[Place]:
    """From INDENT on every old line is a whole line, and the block may stand shifted as a whole."""
    kept, where = view.index(level)
    old = [(j, key(line, level)) for j, line in enumerate(old_lines)]
    if level >= BLANK:
        old = [(j, k) for j, k in old if k]
    if not old or not any(k for _, k in old):
        return []
    lines, keys = view.lines, view.keys(level)
    places = []
    for position in where.get(old[0][1], ()):
        if position + len(old) > len(kept):
            continue
        if any(keys[kept[position + t]] != k for t, (_, k) in enumerate(old)):
            continue
        pairs = [(j, kept[position + t]) for t, (j, _) in enumerate(old)]
        shift = shift_of([(old_lines[j], lines.contents[i]) for j, i in pairs])
        if shift is None:
            continue
        first, last = pairs[0][1], pairs[-1][1]
        places.append(Place(lines.starts[first], lines.end_of(last, with_ending=ends_with_break), pairs, shift))
    return places


def fragment_places(view: FileView, piece: str, lookalikes: bool) -> list[Place]:
    """A piece of one line found with runs of spaces collapsed (and lookalikes folded), inside any line."""
    wanted, _ = canon(piece.strip(" \t"), lookalikes)
    if not wanted.strip():
        return []
    places = []
    for i, line in enumerate(view.lines.contents):
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

