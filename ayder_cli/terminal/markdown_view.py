"""Markdown for a terminal, rendered as it streams: each line when it is complete.

Headings, emphasis, inline code, lists, quotes, rules, table rows and fenced code blocks
(highlighted with Pygments where it is installed). A line is shown once and never
redrawn, so a setext heading's text stays plain (only its `===` line is dimmed), and a
table keeps the model's own column layout, its pipes and delimiter row dimmed. Used
only when stdout is a terminal and colour is on; piped output never comes here, so it
stays exactly the model's text.
"""

from __future__ import annotations

import re

from ayder_cli.masking import MASK, Secrets
from ayder_cli.terminal.style import (
    BOLD,
    CYAN,
    DIM,
    ITALIC,
    NO_BOLD,
    NO_COLOUR,
    NO_ITALIC,
    NO_UNDERLINE,
    RESET,
    UNDERLINE,
)

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
RULE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
NUMBERED = re.compile(r"^(\s*)(\d{1,9}[.)])\s+(.*)$")
QUOTE = re.compile(r"^ {0,3}>\s?(.*)$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}=+\s*$")
TABLE_ROW = re.compile(r"^ {0,3}\|.*\|\s*$")
TABLE_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$")

CODE_SPAN = re.compile(r"(`+)(.+?)\1")
STRONG = re.compile(r"\*\*(?!\s)(.+?)(?<!\s)\*\*|(?<!\w)__(?!\s)(.+?)(?<!\s)__(?!\w)")
EMPHASIS = re.compile(r"(?<![*\w])\*(?![\s*])(.+?)(?<![\s*])\*(?!\*)|(?<![_\w])_(?![\s_])(.+?)(?<![\s_])_(?![_\w])")
MAY_MARK_UP = re.compile(r"[*_`\[\\<\0]")  # inline markup may start here: a line streams up to it
LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def inline(text: str) -> str:
    """`code`, **strong**, *emphasis* and [links](url) within one line; code spans are left as they are."""
    pieces = CODE_SPAN.split(text)
    out = []
    # split gives: text, ticks, code, ticks, code, ..., text
    for index in range(0, len(pieces), 3):
        out.append(_emphasis(pieces[index]))
        if index + 2 < len(pieces):
            out.append(f"{CYAN}{pieces[index + 2]}{NO_COLOUR}")
    return "".join(out)


def _emphasis(text: str) -> str:
    text = LINK.sub(lambda m: f"{UNDERLINE}{m.group(1)}{NO_UNDERLINE} {DIM}({m.group(2)}){NO_BOLD}", text)
    text = STRONG.sub(lambda m: f"{BOLD}{m.group(1) or m.group(2)}{NO_BOLD}", text)
    return EMPHASIS.sub(lambda m: f"{ITALIC}{m.group(1) or m.group(2)}{NO_ITALIC}", text)


class CodeHighlighter:
    """One fenced block's lines highlighted with Pygments; plain colour without it or for an unknown language."""

    def __init__(self, language: str) -> None:
        self._lexer = self._formatter = None
        self._highlight = None
        try:  # imported here, at the first code block on a terminal: piped runs and start-up never load it
            from pygments import highlight
            from pygments.formatters import TerminalFormatter
            from pygments.lexers import get_lexer_by_name
            from pygments.util import ClassNotFound
        except ImportError:
            return
        try:
            self._lexer = get_lexer_by_name(language or "text", stripnl=False, ensurenl=False)
        except ClassNotFound:
            return
        self._formatter = TerminalFormatter()
        self._highlight = highlight

    def line(self, text: str) -> str:
        if self._highlight is None:
            return f"{CYAN}{text}{NO_COLOUR}"
        return self._highlight(text, self._lexer, self._formatter).rstrip("\n") + RESET


class MarkdownView:
    """Streamed Markdown in, terminal text out: `feed` returns what can be shown now, `finish` the rest."""

    def __init__(self, secrets: Secrets | None = None) -> None:
        self.secrets = secrets  # masked in the whole line, before an escape code could split one
        self.pending = ""  # the start of a line not yet complete
        self.streamed = 0  # of `pending`, the characters already shown (a paragraph streams up to its markup)
        self._code: CodeHighlighter | None = None  # inside a fenced block
        self._fence = ""

    def feed(self, text: str) -> str:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        shown = "".join(self._complete(line) + "\n" for line in lines)
        return shown + self._stream()

    def finish(self) -> str:
        """The incomplete line, rendered as it stands (the reply ended, or something else must print)."""
        line, self.pending = self.pending, ""
        return self._complete(line) if line else ""

    def _complete(self, line: str) -> str:
        streamed, self.streamed = self.streamed, 0
        if streamed:  # a paragraph already on the screen up to here
            return self._masked(line[streamed:], inline)
        return self.render_line(line)

    def _stream(self) -> str:
        """A line that can only be a paragraph is shown as it arrives, up to where inline markup may begin."""
        if self._code is not None or not self.pending[:1].isalpha():
            return ""
        rest = self.pending[self.streamed:]
        markup = MAY_MARK_UP.search(rest)
        safe = rest[: markup.start()] if markup else rest
        self.streamed += len(safe)
        return safe

    def render_line(self, line: str) -> str:
        return self._masked(line, self._render)

    def _masked(self, line: str, render) -> str:
        if not self.secrets:
            return render(line)
        # A secret becomes a NUL while the line is read as Markdown (so "***" is no rule), then the mask.
        line = line.replace("\0", "")
        for value in self.secrets.values:
            line = line.replace(value, "\0")
        return render(line).replace("\0", MASK)

    def _render(self, line: str) -> str:
        fence = FENCE.match(line)
        if self._code is not None:
            if fence and fence.group(1)[0] == self._fence[0] and len(fence.group(1)) >= len(self._fence) \
                    and not line[fence.end():].strip():
                self._code = None
                return f"{DIM}{line}{RESET}"
            return self._code.line(line)
        if fence:
            self._fence = fence.group(1)
            self._code = CodeHighlighter(fence.group(2))
            return f"{DIM}{line}{RESET}"
        heading = HEADING.match(line)
        if heading:
            underline = UNDERLINE if len(heading.group(1)) == 1 else ""
            text = inline(heading.group(2)).replace(NO_BOLD, NO_BOLD + BOLD)  # bold to the end of the heading
            return f"{BOLD}{underline}{text}{RESET}"
        if RULE.match(line):
            return f"{DIM}{'─' * 40}{RESET}"
        if SETEXT_UNDERLINE.match(line) or TABLE_DELIMITER.match(line):
            return f"{DIM}{line}{RESET}"
        if TABLE_ROW.match(line):
            return f"{DIM}|{NO_BOLD}".join(inline(cell) for cell in line.split("|"))
        quote = QUOTE.match(line)
        if quote:
            return f"{DIM}│{RESET} {ITALIC}{inline(quote.group(1))}{NO_ITALIC}"
        bullet = BULLET.match(line)
        if bullet:
            return f"{bullet.group(1)}• {inline(bullet.group(2))}"
        numbered = NUMBERED.match(line)
        if numbered:
            return f"{numbered.group(1)}{BOLD}{numbered.group(2)}{NO_BOLD} {inline(numbered.group(3))}"
        return inline(line)
