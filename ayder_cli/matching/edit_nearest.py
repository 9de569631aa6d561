"""On a miss, the region of the file that looks most like old_string, with read_file's line numbers.

One pass over the file: each line scores the words it shares with old_string, a word rarer in
the file weighing more; the window of old_string's length with the best sum wins, and the few
best windows are compared with difflib to pick one. Linear in the file's size.
"""

from __future__ import annotations

import difflib
import heapq
import re
from bisect import bisect_right

from ayder_cli.matching.edit_text import Lines, split_model_text

MOST_LINES = 20
LINE_CHARS = 200
WORD = re.compile(r"\w+")
MOST_WORDS = 40  # of old_string's words, the longest are looked for
MOST_FILE_LINES = 200_000  # beyond this the file is not searched for a closest region (it costs time)
COMMON_FROM = 50  # a word found more often than this (or on a fiftieth of the lines) is too common to look for


def closest_region(lines: Lines, old: str, text: str) -> str:
    """'; the closest text is at line N; lines A-B of the file read:' and those lines, numbered."""
    contents = lines.contents
    if not contents:
        return "; the file is empty"
    if len(contents) > MOST_FILE_LINES:
        return f"; the file has {len(contents):,} lines, too many to look for the closest ones: read_file shows them"
    wanted = [line for line in split_model_text(old)[0] if line.strip()] or [old]
    size = min(max(len(wanted), 1), MOST_LINES)
    start = _best_start(lines, text, wanted, size)
    best = start + _best_line(contents[start:start + size], wanted[0])
    extra = MOST_LINES - size
    first = max(0, start - min(2, extra // 2))
    last = min(len(contents), first + min(size + 4, MOST_LINES))
    shown = "\n".join(f"{n + 1:>6}\t{_cut(contents[n])}" for n in range(first, last))
    return (f"; the closest text is at line {best + 1}; lines {first + 1}-{last} of the file read:\n{shown}\n"
            "(old_string must be copied from the file; the numbers are not part of it)")


def _best_start(lines: Lines, text: str, wanted: list[str], size: int) -> int:
    contents = lines.contents
    words = sorted({word for line in wanted for word in WORD.findall(line)}, key=len, reverse=True)[:MOST_WORDS]
    counts = {word: text.count(word) for word in words}
    # a word on every other line says nothing of where old_string was meant: the rarer ones are looked for
    words = [word for word in words if 0 < counts[word] <= max(COMMON_FROM, len(contents) // 50)] or sorted(
        (word for word in words if counts[word]), key=counts.get)[:3]
    if not words:
        return 0
    hits: dict[int, set[str]] = {}  # line index -> old_string's words on it, found in one pass
    for match in re.finditer(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b", text):
        hits.setdefault(bisect_right(lines.starts, match.start()) - 1, set()).add(match.group())
    if not hits:
        return 0
    seen: dict[str, int] = {}
    for found in hits.values():
        for word in found:
            seen[word] = seen.get(word, 0) + 1
    scores = {index: sum(1.0 / seen[word] ** 0.5 for word in found) for index, found in hits.items()}
    # the windows worth weighing start at most size-1 lines before a line with a hit
    starts = {max(0, min(index - back, len(contents) - size)) for index in scores for back in range(size)}
    sums = heapq.nlargest(5, ((sum(scores.get(i, 0.0) for i in range(start, start + size)), -start)
                              for start in starts))
    goal = "\n".join(line.strip() for line in wanted)

    def likeness(start: int) -> float:
        region = "\n".join(line.strip() for line in contents[start:start + size])
        return difflib.SequenceMatcher(None, goal, region, autojunk=False).ratio()

    return max((-negative for _, negative in sums), key=lambda start: (likeness(start), -start))


def _best_line(region: list[str], first_wanted: str) -> int:
    goal = first_wanted.strip()
    ratios = [difflib.SequenceMatcher(None, goal, line.strip(), autojunk=False).ratio() for line in region]
    return max(range(len(ratios)), key=lambda n: (ratios[n], -n)) if ratios else 0


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
