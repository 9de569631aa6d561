"""GLM-5.3-Flash's JSON form: <tool_call>NAME>{"key": "value"}</tool_call>.

Beside GLM's key and value tags (glm.py, read first), GLM-5.3-Flash most
often writes the name, a '>' and the arguments as one JSON object (SGLang's
glm53 detector, PR 37925). The name may carry a group before a slash
(`Weather/get_weather_by_city`): the tool on offer is the whole name, else
its last part. The closer may be missing; JSON says where the arguments end.
"""

from __future__ import annotations

import json
import re

from ayder_cli.calls import json_loads
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
from ayder_cli.intents.dialects.common.json_extent import JsonExtent
from ayder_cli.wording import short

OPENER, CLOSER = "<tool_call>", "</tool_call>"
_HEAD = re.compile(r"\s*([A-Za-z_][\w.\-/]*)\s*>?\s*")


class GlmJson(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.name = ""
        self.start = 0  # where the arguments start
        self.extent: JsonExtent | None = None
        self.end: int | None = None  # where they end, once whole

    def read(self, buf: str, final: bool) -> Verdict:
        if self.extent is None:
            rest = buf[len(self.opener) : len(self.opener) + MAX_TAG]
            head = _HEAD.match(rest)
            if head is None:
                return NEED_MORE if not final and not rest.strip() else NOT_MINE
            if head.end() == len(rest):  # the name so far, nothing after it yet
                return NEED_MORE if not final and len(rest) < MAX_TAG else NOT_MINE
            if rest[head.end()] != "{":
                return NOT_MINE  # GLM's tags, or text: not this form
            self.name, self.start = head.group(1), len(self.opener) + head.end()
            self.extent = JsonExtent(self.start, stop=CLOSER)
        if self.end is None:
            end = self.extent.end(buf)
            if end is None:
                return Ends(len(buf)) if final else NEED_MORE  # cut off: finish() reports it
            if self.extent.stopped:
                return Ends(end)
            self.end = end
        following = self.context.following(buf, self.end)
        if not final and (not following or CLOSER.startswith(following) and following != CLOSER):
            return NEED_MORE
        if following.startswith(CLOSER):
            return Ends(NON_SPACE.search(buf, self.end).start() + len(CLOSER))
        return Ends(self.end)

    def finish(self, text: str) -> None:
        if self.end is None:
            self.found.error(f"{self.name}: the call is cut off or its arguments are not whole JSON: {short(text)}")
            return
        body = text[self.start : self.end]
        try:
            arguments = json_loads(body)
        except json.JSONDecodeError as exc:
            self.found.error(f"{self.name}: the arguments are not valid JSON ({exc.msg}): {short(body)}")
            return
        self.found.add_call(self._tool(self.name), arguments, text)

    def _tool(self, name: str) -> str:
        return name if name in self.found.schemas or "/" not in name else name.rsplit("/", 1)[-1]


DIALECT = Dialect("glm-json", GlmJson, openers=(OPENER,))
