"""Mistral: `[TOOL_CALLS]` then a JSON array of calls, or the newer `[TOOL_CALLS]NAME[ARGS]{json}`
(some templates put `[CALL_ID]id` before `[ARGS]`); several may follow one another, and prose may come first.
"""

from __future__ import annotations

import json
import re

from ayder_cli.calls import json_raw_decode
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

OPENER = "[TOOL_CALLS]"
_NAMED = re.compile(r"([A-Za-z_][\w.\-]*)(?:\[CALL_ID\][\w\-]*)?\[ARGS\]")
_MAY_GROW = re.compile(r"[\w.\-\[\]]*")  # a name and bracketed markers, before [ARGS] is complete


class Mistral(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.extent: JsonExtent | None = None
        self.name: str | None = None

    def read(self, buf: str, final: bool) -> Verdict:
        if self.extent is None:
            start = NON_SPACE.search(buf, len(self.opener))
            rest = buf[start.start() : start.start() + MAX_TAG] if start else ""
            if not rest:
                return Ends(len(buf)) if final else NEED_MORE
            named = _NAMED.match(rest)
            if rest[0] in "[{":
                self.extent = JsonExtent(start.start())
            elif named:
                self.name = named.group(1)
                self.extent = JsonExtent(start.start() + named.end())
            elif not final and len(rest) < MAX_TAG and _MAY_GROW.fullmatch(rest):
                return NEED_MORE
            else:
                return NOT_MINE  # "[TOOL_CALLS]" mentioned in prose
        end = self.extent.end(buf)
        if end is None:
            return Ends(len(buf)) if final else NEED_MORE  # cut off: finish() reports it
        return Ends(end)

    def finish(self, text: str) -> None:
        body = text[len(self.opener) :].strip()
        where = "[TOOL_CALLS]"
        if self.name is not None:
            body = body[_NAMED.match(body).end() :]
            where = f"[TOOL_CALLS]{self.name}[ARGS]"
        try:
            value, _ = json_raw_decode(body.strip())
        except json.JSONDecodeError as exc:
            self.found.error(f"{where} is not followed by valid JSON ({exc.msg}): {short(body)}")
            return
        if self.name is None:
            self.found.add_json_calls(value, body, where)
        elif isinstance(value, dict):
            self.found.add_call(self.name, value, text)
        else:
            self.found.error(f"{where}: the arguments must be one JSON object: {short(body)}")


DIALECT = Dialect("mistral", Mistral, openers=(OPENER,))
