"""Calls in a fenced block: ```tool holding JSON call objects, ```tool_code holding Python-style calls."""

from __future__ import annotations

import json

from ayder_cli.calls import json_loads
from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.pythonic import add_python_calls
from ayder_cli.wording import short


class Fence(Block):
    """From the opening fence line to the closing one (or the end of the reply). The opener is the backticks."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.search = 0

    def read(self, buf: str, final: bool) -> Verdict:
        start = buf.find("\n") + 1
        position = max(start, self.search)
        while True:
            found = buf.find(self.opener, position)
            if found < 0:
                self.search = max(start, len(buf) - len(self.opener))
                return Ends(len(buf)) if final else NEED_MORE
            line_start = buf.rfind("\n", 0, found) + 1
            newline = buf.find("\n", found)
            if newline < 0 and not final:
                self.search = found
                return NEED_MORE
            line = buf[line_start : newline if newline >= 0 else len(buf)]
            if line_start >= start and not line.strip().strip("`"):
                return Ends((newline + 1) if newline >= 0 else len(buf))
            position = found + len(self.opener)

    def body(self, text: str) -> str:
        body = text[text.find("\n") + 1 :].rstrip()
        return body[: -len(self.opener)] if body.endswith(self.opener) else body


class JsonFence(Fence):
    """```tool with one call object, or a list of them."""

    def finish(self, text: str) -> None:
        body = self.body(text)
        try:
            value = json_loads(body)
        except json.JSONDecodeError as exc:
            self.found.error(f"a ```tool block is not valid JSON ({exc.msg}): {short(body)}")
            return
        self.found.add_json_calls(value, body, "a ```tool block")


class CodeFence(Fence):
    """```tool_code with `name(key=value)` lines (Gemma-style prompts)."""

    def finish(self, text: str) -> None:
        add_python_calls(self.found, self.body(text), "a ```tool_code block")


DIALECTS = [
    Dialect("tool-fence", JsonFence, fences=("tool",)),
    Dialect("tool-code-fence", CodeFence, fences=("tool_code",)),
]
