"""On a miss, the region of the file that looks most like old_string, with read_file's line numbers.

One pass over the file: each line scores the words it shares with old_string, a word rarer in
the file weighing more; the window of old_string's length with the best sum wins, and the few
best windows are compared with difflib to pick one. Linear in the file's size.
"""

from __future__ import annotations

import difflib
import re

from ayder_cli.tools.edit_text import Lines, split_model_text

MOST_LINES = 20
LINE_CHARS = 200
WORD = re.compile(r"\w+")


def closest_region(lines: Lines, old: str) -> str:
    """'; the closest text is at line N; lines A-B of the file read:' and those lines, numbered."""
    contents = lines.contents
    if not contents:
        return "; the file is empty"
    wanted = [line for line in split_model_text(old)[0] if line.strip()] or [old]
    size = min(max(len(wanted), 1), MOST_LINES)
    start = _best_start(contents, wanted, size)
    best = start + _best_line(contents[start:start + size], wanted[0])
    extra = MOST_LINES - size
    first = max(0, start - min(2, extra // 2))
    last = min(len(contents), first + min(size + 4, MOST_LINES))
    shown = "\n".join(f"{n + 1:>6}\t{_cut(contents[n])}" for n in range(first, last))
    return (f"; the closest text is at line {best + 1}; lines {first + 1}-{last} of the file read:\n{shown}\n"
            "(old_string must be copied from the file; the numbers are not part of it)")


def _best_start(contents: list[str], wanted: list[str], size: int) -> int:
    words = {word for line in wanted for word in WORD.findall(line)}
    shared = [set(WORD.findall(line)) & words for line in contents]
    seen: dict[str, int] = {}
    for found in shared:
        for word in found:
            seen[word] = seen.get(word, 0) + 1
    scores = [sum(1.0 / seen[word] ** 0.5 for word in found) for found in shared]
    if not any(scores):
        return 0
    sums, running = [], 0.0
    prefix = [0.0]
    for score in scores:
        running += score
        prefix.append(running)
    for start in range(0, max(1, len(contents) - size + 1)):
        sums.append((prefix[min(start + size, len(contents))] - prefix[start], -start))
    top = sorted(sums, reverse=True)[:5]
    goal = "\n".join(line.strip() for line in wanted)

    def likeness(start: int) -> float:
        region = "\n".join(line.strip() for line in contents[start:start + size])
        return difflib.SequenceMatcher(None, goal, region, autojunk=False).ratio()

    return max((-negative for _, negative in top), key=lambda start: (likeness(start), -start))


def _best_line(region: list[str], first_wanted: str) -> int:
    goal = first_wanted.strip()
    ratios = [difflib.SequenceMatcher(None, goal, line.strip(), autojunk=False).ratio() for line in region]
    return max(range(len(ratios)), key=lambda n: (ratios[n], -n)) if ratios else 0


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"
