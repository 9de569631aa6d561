"""Edits written as text: SEARCH/REPLACE blocks, and a whole file in a fence under its path.

A SEARCH/REPLACE block (the form many models learned from aider) is a path
line, then `<<<<<<< SEARCH`, the old lines, `=======`, the new lines and
`>>>>>>> REPLACE`; bare, or in a ``` fence with the path on the line before
it, in the info string or as the fence's first line. More blocks may follow
for the same file. Each becomes a replace_string call, so it passes the same
pipeline as a native one (permission, the confirmation diff, /undo). An empty
SEARCH part means a new file (replace_string creates a file that does not
exist from an empty old_string). A block without a path is not applied, and
the model is told why. Their markers are unmistakable, so they are read
whatever the edit format.

A fence under a path (the line before it, or ```python src/app.py) is a whole
file only when the edit format is `whole` (Context.whole_files): ordinary
answers show code in fences all the time. It becomes a write_file call. A
fence that is neither is an ordinary fence, decided by its first lines.

The path line before a block stays in the view (a caption for the
confirmation that follows): only what the readers hold is removed.
"""

from __future__ import annotations

import re

from ayder_cli.edit_formats import SEARCH_REPLACE
from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict, Where
from ayder_cli.intents.dialects.common.edit_paths import (MAX_PATH, fits_fence, path_of_info,
                                                          path_of_line)
from ayder_cli.wording import short

SEARCH = SEARCH_REPLACE.opener  # "<<<<<<< SEARCH"
_SEARCH_LINE = re.compile(rf"[ \t]*{re.escape(SEARCH)}[ \t]*")
_DIVIDER = re.compile(r"[ \t]*={5,9}[ \t]*")
_REPLACE_LINE = re.compile(r"[ \t]*>{5,9} REPLACE[ \t]*")
# What the start of a path line can look like before its end has arrived (a superset of path lines).
_MAY_BE_PATH = re.compile(r"[ \t]*(?:#{1,6}[ \t]*)?[*_`]*[\w.+@~/\\-]*[*_`:]*[ \t]*\r?")
_PARTIAL_SEEN = MAX_PATH + 40
NO_PATH = "a SEARCH/REPLACE block needs the file path on the line before it; this one was not applied"


class _Lines(Block):
    """Reads its held text a complete line at a time, resuming where it stopped (linear while held)."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.at = 0  # where the next line starts
        self.scan = 0  # where the search for that line's end resumes
        self.state = "open"
        self.path: str | None = None
        self.search: list[str] = []
        self.replace: list[str] = []
        self.edits: list[tuple[str | None, list[str], list[str]]] = []
        self.problems: list[str] = []
        self.block_end = 0  # the end of the last >>>>>>> REPLACE line

    def read(self, buf: str, final: bool) -> Verdict:
        while True:
            newline = buf.find("\n", max(self.at, self.scan))
            if newline < 0:
                self.scan = len(buf)
                if not final:  # a partial line's first characters are enough to tell (held text stays linear)
                    return self.undecided(buf[self.at : self.at + _PARTIAL_SEEN])
                if self.at >= len(buf):
                    return self.at_end(len(buf))
                line, end = buf[self.at :], len(buf)
            else:
                line, end = buf[self.at : newline], newline + 1
            self.at = self.scan = end
            verdict = self.line(line.rstrip("\r"), end)
            if verdict is not None:
                return verdict

    def undecided(self, partial: str) -> Verdict:
        """A line has begun but not ended: wait, unless it already shows the block is not an edit."""
        return NEED_MORE

    def line(self, line: str, end: int) -> Verdict | None:
        raise NotImplementedError

    def at_end(self, end: int) -> Verdict:
        raise NotImplementedError

    # --- the SEARCH/REPLACE sections, the same bare or fenced

    def section(self, line: str, end: int) -> bool:
        """Take one line of a block's sections; False if the block is not in a section."""
        if self.state == "search":
            if _DIVIDER.fullmatch(line):
                self.state = "replace"
            elif _REPLACE_LINE.fullmatch(line):
                self.problems.append(f"a SEARCH/REPLACE block for {self.path or 'a file'} has no ======= line "
                                     "between its parts; it was not applied")
                self.state, self.block_end = "after", end
            else:
                self.search.append(line)
            return True
        if self.state == "replace":
            if _REPLACE_LINE.fullmatch(line):
                self.edits.append((self.path, self.search, self.replace))
                self.state, self.block_end = "after", end
            else:
                self.replace.append(line)
            return True
        return False

    def start_block(self) -> None:
        self.state, self.search, self.replace = "search", [], []

    def cut_short(self) -> None:
        """The reply ended inside a block: it is not applied."""
        if self.state in ("search", "replace"):
            marker = "=======" if self.state == "search" else ">>>>>>> REPLACE"
            self.problems.append(f"a SEARCH/REPLACE block for {self.path or 'a file'} ends before its "
                                 f"{marker} line; it was not applied")

    def finish(self, text: str) -> None:
        for problem in self.problems:
            self.found.error(problem)
        for path, search, replace in self.edits:
            if path is None:
                self.found.error(f"{NO_PATH}: {short(chr(10).join(search))}")
                continue
            old, new = "\n".join(search), "\n".join(replace)
            if not search:
                old, new = "", new + "\n"  # an empty SEARCH part: a new file with these lines
            elif not replace:
                old += "\n"  # the lines go, and their line breaks with them
            self.found.add_edit("replace_string", {"file_path": path, "old_string": old, "new_string": new})


class SearchReplace(_Lines):
    """A bare block, from its `<<<<<<< SEARCH` line; blocks that follow it at once are for the same file."""

    def undecided(self, partial: str) -> Verdict:
        if self.state == "open" and partial[len(SEARCH) :].strip(" \t\r"):
            return NOT_MINE  # `<<<<<<< SEARCHING ...`: not a marker line
        stripped = partial.lstrip(" \t")
        if self.state == "after" and stripped.strip() and not SEARCH.startswith(stripped[: len(SEARCH)]):
            return Ends(self.block_end)  # prose has begun after the block
        return NEED_MORE

    def line(self, line: str, end: int) -> Verdict | None:
        if self.state == "open":
            if not _SEARCH_LINE.fullmatch(line):
                return NOT_MINE
            self.path = path_of_line(self.context.text_line_before)
            self.start_block()
        elif self.section(line, end):
            pass
        elif _SEARCH_LINE.fullmatch(line):
            self.start_block()
        elif line.strip():
            return Ends(self.block_end)  # prose after the block: it is text
        return None

    def at_end(self, end: int) -> Verdict:
        if self.state == "open":
            return NOT_MINE
        self.cut_short()
        return Ends(self.block_end if self.state == "after" else end)


class EditFence(_Lines):
    """A ``` fence holding SEARCH/REPLACE blocks, or (edit format `whole`) a whole file; else not mine."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.info = ""
        self.info_path: str | None = None
        self.before: str | None = None  # the path on the line before the fence (a whole file's)
        self.above: str | None = None  # the path on the last line with text before it (a block's)
        self.content: list[str] = []  # a whole file's lines, or the first lines while undecided

    def whole_path(self) -> str | None:
        """Where a whole file in this fence goes, if the edit format is `whole` and the fence names one."""
        if not self.context.whole_files:
            return None
        path = self.info_path or self.before
        return path if path is not None and fits_fence(path, self.info) else None

    def undecided(self, partial: str) -> Verdict:
        if self.state not in ("head", "inner") or self.whole_path() is not None:
            return NEED_MORE
        stripped = partial.lstrip(" \t")
        if SEARCH.startswith(stripped[: len(SEARCH)]):
            return NEED_MORE
        if self.state == "head" and len(partial) <= MAX_PATH + 20 and _MAY_BE_PATH.fullmatch(partial):
            return NEED_MORE
        return NOT_MINE

    def closes(self, line: str) -> bool:
        stripped = line.strip(" \t")
        return stripped.startswith(self.opener) and not stripped.strip("`")

    def line(self, line: str, end: int) -> Verdict | None:
        if self.state == "open":  # the fence line itself
            self.info = line.strip()[len(self.opener) :]
            self.info_path = path_of_info(self.info)
            self.before = path_of_line(self.context.line_before)
            self.above = path_of_line(self.context.text_line_before)
            self.state = "head"
            return None
        if self.state in ("head", "inner"):
            return self.head(line, end)
        if self.state == "whole":
            if self.closes(line):
                self.edits.append((self.path, [], []))
                return Ends(end)
            self.content.append(line)
            return None
        if self.section(line, end):
            return None
        if self.closes(line):
            return Ends(end)
        if _SEARCH_LINE.fullmatch(line):
            self.start_block()
        elif (path := path_of_line(line)) is not None:
            self.path = path  # blocks for another file follow in the same fence
        return None  # blank lines and remarks between blocks are part of the fence

    def head(self, line: str, end: int) -> Verdict | None:
        """The fence's first lines: SEARCH/REPLACE blocks, a whole file, or an ordinary fence."""
        if _SEARCH_LINE.fullmatch(line):
            inner = path_of_line(self.content[-1]) if self.state == "inner" else None
            self.path = inner or self.info_path or self.above
            self.start_block()
            return None
        whole = self.whole_path()
        if self.state == "head" and not line.strip() and not self.closes(line):
            self.content.append(line)
            return None
        if self.state == "head" and path_of_line(line) is not None and not self.closes(line):
            self.content.append(line)
            self.state = "inner"
            return None
        if whole is None:
            return NOT_MINE
        self.path, self.state = whole, "whole"
        return self.line(line, end)

    def at_end(self, end: int) -> Verdict:
        if self.state in ("open", "head", "inner"):
            return NOT_MINE
        if self.state == "whole":
            if self.context.hit_max_tokens:
                self.problems.append(f"the reply was cut off inside the whole file for {self.path}; "
                                     "it was not written")
            else:
                self.edits.append((self.path, [], []))  # a reply that ends without closing the fence
            return Ends(end)
        self.cut_short()
        return Ends(end)

    def finish(self, text: str) -> None:
        if self.state == "whole":
            for problem in self.problems:
                self.found.error(problem)
            if self.edits:
                content = "".join(line + "\n" for line in self.content)
                self.found.add_edit("write_file", {"file_path": self.path, "content": content})
            return
        super().finish(text)


DIALECTS = [Dialect("search-replace", SearchReplace, openers=(SEARCH,), where=Where.LINE_START)]
