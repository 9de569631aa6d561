"""The forgiving match of replace_string: where old_string stands in a file, or why it cannot say.

find_edit(text, old_string, new_string) tries, in order, each step only when the ones before
found nothing: the exact text; line endings; trailing whitespace; line numbers copied from
read_file; indentation (the block shifted as a whole, tabs for spaces); runs of spaces inside
lines; blank lines; text escaped twice (\\n written as backslash-n); lookalike characters. A step
is taken only when it finds exactly one place; two or more is a refusal naming their lines, and
nothing found at all is a miss that shows the closest region. Only whitespace, line endings,
escapes, lookalikes and line-number prefixes are forgiven: a changed word never matches.

The result is the span of the file's real text and the text that replaces it (new_string
fitted to the file's endings, indentation and characters), so a diff and /undo see the truth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ayder_cli.matching.edit_adapt import Lookalikes, aligned_characters, shift_of
from ayder_cli.matching.edit_nearest import closest_region
from ayder_cli.matching.edit_search import FileView, Place, fragment_places, line_places
from ayder_cli.matching.edit_text import (BLANK, EOL, INDENT, LOOKALIKE, SPACES, TRAILING, has_lookalike, leading,
                                       split_model_text)

LEVEL_NOTES = {
    EOL: "ignoring line endings",
    TRAILING: "ignoring trailing whitespace",
    INDENT: "ignoring indentation",
    SPACES: "ignoring runs of spaces inside lines",
    BLANK: "ignoring blank lines",
    LOOKALIKE: "reading lookalike characters (curly quotes, dashes, non-breaking spaces) as plain ones",
}
NUMBERED = re.compile(r"^ *(\d+)(\t| {2,}|$)")
NUMBER_WIDTH = 8  # read_file's "{n:>6}\t": the text starts at column 8 once the tab is expanded
ESCAPED = re.compile(r"\\([nrt\"'\\/])")
UNESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True)
class Found:
    """The span of the file's text to replace, the text that goes there, and which step found it
    ('' for the exact text)."""

    start: int
    end: int
    replacement: str
    how: str
    line: int = 0  # where old_string was found, from 1 (the span may start later: unchanged lines are kept)


class EditMiss(Exception):
    """old_string stands nowhere, or in more than one place: the message says which, for the model."""

    def __init__(self, message: str, lines: list[int] | None = None):
        super().__init__(message)
        self.lines = lines or []


def find_edit(text: str, old: str, new: str) -> Found:
    """The one place old stands in text and what replaces it, or EditMiss."""
    view = FileView(text)
    variants = [("", old, new)]
    unnumbered = _without_line_numbers(old, new)
    if unnumbered:
        o, n, reindented = unnumbered
        note = "removed the line numbers copied from read_file's output (they are not in the file)"
        variants.append((note + ("; new_string indented to where old_string stands" if reindented else ""), o, n))
    for note, o, n in variants:
        found = _at_levels(view, o, n, (0, EOL, TRAILING), note)
        if found:
            return found
    base_note, o, n = variants[-1]  # from here on, old_string without its line numbers if it had them
    found = _at_levels(view, o, n, (INDENT, SPACES, BLANK), base_note)
    if found:
        return found
    unescaped = _unescaped(o, n)
    if unescaped:
        note = _joined(base_note, "read \\n, \\t and \\\" in old_string and new_string as escapes (they were escaped twice)")
        found = _at_levels(view, *unescaped, (0, EOL, TRAILING, INDENT, SPACES, BLANK), note)
        if found:
            return found
    for o2, n2 in [(o, n), *([unescaped] if unescaped else [])]:
        if has_lookalike(o2) or has_lookalike(text):
            found = _at_levels(view, o2, n2, (LOOKALIKE,), base_note)
            if found:
                return found
    raise EditMiss(closest_region(view.lines, o, text))


def _at_levels(view: FileView, old: str, new: str, levels: tuple[int, ...], note: str) -> Found | None:
    for level in levels:
        places = _places(view, old, level)
        if len(places) == 1:
            found = _replace(view, places[0], old, new, level, note)
            return Found(found.start, found.end, found.replacement, found.how, view.lines.line_at(places[0].start))
        if len(places) > 1:
            lines = sorted({view.lines.line_at(place.start) for place in places})
            how = _joined(note, LEVEL_NOTES.get(level, "")) or "as written"
            listed = ", ".join(str(n) for n in lines[:8]) + (", ..." if len(lines) > 8 else "")
            raise EditMiss(f"{how}, old_string matches {len(places)} places (lines {listed}); "
                           "include more of the surrounding lines, copied exactly, to pick one", lines)
    return None


def _places(view: FileView, old: str, level: int) -> list[Place]:
    if level == 0:
        return _exact_places(view, old)
    old_lines, ends_with_break = split_model_text(old)
    one_piece = len(old_lines) == 1 and not ends_with_break
    if level == TRAILING and one_piece:
        stripped = old.rstrip(" \t")
        return _exact_places(view, stripped) if stripped and stripped != old else []
    places = line_places(view, old_lines, ends_with_break, level) if level != EOL or not one_piece else []
    if not places and one_piece and level in (SPACES, LOOKALIKE):
        places = fragment_places(view, old, lookalikes=level == LOOKALIKE)
    return places


def _exact_places(view: FileView, old: str) -> list[Place]:
    places, at = [], view.text.find(old)
    while at != -1 and len(places) < 50:
        places.append(Place(at, at + len(old)))
        at = view.text.find(old, at + len(old))
    return places


def _replace(view: FileView, place: Place, old: str, new: str, level: int, note: str) -> Found:
    lines = view.lines
    if not place.pairs:  # the exact text (perhaps without trailing whitespace)
        if level == TRAILING:
            trailing = old[len(old.rstrip(" \t")):]
            new = new[: len(new) - len(trailing)] if trailing and new.endswith(trailing) else new
        return Found(place.start, place.end, new, _matched(note, LEVEL_NOTES.get(level, "")))
    if place.fragment:
        fitted = _fragment_text(place, new, level)
        return Found(place.start, place.end, fitted, _matched(note, LEVEL_NOTES[level]))
    old_lines, old_break = split_model_text(old)
    new_lines, new_break = split_model_text(new)
    first_file_line = place.pairs[0][1]
    newline = lines.endings[first_file_line] or _usual_ending(lines)
    fitted = list(new_lines)
    how = LEVEL_NOTES[level]
    if level == EOL:
        how += f" (the file's are {newline!r}; new text written with them)"
    if place.shift is not None:
        fitted = [place.shift.apply(line) for line in fitted]
        moved = next(((old_lines[j], lines.contents[i]) for j, i in place.pairs
                      if old_lines[j].strip() and place.shift.apply(old_lines[j]) != old_lines[j]), None)
        if moved:
            how += f" ({place.shift.describe(*_indents(*moved))})"
    if level >= LOOKALIKE:
        table = Lookalikes.of([c for j, i in place.pairs for c in aligned_characters(old_lines[j], lines.contents[i])])
        fitted = [table.apply(line) for line in fitted]
        if table.spoken():
            how += f" (the file has {table.spoken()}; new text uses the file's where old_string differed)"
    start, end, replacement = _keep_unchanged_edges(view, place, (old_lines, old_break), (new_lines, new_break),
                                                    fitted, newline)
    return Found(start, end, replacement, _matched(note, how))


def _keep_unchanged_edges(view: FileView, place: Place, old: tuple[list[str], bool], new: tuple[list[str], bool],
                          fitted: list[str], newline: str) -> tuple[int, int, str]:
    """Lines old_string and new_string share at their start and end are left as the file has them
    (their trailing spaces, blank lines, characters): only the lines between are replaced."""
    (old_lines, old_break), (new_lines, new_break) = old, new
    lines, aligned = view.lines, dict(place.pairs)
    old_lines, new_lines, fitted, aligned = _without_blank_edges_the_file_lacks(
        old_lines, new_lines, fitted, aligned, old_break == new_break)
    m = len(old_lines)
    most = min(m, len(new_lines)) - 1  # at least one old line is always replaced
    head = 0
    while head < most and old_lines[head] == new_lines[head]:
        head += 1
    while head and (head - 1) not in aligned:
        head -= 1
    tail = 0
    if old_break == new_break:
        while head + tail < most and old_lines[m - 1 - tail] == new_lines[len(new_lines) - 1 - tail]:
            tail += 1
        while tail and (m - tail) not in aligned:
            tail -= 1
    start, end = place.start, place.end
    middle = fitted[head: len(fitted) - tail]
    # the file's blank lines between a kept line and the replaced ones stay, unless new_string
    # brings its own there
    if head:
        own_blank = not middle[0].strip() or head not in aligned
        start = lines.end_of(aligned[head - 1]) if own_blank else lines.starts[aligned[head]]
    if tail:
        last = m - tail - 1
        own_blank = not middle[-1].strip() or last not in aligned
        end = lines.starts[aligned[m - tail]] if own_blank else lines.end_of(aligned[last])
        return start, end, "".join(line + newline for line in middle)
    return start, end, newline.join(middle) + (newline if new_break else "")


def _without_blank_edges_the_file_lacks(old_lines: list[str], new_lines: list[str], fitted: list[str],
                                       aligned: dict[int, int], same_break: bool):
    """A blank line at the edge of both old_string and new_string that the match did not find in the
    file (blank lines forgiven) is the model's, not the file's: it is neither kept nor written, so the
    file's own text there stays."""
    def blank_unfound(j: int, k: int) -> bool:
        return j not in aligned and not old_lines[j].strip() and not new_lines[k].strip()

    lead = 0
    while lead < min(len(old_lines), len(new_lines)) - 1 and blank_unfound(lead, lead):
        lead += 1
    trail = 0
    while same_break and lead + trail < min(len(old_lines), len(new_lines)) - 1 and \
            blank_unfound(len(old_lines) - 1 - trail, len(new_lines) - 1 - trail):
        trail += 1
    if not lead and not trail:
        return old_lines, new_lines, fitted, aligned
    return (old_lines[lead:len(old_lines) - trail], new_lines[lead:len(new_lines) - trail],
            fitted[lead:len(fitted) - trail], {j - lead: i for j, i in aligned.items()})


def _fragment_text(place: Place, new: str, level: int) -> str:
    piece, found = place.fragment
    new = new.strip(" \t") if new.strip(" \t") else new
    if level >= LOOKALIKE:
        table = Lookalikes.of(aligned_characters(piece, found))
        new = table.apply(new)
    return new


def _indents(old_line: str, file_line: str) -> tuple[str, str]:
    return old_line[: len(old_line) - len(old_line.lstrip(" \t"))], file_line[: len(file_line) - len(file_line.lstrip(" \t"))]


def _usual_ending(lines) -> str:
    return next((ending for ending in lines.endings if ending), "\n")


def _matched(note: str, how: str) -> str:
    """'matched ignoring indentation (...)', after what was done to old_string first ('' when exact)."""
    return _joined(note, f"matched {how}" if how else "")


def _joined(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def _without_line_numbers(old: str, new: str) -> tuple[str, str, bool] | None:
    """old and new without the `    12\\t` read_file puts before each line, when every line of old has
    one and the numbers follow each other; new loses them only where it has them too, and is else
    fitted to where old stands (its indentation, its last line break); whether new was re-indented."""
    old_lines, old_break = split_model_text(old)
    numbers = [NUMBERED.match(line) for line in old_lines]
    if not all(numbers) or (len(old_lines) == 1 and numbers[0].group(2) != "\t"):
        return None
    if [int(n.group(1)) for n in numbers] != list(range(int(numbers[0].group(1)), int(numbers[0].group(1)) + len(numbers))):
        return None
    unnumbered = [_unnumbered(line, n) for line, n in zip(old_lines, numbers)]
    new_lines, new_break = split_model_text(new)
    new_numbers = [NUMBERED.match(line) for line in new_lines]
    if new and all(new_numbers):
        new = "\n".join(_unnumbered(line, n) for line, n in zip(new_lines, new_numbers)) + ("\n" if new_break else "")
        return "\n".join(unnumbered) + ("\n" if old_break else ""), new, False
    # new_string was written without numbers, against the model's own idea of the place: an empty
    # numbered line copied at the end of old_string is the file's blank line, kept; and new_string
    # is indented as old_string's first line stands in the file (the indentation step's rule).
    while len(unnumbered) > 1 and not old_break and not unnumbered[-1].strip():
        unnumbered.pop()
    # where old_string ends (a line break or not) is read_file's doing: new_string ends alike
    if new.endswith("\n") and not new.endswith("\n\n") and not old_break:
        new = new[:-1]
    elif new and not new.endswith("\n") and old_break:
        new += "\n"
    fitted = _indented_like(unnumbered, new)
    return "\n".join(unnumbered) + ("\n" if old_break else ""), fitted, fitted != new


def _indented_like(old_lines: list[str], new: str) -> str:
    """new shifted so its first line stands where old's first line does: columns added or taken
    from every line, in the file's tabs or spaces (edit_adapt.Shift)."""
    old_first = next((line for line in old_lines if line.strip()), None)
    new_lines, new_break = split_model_text(new)
    new_first = next((line for line in new_lines if line.strip()), None)
    if old_first is None or new_first is None or leading(old_first) == leading(new_first):
        return new
    shift = shift_of([(new_first, old_first)])
    if shift is None:
        return new
    return "\n".join(shift.apply(line) for line in new_lines) + ("\n" if new_break else "")


def _unnumbered(line: str, number: re.Match) -> str:
    """The line without its number; where the tab became spaces, the spaces past column 8 are the text's."""
    if number.group(2).startswith(" ") and number.start(2) < NUMBER_WIDTH <= number.end(2):
        return line[NUMBER_WIDTH:]
    return line[number.end():]


def _unescaped(old: str, new: str) -> tuple[str, str] | None:
    """old and new with \\n, \\t, \\" and the like read as the characters they stand for, when old has them."""
    if not re.search(r"\\[nt\"]", old):
        return None
    return _unescape(old), _unescape(new)


def _unescape(text: str) -> str:
    return ESCAPED.sub(lambda m: UNESCAPES.get(m.group(1), m.group(1)), text)
