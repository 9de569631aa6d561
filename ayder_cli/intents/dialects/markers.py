"""Not calls, but markup the user must not see: leaked special tokens, and closing tags left alone."""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.base import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Outcome
from ayder_cli.intents.display import LEAKED_TOKENS, ORPHAN_CLOSERS

_LINE_REST = re.compile(r"[^ \t\r]")


class Token(Block):
    """An end-of-turn or role token: removed wherever it stands."""

    def read(self, buf: str, final: bool) -> Outcome:
        return Ends(len(self.opener))

    def finish(self, text: str) -> None:
        pass


class OrphanCloser(Token):
    """A closing tag whose opening is gone: removed when nothing follows it on its line.

    In the middle of a sentence it is a mention ("the </tool_call> tag ends a call") and is shown.
    """

    def read(self, buf: str, final: bool) -> Outcome:
        after = self.context.skip_run(buf, len(self.opener), _LINE_REST)
        if after == len(buf):
            return Ends(len(buf)) if final else NEED_MORE
        return Ends(len(self.opener)) if buf[after] == "\n" else NOT_MINE


DIALECTS = [
    Dialect("leaked-tokens", Token, openers=LEAKED_TOKENS),
    Dialect("orphan-closers", OrphanCloser, openers=ORPHAN_CLOSERS),
]
