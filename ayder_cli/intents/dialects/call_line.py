"""ayder's own format, taught to models without native tools: `[CALL] name {"json": "arguments"}` on a line."""

from __future__ import annotations

import json

from ayder_cli.calls import json_raw_decode
from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict, Where
from ayder_cli.intents.found import NAME
from ayder_cli.wording import short

OPENER = "[CALL]"
_PAYLOAD_START = ("{", "[", '"')


class CallLine(Block):
    """The line, with its newline."""

    search = 0
    cut = False

    def read(self, buf: str, final: bool) -> Verdict:
        newline = buf.find("\n", self.search)
        if newline < 0 and not final:
            self.search = len(buf)
            return NEED_MORE
        line = buf if newline < 0 else buf[:newline]
        rest = line[len(OPENER) :].lstrip()
        name = NAME.match(rest)
        after = rest[name.end() :].strip() if name else rest.strip()
        if not name and not after.startswith("{"):
            return NOT_MINE  # a mention in prose, not a call
        if after and not after.startswith(_PAYLOAD_START):
            return NOT_MINE
        self.cut = newline < 0 and self.context.hit_max_tokens  # the reply was cut on this very line
        return Ends(len(line) + (newline >= 0))

    def finish(self, text: str) -> None:
        rest = text.strip()[len(OPENER) :].lstrip()
        name = NAME.match(rest)
        if self.cut:
            self.found.error(f"the reply was cut off in this [CALL] line; it was not run: {short(text)}")
            return
        if name is None:
            self.found.error(f"a [CALL] line needs the tool's name before the arguments: {short(text)}")
            return
        payload = rest[name.end() :].strip()
        if not payload:
            self.found.add_call(name.group(0), {}, text)
            return
        try:
            arguments, _ = json_raw_decode(payload)
        except json.JSONDecodeError as exc:
            self.found.error(f"{name.group(0)}: the arguments are not valid JSON ({exc.msg} at column {exc.colno}); "
                             f"the call may be cut off: {short(text)}")
            return
        if not isinstance(arguments, dict):
            self.found.error(f"{name.group(0)}: the arguments must be one JSON object: {short(text)}")
            return
        self.found.add_call(name.group(0), arguments, text)


DIALECTS = [Dialect("call-line", CallLine, openers=(OPENER,), where=Where.LINE_START)]
