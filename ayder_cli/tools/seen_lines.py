"""SeenLines: per file, what the model last saw of each line in this session, so replace_lines can refuse stale edits.

A line is seen when read_file showed it, when the model wrote it (write_file, an edit's new
lines), or when a refusal showed it. An edit by ayder moves what was seen with the lines: the
numbers below the edit shift, so the model's next edit by number still lands. A line whose text
now differs from what was seen (the user edited the file, /undo restored it, another program
wrote it) is stale: replace_lines refuses and shows the lines as they are now.
"""

from __future__ import annotations

import difflib
import threading
from pathlib import Path

CUT = None  # a line shown cut short (read_file's long-line limit): seen, but not all of it
MAX_SHOWN = 20  # lines a refusal shows
MAX_SHOWN_CHARS = 2000  # of one line, as read_file shows it
MATCH_UP_TO_LINES = 2000  # an edit's changed region longer than this is not matched line by line: it is unseen


class SeenLines:
    def __init__(self) -> None:
        self._files: dict[Path, dict[int, str | None]] = {}  # path -> line number (from 1) -> text without ending
        self._lock = threading.Lock()  # read_file calls side by side record what they showed from their threads

    def forget(self) -> None:
        """A new session: nothing has been seen."""
        self._files.clear()

    def saw(self, path: Path, first: int, texts: list[str | None]) -> None:
        """read_file showed lines first, first+1, ... (CUT for a line shown cut short)."""
        with self._lock:
            seen = self._files.setdefault(path, {})
            for number, text in enumerate(texts, first):
                seen[number] = text

    def wrote(self, path: Path, text: str) -> None:
        """The model wrote the whole file: every line is known."""
        self._files[path] = dict(enumerate(lines_of(text), 1))

    def edited(self, path: Path, old_text: str, new_text: str) -> None:
        """ayder changed the file from old_text to new_text: what was seen moves with its lines, and the
        lines the edit wrote are seen. The unchanged head and tail are found first (an edit is one region,
        or a few); only the region between them is matched line by line."""
        seen = self._files.get(path, {})
        old, new = lines_of(old_text), lines_of(new_text)
        head = 0
        while head < min(len(old), len(new)) and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        moved: dict[int, str | None] = {n: seen[n] for n in range(1, head + 1) if n in seen}
        old_mid, new_mid = old[head:len(old) - tail], new[head:len(new) - tail]
        if len(old_mid) + len(new_mid) <= MATCH_UP_TO_LINES:
            matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
            for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
                for offset in range(j2 - j1):
                    number = head + j1 + offset + 1
                    if tag == "equal":  # an unchanged line keeps what was seen of it (or that it was not)
                        if head + i1 + offset + 1 in seen:
                            moved[number] = seen[head + i1 + offset + 1]
                    else:  # written by the edit
                        moved[number] = new_mid[j1 + offset]
        shift = len(new) - len(old)
        for number in range(len(old) - tail + 1, len(old) + 1):
            if number in seen:
                moved[number + shift] = seen[number]
        self._files[path] = moved

    def check(self, path: Path, shown: str, lines: list[str], start: int, end: int) -> str | None:
        """None when lines start..end (inclusive; end = start - 1: an insertion before start) are as the model
        last saw them; otherwise why not, for the model: which to read first, or the lines as they are now
        (then seen)."""
        seen = self._files.get(path)
        wanted = range(start, end + 1) if end >= start else range(max(start - 1, 1), min(start, len(lines)) + 1)
        if seen is None and not lines:
            return f"{shown} was not read in this session; read it first: read_file(file_path=\"{shown}\")"
        unseen = [n for n in wanted if seen is None or n not in seen]
        if unseen:
            first, last = unseen[0], unseen[-1]
            return (f"lines {first}-{last} of {shown} were not read in this session; read them first: "
                    f"read_file(file_path=\"{shown}\", start_line={first}, end_line={last})")
        changed = [n for n in wanted if seen[n] is CUT or seen[n] != lines[n - 1]]
        if not changed:
            return None
        low = max(1, min(changed[0], start) - 2)
        high = min(len(lines), low + MAX_SHOWN - 1, max(end, start) + 2)
        now = self._show(path, lines, low, high)
        which = (f"line {changed[0]} of {shown} changed since it was" if len(changed) == 1
                 else f"lines {changed[0]}-{changed[-1]} of {shown} changed since they were")
        return (f"{which} read (the file was changed, or an edit moved lines); "
                f"not edited. Lines {low}-{high} as they are now:\n{now}")

    def _show(self, path: Path, lines: list[str], low: int, high: int) -> str:
        """Lines low..high numbered as read_file numbers them; they count as seen from now on."""
        shown = []
        for number in range(low, high + 1):
            text = lines[number - 1]
            cut = len(text) > MAX_SHOWN_CHARS
            self.saw(path, number, [CUT if cut else text])
            shown.append(f"{number:>6}\t{text[:MAX_SHOWN_CHARS]}{'…' if cut else ''}")
        return "\n".join(shown)


def lines_of(text: str) -> list[str]:
    """The lines of a text without their endings, split as read_file numbers them (at \\n only)."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [part[:-1] if part.endswith("\r") else part for part in parts]
