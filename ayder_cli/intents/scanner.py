"""The one incremental scanner behind parse() and StreamFilter.

It knows plain text, think blocks, code fences and openers, and nothing of
any dialect: at an opener it asks the dialect table (`dialects.TABLE`) who
reads what follows, and holds that text until the reader says where it ends.

`parse(text)` feeds the whole reply to a StreamFilter and finishes it; the
chat loop feeds the same filter delta by delta. The filter decides only on
text it has seen in full (it holds back what could still turn out to be
markup), so what it shows while streaming equals `parse(full).display`
however the text was split.

Work is linear in the input: every search starts where the previous one for
the same thing stopped, and no regular expression can backtrack.
"""

from __future__ import annotations

import re
from collections import deque
from enum import Enum

from ayder_cli.intents.dialects import TABLE
from ayder_cli.intents.dialects.base import Block, Context, Dialect, Ends, NeedMore, NotMine, Where, held_suffix
from ayder_cli.intents.display import View
from ayder_cli.intents.found import Found, ParsedReply

SLICE = 4096  # input enters the buffer this much at a time (more while it holds), so it stays short

# Think blocks: opener -> closer. Harmony's analysis channel is thinking too.
THINK = {"<think>": "</think>", "<thinking>": "</thinking>", "<reasoning>": "</reasoning>",
         "<|channel|>analysis<|message|>": "<|end|>"}
# A closer with no opener before it at the start of a reply: the prompt template opened the block.
_LONE_CLOSER = re.compile("</think>|</thinking>|</reasoning>")
_THINK_OPENER = re.compile("<think>|<thinking>|<reasoning>")
_LONGEST_CLOSER = max(map(len, THINK.values()))

# The next character that may start something other than plain text ('{' only opens a reply).
_INTERESTING = re.compile(r"[\n`<\[\]]")
_INTERESTING_FIRST = re.compile(r"[\n`<\[\]{]")
_NOT_BACKTICK = re.compile(r"[^`]")
_NEWLINE = re.compile(r"\n")
_NOT_FENCE_LINE = re.compile(r"[^ \t`]")


class Mode(Enum):
    LEADING = "leading"  # at the start of a reply that may be thinking until a lone closer
    TEXT = "text"
    THINK = "think"
    FENCE = "fence"  # inside an ordinary code fence: shown verbatim
    BLOCK = "block"  # holding markup until a reader says where it ends


class _Wait(Exception):
    """More text is needed before the scanner can decide (never escapes the class)."""


class StreamFilter:
    """Feed a reply delta by delta; get back (kind, text) pieces: kind is "text" or "thinking"."""

    def __init__(self, tools: list[dict] | None = None, *, think_open: bool | None = None) -> None:
        self.found = Found(tools)
        self.context = Context(self.found)
        self._view = View()
        self._buf = ""  # text being scanned; short, except markup held until its end is known
        self._pending: deque[tuple[str, int]] = deque()  # input not yet in _buf: (text, offset)
        self._final = False
        self._mode = Mode.LEADING if think_open is None else (Mode.THINK if think_open else Mode.TEXT)
        self._closer = "</think>"  # what ends the think block we are in
        self._hint = 0  # where the search for the current mode's marker resumes in _buf
        self._fence = ""  # the backticks that opened the ordinary code fence we are in
        self._readers: list[Block] = []  # who may read the held block, first to answer wins
        self._reply_start = True  # nothing but whitespace shown so far
        self._line_blank = True  # nothing but spaces/tabs since the last newline
        self._inline_code = False
        self._pieces: list[tuple[str, str]] = []
        self._thinking: list[str] = []
        self._think_block: list[str] = []

    @property
    def calls(self):
        return self.found.calls

    @property
    def errors(self):
        return self.found.errors

    # --- public

    def feed(self, text: str) -> list[tuple[str, str]]:
        if text:
            self._pending.append((text, 0))
            self._run()
        return self._take()

    def finish(self) -> list[tuple[str, str]]:
        self._final = True
        self._run()
        if self._buf:  # only an unclosed think block can be left
            self._think(self._buf)
            self._buf = ""
        self._close_think_block()
        shown = self._view.finish()
        if shown:
            self._pieces.append(("text", shown))
        return self._take()

    def result(self) -> ParsedReply:
        return ParsedReply(list(self.calls), list(self.errors), "".join(self._view.shown), list(self._thinking))

    # --- output

    def _take(self) -> list[tuple[str, str]]:
        pieces, self._pieces = self._pieces, []
        return pieces

    def _text(self, text: str) -> None:
        if not text:
            return
        shown = self._view.add(text)
        if shown:
            self._pieces.append(("text", shown))
        if self._reply_start and not text.isspace():
            self._reply_start = False
        newline = text.rfind("\n")
        tail = text[newline + 1 :]
        if newline >= 0:
            self._line_blank = True
            self._inline_code = False
        if tail and tail.strip(" \t"):
            self._line_blank = False

    def _think(self, text: str) -> None:
        if text:
            self._pieces.append(("thinking", text))
            self._think_block.append(text)

    def _close_think_block(self) -> None:
        if self._think_block:
            self._thinking.append("".join(self._think_block))
            self._think_block = []

    def _consume(self, size: int) -> str:
        taken, self._buf = self._buf[:size], self._buf[size:]
        self._hint = 0
        self.context.reset()
        return taken

    @property
    def _at_end(self) -> bool:
        """The reply is complete and all of it is in the buffer."""
        return self._final and not self._pending

    def _pull(self) -> bool:
        """Move the next slice of pending input into the buffer; False if there is none."""
        if not self._pending:
            return False
        text, start = self._pending.popleft()
        size = max(SLICE, len(self._buf))  # a held buffer at least doubles: re-reading it stays linear
        if start + size < len(text):
            self._pending.appendleft((text, start + size))
        buf, self._buf = self._buf, ""
        buf += text[start : start + size]  # a local, so CPython can grow it in place
        self._buf = buf
        return True

    def _replay(self) -> None:
        """Scan the buffer again from the start, a slice at a time (after a hold turned out to be text)."""
        if self._buf:
            self._pending.appendleft((self._buf, 0))
            self._buf = ""
        self.context.reset()
        self._hint = 0

    # --- the modes

    def _run(self) -> None:
        step = {Mode.LEADING: self._leading, Mode.THINK: self._in_think, Mode.TEXT: self._in_text,
                Mode.FENCE: self._in_fence, Mode.BLOCK: self._in_block}
        while True:
            try:
                while self._buf and step[self._mode]():
                    if len(self._buf) > 2 * SLICE:  # a long hold just ended: read the rest a slice at a time
                        self._replay()
            except _Wait:
                pass
            if not self._pull():
                return

    def _need(self, needed: bool) -> None:
        """Wait for more text, unless the reply is complete."""
        if needed and not self._at_end:
            raise _Wait

    def _leading(self) -> bool:
        """At the start of a reply: a lone closing think tag means everything so far was thinking."""
        buf = self._buf
        closing = _LONE_CLOSER.search(buf, self._hint)
        opening = _THINK_OPENER.search(buf, self._hint)
        if closing and (not opening or closing.start() < opening.start()):
            self._think(self._consume(closing.start()))
            self._consume(len(closing.group(0)))
            self._view.removed()
            self._close_think_block()
            self._mode = Mode.TEXT
            return True
        if opening or self._at_end:
            self._mode = Mode.TEXT
            self._replay()
            return True
        self._hint = max(0, len(buf) - _LONGEST_CLOSER)
        raise _Wait

    def _in_think(self) -> bool:
        buf = self._buf
        end = buf.find(self._closer, self._hint)
        if end >= 0:
            self._think(self._consume(end))
            self._consume(len(self._closer))
            self._view.removed()
            self._close_think_block()
            self._mode = Mode.TEXT
            return True
        held = held_suffix(buf, (self._closer,))
        self._think(self._consume(len(buf) - held))
        raise _Wait

    def _in_fence(self) -> bool:
        """Inside an ordinary code fence: shown verbatim, nothing in it is a call."""
        buf = self._buf
        skip_run = self.context.skip_run
        newline = skip_run(buf, 0, _NEWLINE) if self._line_blank else buf.find("\n")
        newline = newline if newline < len(buf) else -1
        if not self._line_blank:  # mid-line: cannot be the closing fence
            self._text(self._consume(newline + 1 if newline >= 0 else len(buf)))
            return True
        if newline < 0 and not self._at_end and skip_run(buf, 0, _NOT_FENCE_LINE) == len(buf):
            raise _Wait  # only spaces and backticks so far: this line may yet close the fence
        line = buf if newline < 0 else buf[:newline]
        stripped = line.lstrip(" \t")
        if stripped.startswith(self._fence) and not stripped.strip("`").strip():
            self._mode = Mode.TEXT
        self._text(self._consume(len(line) + (newline >= 0)))
        return True

    def _in_text(self) -> bool:
        buf = self._buf
        found = (_INTERESTING_FIRST if self._reply_start else _INTERESTING).search(buf)
        if not found:
            self._text(self._consume(len(buf)))
            return False
        if found.start():
            self._text(self._consume(found.start()))
            return True
        char = buf[0]
        if char == "\n":
            self._text(self._consume(1))
            return True
        if char == "`":
            return self._backticks()
        if self._inline_code:
            self._text(self._consume(1))
            return True
        return self._opener()

    def _backticks(self) -> bool:
        buf = self._buf
        run = self.context.skip_run(buf, 0, _NOT_BACKTICK)
        self._need(run == len(buf))
        if run >= 3 and self._line_blank:
            newline = self.context.skip_run(buf, run, _NEWLINE)
            self._need(newline == len(buf))
            newline = newline if newline < len(buf) else -1
            line = buf if newline < 0 else buf[:newline]
            dialect = FENCES.get(line[run:].strip().lower())
            if dialect is not None and self._allowed(dialect.where):
                return self._hold([dialect.block(self.context, "`" * run)])
            self._fence = "`" * run
            self._mode = Mode.FENCE
            self._text(self._consume(len(line) + (newline >= 0)))
            return True
        self._inline_code = not self._inline_code
        self._text(self._consume(run))
        return True

    def _allowed(self, where: Where) -> bool:
        return (where is Where.ANYWHERE or (where is Where.LINE_START and self._line_blank)
                or (where is Where.REPLY_START and self._reply_start))

    def _opener(self) -> bool:
        """At a character that may open markup: a think tag, or whatever the dialect table says."""
        buf = self._buf
        matches: list[tuple[str, Dialect | None]] = []
        for opener, dialect in OPENERS.get(buf[0], ()):  # longest first, so a prefix never wins
            if dialect is not None and not self._allowed(dialect.where):
                continue
            if buf.startswith(opener):
                matches.append((opener, dialect))
            else:
                self._need(len(buf) < len(opener) and opener.startswith(buf))
        for dialect in PATTERNED:
            match = dialect.pattern.match(buf)
            if match:
                matches.append((match.group(0), dialect))
            else:
                self._need(bool(dialect.pattern_prefix.match(buf)))
        if matches and matches[0][1] is None:
            return self._think_tag(matches[0][0])
        readers = [dialect.block(self.context, opener) for opener, dialect in matches if dialect is not None]
        if not readers:
            self._text(self._consume(1))
            return True
        return self._hold(readers)

    def _think_tag(self, tag: str) -> bool:
        self._consume(len(tag))
        self._view.removed()
        if tag in THINK:
            self._closer = THINK[tag]
            self._mode = Mode.THINK
        return True  # else a stray closing tag: not text the user needs

    # --- blocks: markup held until its end is known

    def _hold(self, readers: list[Block]) -> bool:
        self.context.line_start = self._line_blank
        self._readers = readers
        self._mode = Mode.BLOCK
        return True

    def _in_block(self) -> bool:
        while self._readers:
            outcome = self._readers[0].read(self._buf, self._at_end)
            if isinstance(outcome, NeedMore):
                raise _Wait
            if isinstance(outcome, NotMine):
                self._readers.pop(0)
                continue
            assert isinstance(outcome, Ends) and outcome.end > 0
            reader, self._readers = self._readers[0], []
            self._mode = Mode.TEXT
            reader.finish(self._consume(outcome.end))
            self._view.removed()
            self._line_blank = True
            self._inline_code = False
            return True
        self._mode = Mode.TEXT  # not markup after all: its first character is text, scanning goes on
        self._text(self._consume(1))
        return True



def _opener_index() -> dict[str, list[tuple[str, Dialect | None]]]:
    """First character -> (opener, dialect) pairs, longest opener first, then in table order.

    Think tags and stray think closers have no dialect (None): the scanner reads them itself.
    """
    pairs: list[tuple[str, Dialect | None]] = [(tag, None) for tag in (*THINK, *_LONE_CLOSER.pattern.split("|"))]
    pairs += [(opener, dialect) for dialect in TABLE for opener in dialect.openers]
    index: dict[str, list[tuple[str, Dialect | None]]] = {}
    for opener, dialect in sorted(pairs, key=lambda pair: -len(pair[0])):  # sorted() is stable: table order stays
        index.setdefault(opener[0], []).append((opener, dialect))
    return index


OPENERS = _opener_index()
FENCES = {info: dialect for dialect in TABLE for info in dialect.fences}
PATTERNED = [dialect for dialect in TABLE if dialect.pattern is not None]
