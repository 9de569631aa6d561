"""Where the scanner's shown text stands, and how far from there the text is plainly text.

The scanner asks it whether the reply has started, whether a line holds anything
yet, whether inline code is open, and where in new text the next thing that may
be markup starts ("a < b", "items[0]" and `inline code` are passed over).
"""

from __future__ import annotations

import re

from ayder_cli.intents.lines_seen import LinesSeen

# The next character that may start something other than plain text ('{' only opens a reply).
# Newlines are not among them: add() keeps track of line starts in whatever text it is given.
_INTERESTING = re.compile(r"[`<\[\]~]")  # '~' may open a ~~~ fence
_INTERESTING_FIRST = re.compile(r"[`<\[\]{~]|^\s*t")  # a harmony reply may start at its recipient ("to=")
NOT_BACKTICK = re.compile(r"[^`]")


class ShownLine:
    """The state of the text shown so far: at the reply's start, on a blank line, in inline code."""

    def __init__(self) -> None:
        self.lines = LinesSeen()  # where the path of an edit written as text stands
        self.reply_start = True  # nothing but whitespace shown so far
        self.blank = True  # nothing but spaces/tabs since the last newline
        self.inline_code = False
        self.tail = ""  # the end of the text shown on the current line, for Context.before

    def add(self, text: str) -> None:
        """`text` was shown."""
        if self.reply_start and not text.isspace():
            self.reply_start = False
        newline = text.rfind("\n")
        tail = text[newline + 1 :]
        if newline >= 0:
            self.blank = True
            self.inline_code = False
        self.lines.add(text, newline)
        if tail and tail.strip(" \t"):
            self.blank = False
        self.tail = ((self.tail if newline < 0 else "") + tail)[-8:]

    def removed(self) -> None:
        """A block of markup was taken out of the text: what follows starts a line of its own."""
        self.blank = True
        self.inline_code = False
        self.lines.removed()
        self.tail = ""

    def tell(self, context) -> None:
        """What a reader of markup opening here may ask about the text before it."""
        context.line_start = self.blank
        context.before = self.tail
        # The lines before the opener's, when only spaces stand before the opener on its own.
        alone = self.blank and self.lines.opener_alone()
        context.line_before = self.lines.before if alone else None
        context.text_line_before = self.lines.last_text if alone else None

    def plain_run(self, buf: str, context, openers) -> tuple[re.Match | None, bool]:
        """The first character of `buf` that needs a decision (None: all of it is plain text), and
        whether inline code is open there. `openers` says where no markup can open."""
        pattern, at, inline = _INTERESTING_FIRST if self.reply_start else _INTERESTING, 0, self.inline_code
        while found := pattern.search(buf, at):
            start = found.start()
            if inline and buf.find("\n", at, start) >= 0:
                inline = False  # inline code ends with its line
            if buf[start] == "~":
                if not self.mid_line(buf, start) or (start == 0 and self.tildes_only()):
                    return found, inline  # may open a ~~~ fence (or go on with the tildes that began one)
                at = start + 1
            elif buf[start] == "`":
                run = context.skip_run(buf, start, NOT_BACKTICK)
                if run == len(buf) or not self.mid_line(buf, start):
                    return found, inline  # may open a fence: the scanner decides
                inline, at = not inline, run
            elif inline or openers.opens_nothing(buf, start, self.reply_start):
                at = start + 1
            else:
                return found, inline
        return None, inline and buf.find("\n", at) < 0

    def tildes_only(self) -> bool:
        """The line shown so far is indentation and a run of tildes: more of them may make a ~~~ fence."""
        return self.tail.endswith("~") and not self.tail.strip(" \t~")

    def mid_line(self, buf: str, at: int) -> bool:
        """Something other than spaces stands before `at` on its line."""
        line = buf.rfind("\n", 0, at)
        return bool(buf[line + 1 : at].strip(" \t")) or (line < 0 and not self.blank)
