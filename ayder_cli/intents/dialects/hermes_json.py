"""Hermes / Qwen2.5 / xLAM: <tool_call>{"name": ..., "arguments": {...}}</tool_call>.

Also read: a JSON array of calls inside the tags (xLAM), several objects in one
block (on lines of their own, or apart by commas), arguments written as a JSON string, and a little junk after the object
before the closer (a stray "}", a few words): the closer still ends the block.
"""

from __future__ import annotations

import json

from ayder_cli.intents.dialects.common.dialect_parts import (
    MAX_TAG,
    NEED_MORE,
    NON_SPACE,
    NOT_MINE,
    Block,
    Dialect,
    Ends,
    Verdict,
)
from ayder_cli.intents.dialects.common.json_extent import JsonExtent, json_values
from ayder_cli.wording import short

OPENER = "<tool_call>"
CLOSER = "</tool_call>"


class HermesJson(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.extent: JsonExtent | None = None
        self.complete_at: int | None = None  # where the last complete JSON value ended

    def read(self, buf: str, final: bool) -> Verdict:
        if self.extent is None:
            rest = self.context.following(buf, len(self.opener))
            if not rest:
                return Ends(len(buf)) if final else NEED_MORE  # an empty block: reported as cut off
            if rest[0] not in "{[":
                return NOT_MINE
            self.extent = JsonExtent(NON_SPACE.search(buf, len(self.opener)).start(), stop=CLOSER)
        while True:
            if self.complete_at is None:
                end = self.extent.end(buf)
                if end is None:
                    return Ends(len(buf)) if final else NEED_MORE  # cut off: finish() reports it
                if self.extent.stopped:
                    return Ends(end)
                self.complete_at = end
            following = self.context.following(buf, self.complete_at)
            if following.startswith(CLOSER):
                return Ends(NON_SPACE.search(buf, self.complete_at).start() + len(CLOSER))
            start = NON_SPACE.search(buf, self.complete_at).start() if following else len(buf)
            if following[:1] == ",":  # several values in one block, apart by commas
                after_comma = self.context.following(buf, start + 1)
                if not after_comma and not final:
                    return NEED_MORE
                start = NON_SPACE.search(buf, start + 1).start() if after_comma[:1] in ("{", "[") else -1
            elif following[:1] not in ("{", "["):
                start = -1
            if start >= 0:  # several values in one block
                self.extent = JsonExtent(start, stop=CLOSER)
                self.complete_at = None
                continue
            return self._after_junk(buf, final)

    def _after_junk(self, buf: str, final: bool) -> Verdict:
        """A little text after the value, then the closer: all of it is the block. Else it ends at the value."""
        ahead = buf[self.complete_at : self.complete_at + MAX_TAG + len(CLOSER)]
        closer = ahead.find(CLOSER)
        markup = ahead.find("<")
        if closer >= 0 and markup == closer:
            return Ends(self.complete_at + closer + len(CLOSER))
        if not final and markup < 0 and len(ahead) < MAX_TAG + len(CLOSER):
            return NEED_MORE
        if not final and markup >= 0 and CLOSER.startswith(ahead[markup:]):
            return NEED_MORE
        return Ends(self.complete_at)

    def finish(self, text: str) -> None:
        body = text[len(self.opener) :]
        body = (body[: -len(CLOSER)] if body.endswith(CLOSER) else body).strip()
        if not body:
            self.found.error("an empty <tool_call> block (the call may be cut off)")
            return
        try:
            for value, _ in json_values(body, between=","):
                if not isinstance(value, (dict, list)):
                    break
                self.found.add_json_calls(value, body, "a <tool_call> block")
        except json.JSONDecodeError as exc:
            self.found.error(f"a <tool_call> block is not valid JSON ({exc.msg}); the call may be cut off: "
                             f"{short(body)}")


DIALECT = Dialect("hermes-json", HermesJson, openers=(OPENER,))
