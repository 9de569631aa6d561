"""What every dialect is made of: the openers that start it, and a block reader that finds its end.

The scanner holds a block from its opener on and asks the reader, each time
more text arrives, one question: where does this block end? The answer is
one of three verdicts: NEED_MORE (wait for more text), NOT_MINE (this was
never markup: its first character is text) or Ends(end). Once the end is
known, finish() turns the block's text into calls and errors.

Readers must be split-invariant (the same verdict for the same text however
it arrived) and linear (each delta reads only what is new: searches resume
where they stopped, see Context.skip_run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Callable

from ayder_cli.intents.found import Found
from ayder_cli.partial import partial_at_end

MAX_TAG = 200  # a "tag" longer than this is text, so a stray '<' never holds output for long
NON_SPACE = re.compile(r"\S")


class Where(Enum):
    """Where an opener counts as one."""

    ANYWHERE = "anywhere"
    LINE_START = "line start"  # only spaces before it on its line
    REPLY_START = "reply start"  # nothing but whitespace before it in the reply


class NeedMore:
    """The block may go on: wait for more text (never returned once the reply is complete)."""


class NotMine:
    """Not this dialect after all: the opener's first character is text."""


@dataclass(frozen=True)
class Ends:
    """The block is the first `end` characters of the buffer."""

    end: int


NEED_MORE = NeedMore()
NOT_MINE = NotMine()
Verdict = NeedMore | NotMine | Ends


class Context:
    """What a reader may ask the scanner: the tools, where the block started, cheap searches."""

    def __init__(self, found: Found, hit_max_tokens: bool = False, whole_files: bool = False) -> None:
        self.found = found
        # The server ended the reply at max_tokens: a call its own closer did not end is not run.
        self.hit_max_tokens = hit_max_tokens
        self.whole_files = whole_files  # the edit format is `whole`: a fence under a path is a file
        self.line_start = True  # the block's opener stood at the start of a line
        self.line_before: str | None = None  # the text line just before the opener's (None: none, or markup)
        self.text_line_before: str | None = None  # the last line with text before it, only blank lines between
        self.before = ""  # the last few characters shown before the opener on its line ("" after markup)
        self.final_answer = False  # a dialect's header said the rest is the answer (harmony's final channel)
        self._skipped: dict[tuple[int, str], int] = {}  # (from, pattern) -> how far that run was read

    def reset(self) -> None:
        """The buffer was consumed: remembered positions no longer hold."""
        self._skipped.clear()

    def skip_run(self, buf: str, start: int, stop: re.Pattern) -> int:
        """Where the first character matching `stop` at or after `start` is (len(buf) if none yet).

        While the scanner waits, the same run is asked about again with every
        delta; what was already read is remembered, so each delta reads only
        what is new.
        """
        key = (start, stop.pattern)
        found = stop.search(buf, self._skipped.get(key, start))
        if found is None:
            self._skipped[key] = len(buf)
            return len(buf)
        return found.start()

    def following(self, buf: str, position: int) -> str:
        """The start of what comes after `position`, past whitespace ("" if nothing yet)."""
        found = self.skip_run(buf, position, NON_SPACE)
        return buf[found : found + MAX_TAG]


class Block:
    """One held piece of markup, from its opener on."""

    def __init__(self, context: Context, opener: str) -> None:
        self.context = context
        self.found = context.found
        self.opener = opener

    def read(self, buf: str, final: bool) -> Verdict:
        """Where the block ends in `buf` (which starts with the opener); `final`: no more text comes."""
        raise NotImplementedError

    def finish(self, text: str) -> None:
        """Report the calls and errors of the block's text (what read() said it ends with)."""
        raise NotImplementedError


class ToCloser(Block):
    """A block that runs from its opener to `closer`, or to the end of the reply when the closer never comes."""

    def __init__(self, context: Context, opener: str, closer: str) -> None:
        super().__init__(context, opener)
        self.closer = closer
        self.search = len(opener)  # where the closer is looked for next
        self.ended = False  # the closer was found

    def to_closer(self, buf: str, final: bool) -> Verdict:
        at = buf.find(self.closer, self.search)
        if at >= 0:
            self.ended = True
            return Ends(at + len(self.closer))
        self.search = max(self.search, len(buf) - len(self.closer) + 1)  # the closer may straddle the end
        return Ends(len(buf)) if final else NEED_MORE


@dataclass(frozen=True)
class Dialect:
    """One family of tool-call markup: its openers and the reader that takes over after one."""

    name: str
    block: Callable[[Context, str], Block]
    openers: tuple[str, ...] = ()
    where: Where = Where.ANYWHERE
    fences: tuple[str, ...] = ()  # info strings of ``` fences it reads ("tool", "tool_code")
    pattern: re.Pattern | None = None  # an opener that is a pattern (<NAMESPACE:tool_call>)
    pattern_prefix: re.Pattern | None = None  # text that may still grow into `pattern`


def may_become(text: str, prefixes: tuple[str, ...]) -> bool:
    """`text` is a proper beginning of one of `prefixes`: more text could make it one."""
    return any(prefix.startswith(text) and prefix != text for prefix in prefixes)


def partial_closer(text: str, tags: tuple[str, ...]) -> int:
    """Length of a closing tag begun at the end of `text` ("</par"); a lone "<" may be the value's own."""
    size = partial_at_end(text, tags)
    return size if size >= 2 else 0
