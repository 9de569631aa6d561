"""The one incremental scanner behind parse() and StreamFilter.

It knows plain text, think blocks, code fences and openers, and nothing of
any dialect: at an opener it asks the dialect table who reads what follows,
and holds that text until the reader says where it ends. A code fence is held
for its first lines too: they say whether it holds an edit written as text
(dialects/edit_blocks.py; ShownLine keeps the lines before it, where the edit's
path stands). parse() feeds it a whole reply, the chat loop delta by delta; it
decides only on text it has seen in full, so what it shows while streaming
equals `parse(full).display` however the text was split. Work is linear: every search resumes where the
previous one for the same thing stopped, and no regular expression backtracks.
"""

from __future__ import annotations

import re
from enum import Enum

from ayder_cli.intents import think
from ayder_cli.intents.dialects import FENCES, OpenerIndex
from ayder_cli.intents.dialects.common.dialect_parts import Block, Context, Ends, NeedMore, NotMine, Where
from ayder_cli.intents.dialects.edit_blocks import EditFence
from ayder_cli.intents.display import Output
from ayder_cli.intents.found import Found, ParsedReply
from ayder_cli.intents.scan_buffer import ScanBuffer
from ayder_cli.intents.shown_line import NOT_BACKTICK, ShownLine
from ayder_cli.partial import partial_at_end

_NEWLINE = re.compile(r"\n")
_NOT_FENCE_LINE = {"`": re.compile(r"[^ \t`]"), "~": re.compile(r"[^ \t~]")}
_NOT_TILDE = re.compile(r"[^~]")
_INDENT = re.compile(r"[ \t]*")
_MAY_CLOSE_FENCE = {char: re.compile(r"\n(?=[ \t]*(?:%s|\Z))" % char) for char in "`~"}  # before a line that may close


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

    def __init__(self, tools: list[dict] | None = None, *, think_open: bool | None = None,
                 hit_max_tokens: bool = False, whole_files: bool = False) -> None:
        self.found = Found(tools)
        self.context = Context(self.found, hit_max_tokens, whole_files)
        self._out = Output()
        self._buffer = ScanBuffer()
        self._mode = Mode.LEADING if think_open is None else (Mode.THINK if think_open else Mode.TEXT)
        self._closer = "</think>"  # what ends the think block we are in
        self._hint = 0  # where the search for the current mode's marker resumes in the buffer
        self._fence = ""  # the backticks (or tildes) that opened the ordinary code fence we are in
        self._readers: list[Block] = []  # who may read the held block, first to answer wins
        self._otherwise = self._first_is_text  # what the held text is when no reader takes it
        self._line = ShownLine()  # at the reply's start, on a blank line, in inline code

    # --- public

    def feed(self, text: str) -> list[tuple[str, str]]:
        if text:
            self._buffer.add(text)
            self._run()
        return self._out.take()

    def finish(self) -> list[tuple[str, str]]:
        self._buffer.final = True
        self._run()
        if self._buffer.text:  # only an unclosed think block can be left
            self._out.think(self._buffer.take(len(self._buffer.text)))
        self._out.finish()
        return self._out.take()

    def held(self) -> str:
        """The markup held since an opener while its reader waits for the end ("" when none is held):
        a call written as text, still streaming, is in it."""
        return self._buffer.text if self._mode is Mode.BLOCK else ""

    def result(self) -> ParsedReply:
        found = self.found
        return ParsedReply(list(found.calls), list(found.errors), self._out.display, list(self._out.thinking))

    # --- output

    def _text(self, text: str) -> None:
        if not text:
            return
        self._out.text(text)
        self._line.add(text)

    def _consume(self, size: int) -> str:
        self._hint = 0
        self.context.reset()
        return self._buffer.take(size)

    def _replay(self) -> None:
        self._buffer.replay()
        self.context.reset()
        self._hint = 0

    # --- the modes

    def _run(self) -> None:
        step = {Mode.LEADING: self._leading, Mode.THINK: self._in_think, Mode.TEXT: self._in_text,
                Mode.FENCE: self._in_fence, Mode.BLOCK: self._in_block}
        while True:
            try:
                while self._buffer.text and step[self._mode]():
                    if self._buffer.long:
                        self._replay()
            except _Wait:
                pass
            if not self._buffer.pull():
                return

    def _need(self, needed: bool) -> None:
        """Wait for more text, unless the reply is complete."""
        if needed and not self._buffer.at_end:
            raise _Wait

    def _leading(self) -> bool:
        """At the start of a reply: a lone closing think tag means everything so far was thinking."""
        buf = self._buffer.text
        closing = think.LONE_CLOSER.search(buf, self._hint)
        opening = think.OPENER.search(buf, self._hint)
        if closing and (not opening or closing.start() < opening.start()):
            self._out.think(self._consume(closing.start()))
            self._consume(len(closing.group(0)))
            self._out.view.removed()
            self._out.end_think()
            self._mode = Mode.TEXT
            return True
        if opening or self._buffer.at_end:
            self._mode = Mode.TEXT
            self._replay()
            return True
        self._hint = max(0, len(buf) - think.LONGEST_CLOSER)
        raise _Wait

    def _in_think(self) -> bool:
        buf = self._buffer.text
        end = buf.find(self._closer, self._hint)
        if end >= 0:
            self._out.think(self._consume(end))
            self._consume(len(self._closer))
            self._out.view.removed()
            self._out.end_think()
            self._mode = Mode.TEXT
            return True
        held = partial_at_end(buf, (self._closer,))
        self._out.think(self._consume(len(buf) - held))
        raise _Wait

    def _in_fence(self) -> bool:
        """Inside an ordinary code fence: shown verbatim, nothing in it is a call."""
        buf, char = self._buffer.text, self._fence[0]
        indent = _INDENT.match(buf).end()
        if self._line.blank and buf[indent : indent + 1] in (char, ""):  # this line may close the fence
            newline = self.context.skip_run(buf, 0, _NEWLINE)
            newline = newline if newline < len(buf) else -1
            fence_chars_only = self.context.skip_run(buf, 0, _NOT_FENCE_LINE[char]) == len(buf)
            if newline < 0 and not self._buffer.at_end and fence_chars_only:
                raise _Wait  # only spaces and backticks so far: this line may yet close the fence
            line = buf if newline < 0 else buf[:newline]
            stripped = line.lstrip(" \t")
            if stripped.startswith(self._fence) and not stripped.strip(char).strip():
                self._mode = Mode.TEXT
            self._text(self._consume(len(line) + (newline >= 0)))
            return True
        # This line cannot close the fence: show it, and every line after it that cannot either.
        found = _MAY_CLOSE_FENCE[char].search(buf)
        self._text(self._consume(found.end() if found else len(buf)))
        return True

    def _in_text(self) -> bool:
        buf = self._buffer.text
        found, inline = self._line.plain_run(buf, self.context, OPENERS)
        if found is None or found.start():
            self._text(self._consume(found.start() if found else len(buf)))
            self._line.inline_code = inline
            return found is not None
        char = buf[0]
        if char == "`":
            return self._backticks()
        if char == "~":
            return self._tildes()
        if self._line.inline_code:
            self._text(self._consume(1))
            return True
        return self._opener()

    def _backticks(self) -> bool:
        buf = self._buffer.text
        run = self.context.skip_run(buf, 0, NOT_BACKTICK)
        self._need(run == len(buf))
        if run >= 3 and self._line.blank:
            newline = self.context.skip_run(buf, run, _NEWLINE)
            self._need(newline == len(buf))
            newline = newline if newline < len(buf) else -1
            line = buf if newline < 0 else buf[:newline]
            dialect = FENCES.get(line[run:].strip().lower())
            if dialect is not None and self._allowed(dialect.where):
                # A dialect's own fence; one it does not take (```json holding no calls) is an ordinary fence.
                return self._hold([dialect.block(self.context, "`" * run)], otherwise=self._ordinary_fence)
            # SEARCH/REPLACE blocks or a whole file (edit_blocks) decide by the fence's first lines.
            return self._hold([EditFence(self.context, "`" * run)], otherwise=self._ordinary_fence)
        self._line.inline_code = not self._line.inline_code
        self._text(self._consume(run))
        return True

    def _ordinary_fence(self) -> None:
        """The held fence holds no edit: shown verbatim, like every fence."""
        buf = self._buffer.text
        run = self.context.skip_run(buf, 0, NOT_BACKTICK)
        newline = buf.find("\n")
        self._fence = "`" * run
        self._mode = Mode.FENCE
        self._text(self._consume(newline + 1 if newline >= 0 else len(buf)))

    def _tildes(self) -> bool:
        """Three tildes (or more, in runs as they arrive) starting a line open a ~~~ fence: an ordinary fence,
        closed by a line of three tildes or more. Tildes are shown at once, since the fence is shown as written."""
        run = self.context.skip_run(self._buffer.text, 0, _NOT_TILDE)
        before = self._line.tail.strip(" \t")  # the line so far, when it is short: indentation and tildes only?
        count = len(before) + run if len(self._line.tail) < 8 and before == "~" * len(before) else 0
        self._text(self._consume(run))
        if count >= 3 and not self._line.inline_code:
            self._fence, self._mode = "~~~", Mode.FENCE
        return True

    def _allowed(self, where: Where) -> bool:
        return (where is Where.ANYWHERE or (where is Where.LINE_START and self._line.blank)
                or (where is Where.REPLY_START and self._line.reply_start and not self.context.final_answer))

    def _opener(self) -> bool:
        """At a character that may open markup: a think tag, or whatever the dialect table says."""
        buf = self._buffer.text
        self._need(OPENERS.may_grow(buf))  # all of the buffer is the start of an opener: wait for the rest
        matches = [(opener, dialect) for opener, dialect in OPENERS.matches(buf)
                   if dialect is None or self._allowed(dialect.where)]
        if matches and matches[0][1] is None:
            return self._think_tag(matches[0][0])
        readers = [dialect.block(self.context, opener) for opener, dialect in matches if dialect is not None]
        if not readers:
            self._text(self._consume(1))
            return True
        return self._hold(readers)

    def _think_tag(self, tag: str) -> bool:
        self._consume(len(tag))
        self._out.view.removed()
        if tag in think.BLOCKS:
            self._closer = think.BLOCKS[tag]
            self._mode = Mode.THINK
        return True  # else a stray closing tag: not text the user needs

    # --- blocks: markup held until its end is known

    def _hold(self, readers: list[Block], otherwise=None) -> bool:
        self._line.tell(self.context)
        self._readers = readers
        self._otherwise = otherwise or self._first_is_text
        self._mode = Mode.BLOCK
        return True

    def _in_block(self) -> bool:
        while self._readers:
            verdict = self._readers[0].read(self._buffer.text, self._buffer.at_end)
            if isinstance(verdict, NeedMore):
                raise _Wait
            if isinstance(verdict, NotMine):
                self._readers.pop(0)
                continue
            assert isinstance(verdict, Ends) and verdict.end > 0
            reader, self._readers = self._readers[0], []
            self._mode = Mode.TEXT
            reader.finish(self._consume(verdict.end))
            self._out.view.removed()
            self._line.removed()
            return True
        self._mode = Mode.TEXT
        self._otherwise()
        return True

    def _first_is_text(self) -> None:
        """Not markup after all: its first character is text, scanning goes on."""
        self._text(self._consume(1))


OPENERS = OpenerIndex(think.TAGS)
