"""MiniMax-M1: <tool_calls> with one JSON call object per line, then </tool_calls>.

A line that is not a call is reported; the good lines still run.
(MiniMax-M2's <minimax:tool_call> is read by the XML dialects.)
"""

from __future__ import annotations

from ayder_cli.intents.dialects.common.base import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.json_extent import JsonSequence
from ayder_cli.wording import short

OPENER, CLOSER = "<tool_calls>", "</tool_calls>"


class JsonLines(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.lines = JsonSequence(len(OPENER), ends=(CLOSER,))

    def read(self, buf: str, final: bool) -> Verdict:
        if not self.lines.items:
            following = self.context.following(buf, len(OPENER))
            if not following:
                return NOT_MINE if final else NEED_MORE
            if not following.startswith("{"):
                return NOT_MINE
        end = self.lines.end(buf, final)
        return NEED_MORE if end is None else Ends(end)

    def finish(self, text: str) -> None:
        for value, line in self.lines.values(text):
            if value is None:
                self.found.error(f"a line in <tool_calls> is not valid JSON (it may be cut off): {short(line)}")
            elif not self.found.add_json_call(value, line):
                self.found.error(f'a line in <tool_calls> needs {{"name": ..., "arguments": {{...}}}}: {short(line)}')


DIALECT = Dialect("minimax-m1", JsonLines, openers=(OPENER,))
