"""MiniMax-M1: <tool_calls> with one JSON call object per line, then </tool_calls>.

A line that is not a call is reported; the good lines still run.
(MiniMax-M2's <minimax:tool_call> is read by the XML dialects.)
"""

from __future__ import annotations

import json

from ayder_cli.intents.dialects.base import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Outcome
from ayder_cli.intents.found import short

OPENER, CLOSER = "<tool_calls>", "</tool_calls>"


class JsonLines(Block):
    search = 0

    def read(self, buf: str, final: bool) -> Outcome:
        if not self.search:
            following = self.context.following(buf, len(OPENER))
            if not following:
                return NOT_MINE if final else NEED_MORE
            if not following.startswith("{"):
                return NOT_MINE
        end = buf.find(CLOSER, max(self.search, len(OPENER)))
        if end >= 0:
            return Ends(end + len(CLOSER))
        self.search = max(len(OPENER), len(buf) - len(CLOSER))
        return Ends(len(buf)) if final else NEED_MORE

    def finish(self, text: str) -> None:
        for line in text[len(OPENER) :].removesuffix(CLOSER).splitlines():
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                self.found.error(f"a line in <tool_calls> is not valid JSON ({exc.msg}): {short(line)}")
                continue
            if not self.found.add_json_call(value, line):
                self.found.error(f'a line in <tool_calls> needs {{"name": ..., "arguments": {{...}}}}: {short(line)}')


DIALECT = Dialect("minimax-m1", JsonLines, openers=(OPENER,))
