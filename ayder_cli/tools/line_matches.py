"""The lines of one file's text that a regex matches, found with as little Python per line as
possible: search_codebase's Python path (search.py walks the files and formats the result).

A match must lie within one line, as in grep and rg: one that runs across a newline counts
only if the regex also matches inside the line where it starts. Two ways to find the lines:

- a string every match must contain (required_literal) is found with str.find, and the regex
  runs on the lines holding it only;
- otherwise the regex runs over the whole text, rewritten by line_finder so that re's own scan
  does the work: each match runs on to the end of its line (a line is found once, however often
  it matches), and the search starts from a character re can look for quickly.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterator, NamedTuple

try:  # re's parser and compiler: private modules, so every use has a fallback
    from re import _compiler as sre_compile  # type: ignore[attr-defined]
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

Text = str | bytes  # rg hands over bytes (and the Python search, for a plain literal): decoded only when shown
Record = tuple[str, int, bool, Text]  # (root-relative path, line number, is a match, line text)
Span = tuple[int, int]  # (an offset inside a matching line, the offset of that line's end)
NEWLINE = 10


class Tally(NamedTuple):
    """Matching lines of one file past the result cap: counted, not shown."""

    path: str
    matches: int


# --- the records of one file


def file_records(path: str, text: Text, regex: re.Pattern[str], context: int,
                 literal: str | None = None, ignore_case: bool = False,
                 limit: int | None = None) -> Iterator[Record | Tally]:
    """The matching lines of one file's text, and `context` lines around each. Past `limit`
    matching lines, the rest are counted in one Tally (after the context of the last shown).

    The text may be the file's bytes when the pattern is a plain literal (is_plain_literal):
    then nothing is decoded but the lines shown.
    """
    if limit == 0:  # nothing more to show: count only
        count = count_matching_lines(text, regex, literal, ignore_case)
        if count:
            yield Tally(path, count)
        return
    spans = matching_lines(text, regex, literal, ignore_case)
    newline = _newline(text)
    last_line, last_end = 0, -1  # the last matching line shown, and the offset of its end
    counted_at, counted_line = 0, 1  # an offset whose line number is known
    shown = 0
    for start, line_end in spans:
        number = counted_line + text.count(newline, counted_at, start)
        counted_at, counted_line = start, number
        if shown == limit:
            if last_line:
                yield from _after(path, text, last_line, last_end, min(context, number - last_line - 1))
            yield Tally(path, count_matching_lines(text, regex, literal, ignore_case, start))
            return
        line_start = text.rfind(newline, 0, start) + 1
        if context:
            yield from _context_between(path, text, last_line, last_end, number, line_start, context)
        yield path, number, True, text[line_start:line_end]
        last_line, last_end = number, line_end
        shown += 1
    if context and last_line:
        yield from _after(path, text, last_line, last_end, context)


def matching_lines(text: Text, regex: re.Pattern[str], literal: str | None = None,
                   ignore_case: bool = False, pos: int = 0) -> Iterator[Span]:
    """A Span for each line the regex matches in, in order, from the line at offset `pos` on."""
    if literal is not None and (not ignore_case or text.isascii()):
        return _candidate_lines(text, regex, literal, ignore_case, pos)
    return _finder_lines(text, regex, line_finder(regex), pos)


def count_matching_lines(text: Text, regex: re.Pattern[str], literal: str | None = None,
                         ignore_case: bool = False, pos: int = 0) -> int:
    """How many lines the regex matches in, from the line at offset `pos` on."""
    if literal is None and pos == 0 and isinstance(text, str) and _one_match_a_line(regex):
        found = line_finder(regex).findall(text)  # each match runs to its line's end
        if "\n".join(found).count("\n") == len(found) - 1 or not found:
            return len(found)  # none ran across a newline: one match, one line
    if literal is None or not is_plain_literal(regex) or (ignore_case and not text.isascii()):
        return sum(1 for _ in matching_lines(text, regex, literal, ignore_case, pos))
    haystack = text.lower() if ignore_case else text  # ASCII only: same offsets
    find, newline, literal = haystack.find, _newline(text), _same_type(literal, text)
    pos, count = text.rfind(newline, 0, pos) + 1, 0
    while (found := find(literal, pos)) != -1:  # a line holding the literal: one more, on to the next
        count += 1
        pos = find(newline, found) + 1
        if not pos:
            break
    return count


def _candidate_lines(text: Text, regex: re.Pattern[str], literal: str, ignore_case: bool,
                     pos: int = 0) -> Iterator[Span]:
    """Each line holding `literal` in which the regex matches."""
    haystack = text.lower() if ignore_case else text  # ASCII only: same offsets
    find, search, newline = haystack.find, regex.search, _newline(text)
    plain = is_plain_literal(regex)  # the literal is the whole pattern: found is matched
    literal = _same_type(literal, text)
    pos = text.rfind(newline, 0, pos) + 1
    while True:
        found = find(literal, pos)
        if found == -1:
            return
        line_start = text.rfind(newline, 0, found) + 1
        line_end = text.find(newline, found)
        if line_end == -1:
            line_end = len(text)
        if plain or search(text, line_start, line_end) is not None:
            yield line_start, line_end
        pos = line_end + 1


def _finder_lines(text: str, regex: re.Pattern[str], finder: re.Pattern[str], pos: int = 0) -> Iterator[Span]:
    """Each line the regex matches in, running `finder` (line_finder's form of it) over the text."""
    size = len(text)
    pos = text.rfind("\n", 0, pos) + 1
    line_end = pos - 1
    while pos <= size:
        for match in finder.finditer(text, pos):
            start = match.start()
            if start <= line_end:  # on a line already found (at its newline, at most)
                if match.end() <= line_end:
                    continue
                pos = line_end + 1  # it ran on into lines not searched yet: search them
                break
            if start == size and (size == 0 or text[-1] == "\n"):
                return  # the empty "line" after the last newline is not a line
            line_end = text.find("\n", start)
            if line_end == -1:
                line_end = size
            if match.end() <= line_end:
                yield start, line_end
                continue
            # It ran across a newline: the line counts if the regex matches within it, and the
            # search goes on from the next line (the match may have stepped over some).
            line_start = text.rfind("\n", 0, start) + 1
            if regex.search(text, line_start, line_end) is not None:
                yield line_start, line_end
            pos = line_end + 1
            break
        else:
            return


def _context_between(path: str, text: Text, last_line: int, last_end: int, number: int,
                     line_start: int, context: int) -> Iterator[Record]:
    """Context lines between the previous matching line (0: none) and this one."""
    gap = number - last_line - 1
    if gap <= 0:
        return
    after = min(context, gap) if last_line else 0
    before = min(context, gap - after)
    if last_line and after + before >= gap:  # the two ranges meet: one run forward
        after, before = gap, 0
    yield from _after(path, text, last_line, last_end, after)
    spans = list(_lines_before(text, line_start, before))
    for offset, (start, end) in enumerate(reversed(spans)):
        yield path, number - len(spans) + offset, False, text[start:end]


def _after(path: str, text: Text, last_line: int, last_end: int, count: int) -> Iterator[Record]:
    for offset, (start, end) in enumerate(_lines_after(text, last_end, count), 1):
        yield path, last_line + offset, False, text[start:end]


def _lines_after(text: Text, line_end: int, count: int) -> Iterator[Span]:
    """(start, end) of up to `count` lines after the line ending at line_end."""
    start, newline = line_end + 1, _newline(text)
    for _ in range(count):
        if start >= len(text):
            return
        end = text.find(newline, start)
        if end == -1:
            end = len(text)
        yield start, end
        start = end + 1


def _lines_before(text: Text, line_start: int, count: int) -> Iterator[Span]:
    """(start, end) of up to `count` lines before the line starting at line_start, nearest first."""
    end, newline = line_start - 1, _newline(text)
    for _ in range(count):
        if end < 0:
            return
        start = text.rfind(newline, 0, end) + 1
        yield start, end
        end = start - 1


def _newline(text: Text) -> Text:
    return "\n" if isinstance(text, str) else b"\n"


def _same_type(literal: str, text: Text) -> Text:
    return literal if isinstance(text, str) else literal.encode("utf-8")


# --- reading the regex


def required_literal(regex: re.Pattern[str]) -> str | None:
    """The longest run of plain characters (3 or more) that every match must contain, or None.

    It lets the search find candidate lines with str.find, much faster than re's own scan,
    and run the regex only on them. Only the top-level sequence is read (groups without
    flags are inlined by the parser); alternatives, repeats and classes end a run.
    """
    try:
        parsed = sre_parse.parse(regex.pattern, regex.flags)
    except Exception:  # a private API: if it changes, search without the shortcut
        return None
    best, run = "", []
    for op, value in list(_flatten(parsed)) + [(None, None)]:
        if op == sre_parse.LITERAL and value != NEWLINE:  # a match never spans lines
            run.append(chr(value))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if len(best) < 3 or "\ufffd" in best:
        return None
    if regex.flags & re.IGNORECASE:
        return best.lower() if best.isascii() else None
    return best


def _flatten(items: Any) -> Iterator[tuple[Any, Any]]:
    """The parsed sequence with the contents of plain groups (no flags) in their place."""
    for op, value in items:
        if op == sre_parse.SUBPATTERN and not value[1] and not value[2]:
            yield from _flatten(value[3])
        else:
            yield op, value


@functools.lru_cache(maxsize=16)
def is_plain_literal(regex: re.Pattern[str]) -> bool:
    """Whether the pattern is plain characters only (no newline): a line holding them matches."""
    try:
        parsed = sre_parse.parse(regex.pattern, regex.flags)
    except Exception:  # a private API: if it changes, take no shortcut
        return False
    return bool(parsed.data) and all(op == sre_parse.LITERAL and value != NEWLINE for op, value in parsed.data)


@functools.lru_cache(maxsize=16)
def _one_match_a_line(regex: re.Pattern[str]) -> bool:
    """Whether findall with line_finder's form of the regex gives one string per line matched,
    unless a match runs across a newline: no groups (findall would give their text) and no
    empty match (one could follow another at the end of its line)."""
    try:
        never_empty = sre_parse.parse(regex.pattern, regex.flags).getwidth()[0] > 0
    except Exception:  # a private API: if it changes, count line by line
        return False
    return regex.groups == 0 and never_empty and line_finder(regex) is not regex


@functools.lru_cache(maxsize=16)
def line_finder(regex: re.Pattern[str]) -> re.Pattern[str]:
    """The regex as _finder_lines runs it over a whole file: the same matches, each going on to
    the end of its line, started where re can scan for a character (see _scannable_start).
    The regex itself if re's private parser is not what this expects."""
    try:
        parsed = sre_parse.parse(regex.pattern, regex.flags)
    except Exception:  # a private API: if it changes, search with the regex as written
        return regex
    state, items = parsed.state, list(parsed.data)
    for start in (_scannable_start(state, items, regex.flags), items):
        try:
            tree = sre_parse.SubPattern(state, [*start, _no_newlines(state, 0, sre_parse.MAXREPEAT)])
            return sre_compile.compile(tree, regex.flags)
        except Exception:  # e.g. a group reference re refuses in a look-behind
            continue
    return regex


def _scannable_start(state: Any, items: list, flags: int) -> list:
    """The top-level items rewritten so the compiled regex starts with a character re scans for
    with its fast prefix search (re has none for a repeat or a look-around at the start):

    - `HEAD c REST`, HEAD of fixed width and c a plain character, becomes
      `c (?<=HEAD c)(?<=[^\\n]{width}) REST`: the scan looks for c, the look-behinds check
      HEAD (within the line) once c is found;
    - `x{m,n}`, x one character or class and m >= 1, at the start becomes `x x{m-1,n-1}`.
    """
    if not items or items[0][0] is sre_parse.LITERAL:
        return items  # re already scans for the first character
    for index, (op, value) in enumerate(items[1:], 1):
        if op is sre_parse.LITERAL and value != NEWLINE and _uncased_or_case_sensitive(value, flags):
            low, high = sre_parse.SubPattern(state, items[:index]).getwidth()
            if low != high:
                break
            behind = sre_parse.SubPattern(state, items[:index + 1])
            return [items[index], (sre_parse.ASSERT, (-1, behind)),
                    (sre_parse.ASSERT, (-1, sre_parse.SubPattern(state, [_no_newlines(state, low + 1, low + 1)]))),
                    *items[index + 1:]]
    op, value = items[0]
    if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT) and value[0] >= 1 and len(value[2].data) == 1 \
            and value[2].data[0][0] in (sre_parse.IN, sre_parse.LITERAL):
        low, high, repeated = value
        high = high if high == sre_parse.MAXREPEAT else high - 1
        return [repeated.data[0], (op, (low - 1, high, repeated)), *items[1:]]
    return items


def _uncased_or_case_sensitive(code: int, flags: int) -> bool:
    char = chr(code)
    return not flags & re.IGNORECASE or char.lower() == char.upper()


def _no_newlines(state: Any, low: int, high: int) -> tuple[Any, Any]:
    """`[^\\n]{low,high}` as a parsed item."""
    return (sre_parse.MAX_REPEAT, (low, high, sre_parse.SubPattern(state, [(sre_parse.NOT_LITERAL, NEWLINE)])))
