"""gpt-oss "harmony" messages, when a server passes them through raw.

  <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>   a call
  <|channel|>final<|message|>…                                                     the answer
  <|channel|>analysis<|message|>…<|end|>                                           thinking (the scanner's)

The recipient may also stand before the channel: <|start|>assistant to=functions.NAME<|channel|>….
A header without a recipient is only removed: the message after it is text.
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.base import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.common.json_extent import JsonSequence
from ayder_cli.wording import short

MESSAGE, CALL = "<|message|>", "<|call|>"
_ENDS = (CALL, "<|end|>")
_RECIPIENT = re.compile(r"to=(?:functions\.)?(\S*)")


class Harmony(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.body_start: int | None = None
        self.name: str | None = None
        self.arguments: JsonSequence | None = None

    def read(self, buf: str, final: bool) -> Verdict:
        if self.body_start is None:
            newline = buf.find("\n", 0, MAX_TAG)  # a header is one line: <|message|> after it is not its own
            message = buf.find(MESSAGE, 0, MAX_TAG if newline < 0 else newline)
            if message < 0:
                if not final and len(buf) < MAX_TAG and newline < 0:
                    return NEED_MORE
                return NOT_MINE
            header = buf[:message].replace("<|constrain|>", " ").replace("<|channel|>", " ")
            recipient = _RECIPIENT.search(header)
            self.body_start = message + len(MESSAGE)
            if recipient is None:
                return Ends(self.body_start)  # the header goes; the message is text
            self.name = recipient.group(1)
            self.arguments = JsonSequence(self.body_start, ends=_ENDS, text_ends=True)
        end = self.arguments.end(buf, final)
        return NEED_MORE if end is None else Ends(end)

    def finish(self, text: str) -> None:
        if self.name is None:
            return
        values = list(self.arguments.values(text))
        if not values:
            self.found.error(f"{self.name}: the call has no arguments (it may be cut off): {short(text)}")
        elif values[0][0] is None:
            self.found.error(f"{self.name}: the arguments are not valid JSON (it may be cut off): {short(values[0][1])}")
        else:
            self.found.add_call(self.name, values[0][0], text)


DIALECT = Dialect("harmony", Harmony, openers=("<|channel|>", "<|start|>assistant to="))
