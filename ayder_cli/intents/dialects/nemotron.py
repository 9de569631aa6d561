"""Nemotron Nano v2: <TOOLCALL>[{"name": ..., "arguments": {...}}, ...]</TOOLCALL>.

A JSON array of call objects (or one object) between the tags, as NVIDIA's
chat template writes it; arguments may be a JSON string. JSON says where a
string ends, so a value may quote the closer; text after the JSON ends the
block even when the closer is missing. A block the reply ends inside
is reported, not run, when the reply was cut at max_tokens.
"""

from __future__ import annotations

from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.json_extent import JsonSequence
from ayder_cli.wording import short

START, END = "<TOOLCALL>", "</TOOLCALL>"


class ToolCallTags(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.values = JsonSequence(len(opener), ends=(END,), between="}]", text_ends=True)

    def read(self, buf: str, final: bool) -> Verdict:
        following = self.context.following(buf, len(self.opener))
        if not following:
            return Ends(len(buf)) if final else NEED_MORE
        if following[0] not in "[{":
            return NOT_MINE  # the tag mentioned in prose
        end = self.values.end(buf, final)
        return NEED_MORE if end is None else Ends(end)

    def finish(self, text: str) -> None:
        closed = text.endswith(END)
        if (not closed and self.context.hit_max_tokens) or not self.values.items:
            self.found.error(f"a <TOOLCALL> block was cut off; it was not run: {short(text)}")
            return
        for value, raw in self.values.values(text):
            if value is None:
                self.found.error(f"a <TOOLCALL> block is not valid JSON (it may be cut off): {short(raw)}")
            else:
                self.found.add_json_calls(value, raw, "a <TOOLCALL> block")


DIALECT = Dialect("nemotron-toolcall", ToolCallTags, openers=(START,))
