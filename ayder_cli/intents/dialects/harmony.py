"""gpt-oss "harmony" messages, when a server passes them through raw.

  <|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>   a call
  <|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{...}     a call, the recipient
                                                                                   in the role header
  <|channel|>final<|message|>…                                                     the answer
  <|channel|>analysis<|message|>…<|end|>                                           thinking (the scanner's)

`<|constrain|>` may stand right after the channel or after a space. The
prompt ends with `<|start|>assistant`, so a reply may begin at the
recipient: ` to=functions.NAME<|channel|>…`. A header without a recipient is
only removed: the message after it is text. A `final` message, to its
`<|end|>` or `<|return|>`, is the answer: JSON there is text, and a header
written there is a mention. So is a header with text before it on its line. gpt-oss sometimes writes a stray `<|channel|>commentary` before the
real channel: it is dropped.
"""

from __future__ import annotations

import re

from ayder_cli.intents.dialects.common.dialect_parts import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict, Where
from ayder_cli.intents.dialects.common.json_extent import JsonSequence
from ayder_cli.wording import short

CHANNEL, MESSAGE, CALL = "<|channel|>", "<|message|>", "<|call|>"
REPLY_HEAD = "to=functions."  # a reply that starts at the recipient of its role header
_ENDS = (CALL, "<|end|>")
MESSAGE_ENDS = ("<|end|>", "<|return|>")  # removed wherever they stand, as markers.py does
_RECIPIENT = re.compile(r"to=(?:functions\.)?(\S*)")
_CHANNEL_NAME = re.compile(r"\s*(\w*)")


class Harmony(Block):
    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.body_start: int | None = None
        self.name: str | None = None
        self.arguments: JsonSequence | None = None

    def read(self, buf: str, final: bool) -> Verdict:
        if self.opener in MESSAGE_ENDS:
            self.context.final_answer = False  # the final message ended: a message after it may be a call
            return Ends(len(self.opener))
        if self.body_start is None:
            if self.context.final_answer or not self.context.line_start:
                return NOT_MINE  # in the answer, or inside a sentence: a header mentioned
            newline = buf.find("\n", 0, MAX_TAG)  # a header is one line: <|message|> after it is not its own
            message = buf.find(MESSAGE, 0, MAX_TAG if newline < 0 else newline)
            if message < 0:
                if not final and len(buf) < MAX_TAG and newline < 0:
                    return NEED_MORE
                return NOT_MINE
            header = buf[:message]
            last_channel = header.rfind(CHANNEL)
            recipient = _RECIPIENT.search(header.replace("<|constrain|>", " ").replace(CHANNEL, " "))
            if last_channel > 0 and header.startswith(CHANNEL) and _RECIPIENT.search(header[:last_channel]) is None:
                return Ends(last_channel)  # a stray channel before the real one: dropped, the real one read next
            self.body_start = message + len(MESSAGE)
            name = recipient.group(1) if recipient else ""
            if recipient is None or name == "assistant":  # a recipient with no name is a bad call, said so
                if last_channel >= 0 and _CHANNEL_NAME.match(header, last_channel + len(CHANNEL)).group(1) == "final":
                    self.context.final_answer = True
                return Ends(self.body_start)  # the header goes; the message is text
            self.name = name
            # A stray "}" after the arguments is the model's slip: it goes with the call.
            self.arguments = JsonSequence(self.body_start, ends=_ENDS, between="}]", text_ends=True)
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


DIALECTS = [
    Dialect("harmony", Harmony, openers=(CHANNEL, "<|start|>assistant to=", *MESSAGE_ENDS)),
    Dialect("harmony-reply-head", Harmony, openers=(REPLY_HEAD,), where=Where.REPLY_START),
]
