"""Calls written between special tokens: DeepSeek V3 / R1 / V3.1 and Kimi K2.

DeepSeek V3, R1:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
                  ```json {...} ```<｜tool▁call▁end｜> … <｜tool▁calls▁end｜>
DeepSeek V3.1:    <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>
Kimi K2:          <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0
                  <|tool_call_argument_begin|>{...}<|tool_call_end|> … <|tool_calls_section_end|>

A section runs to its end token, or to the end of the reply when that is missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ayder_cli.calls import json_loads
from ayder_cli.intents.dialects.common.dialect_parts import (
    MAX_TAG,
    NEED_MORE,
    NOT_MINE,
    Block,
    Dialect,
    Ends,
    Verdict,
    may_become,
)
from ayder_cli.intents.dialects.common.json_extent import JsonExtent
from ayder_cli.wording import short


@dataclass(frozen=True)
class Tokens:
    section_end: str
    call_begin: str
    call_end: str
    separator: str  # between the name and the arguments


DEEPSEEK = Tokens("<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>")
KIMI = Tokens("<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>",
              "<|tool_call_argument_begin|>")

_HEAD = re.compile(r"[\w.\-]+(?::\d+)?")  # "function", a tool's name, or Kimi's "functions.NAME:0"
_HEAD_START = re.compile(r"[\w.\-]*(?::\d*)?(?:<[^>]*)?")  # the same, and the start of the separator


@dataclass
class _Call:
    head: str  # what stands between the call's begin token and the separator
    after_separator: int  # where the text after the separator starts
    arguments: tuple[int, int] | None = None  # the span of the JSON arguments, once found


class Section(Block):
    """From the opener to the section's end token (or the end of the reply), one call at a time.

    Arguments are found with JsonExtent, so a JSON string may quote any of the tokens."""

    tokens: Tokens

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.opened = False
        self.position = len(opener)  # where reading outside the arguments goes on
        self.search = self.position  # where the next search for a token resumes
        self.longest = max(map(len, (self.tokens.separator, self.tokens.call_end, self.tokens.section_end)))
        self.calls: list[_Call] = []
        self.extent: JsonExtent | None = None
        self.waiting = False  # a separator was read, its arguments have not started yet

    def read(self, buf: str, final: bool) -> Verdict:
        if not self.opened:
            opened = self._opens_a_call(buf, final)
            if opened is not True:
                return opened
            self.opened = True
        tokens = self.tokens
        while True:
            if self.extent is not None:
                end = self.extent.end(buf)
                if end is None and not final:
                    return NEED_MORE
                self.calls[-1].arguments = (self.calls[-1].arguments[0], end or len(buf))
                self.extent, self.position = None, end or len(buf)
                self.search = self.position
                if end is None:
                    return Ends(len(buf))
            found = self._next(buf, ("{", "[") if self.waiting else (tokens.separator,))
            if found is None:
                self.search = max(self.position, len(buf) - self.longest + 1)  # a token may straddle the end
                return Ends(len(buf)) if final else NEED_MORE
            at, token = found
            self.search = at + len(token)
            if token == tokens.section_end:
                return Ends(at + len(token))
            if token == tokens.separator:
                begin = buf.rfind(tokens.call_begin, self.position, at)
                head_start = begin + len(tokens.call_begin) if begin >= 0 else self.position
                self.calls.append(_Call(buf[head_start:at], at + len(token)))
                self.waiting, self.position = True, at + len(token)
            elif token == tokens.call_end:
                self.waiting, self.position = False, at + len(token)  # a call with no JSON arguments
            else:
                self.calls[-1].arguments = (at, at)
                self.waiting, self.extent = False, JsonExtent(at)

    def _next(self, buf: str, wanted: tuple[str, ...]) -> tuple[int, str] | None:
        """The first of `wanted`, the call's end or the section's end after the reading position."""
        tokens = (*wanted, self.tokens.call_end, self.tokens.section_end)
        found = [(at, token) for token in tokens if (at := buf.find(token, self.search)) >= 0]
        return min(found) if found else None

    def _opens_a_call(self, buf: str, final: bool) -> Verdict | bool:
        """A call follows the opener: the call-begin token, or a name and the separator.

        Else the token was mentioned in prose (NOT_MINE)."""
        tokens = self.tokens
        following = self.context.following(buf, len(self.opener))
        if self.opener != tokens.call_begin:  # the section opener: a call must begin right after it
            if following.startswith(tokens.call_begin):
                return True
            grows = not final and may_become(following or "<", (tokens.call_begin,))
            return NEED_MORE if grows else NOT_MINE
        head_end = following.find(tokens.separator)
        if head_end >= 0:
            return True if _HEAD.fullmatch(following[:head_end]) else NOT_MINE
        grows = not final and len(following) < MAX_TAG and _HEAD_START.fullmatch(following)
        return NEED_MORE if grows else NOT_MINE

    def finish(self, text: str) -> None:
        if not self.calls:
            self.found.error(f"a tool-call section holds no call (it may be cut off): {short(text)}")
        for index, call in enumerate(self.calls):
            start = call.arguments[0] if call.arguments else call.after_separator
            name = self.name(call.head.strip(), text[call.after_separator : start])
            following = self.calls[index + 1].after_separator if index + 1 < len(self.calls) else len(text)
            ended = self.tokens.call_end in text[start:following]
            raw = text[call.after_separator : following]
            if self.context.hit_max_tokens and not ended:
                self.found.error(f"{name or 'a tool call'}: the reply was cut off inside this call; "
                                 f"it was not run: {short(raw)}")
                continue
            if call.arguments is None:
                if ended:
                    self.found.add_call(name, {}, raw)
                else:
                    self.found.error(f"{name or 'a tool call'}: cut off before its arguments: {short(raw)}")
                continue
            try:
                value = json_loads(text[call.arguments[0] : call.arguments[1]])
            except json.JSONDecodeError as exc:
                cut = "" if ended else "; the call may be cut off"
                self.found.error(f"{name or 'a tool call'}: the arguments are not valid JSON ({exc.msg}){cut}: "
                                 f"{short(raw)}")
                continue
            self.found.add_call(name, value, raw)

    def name(self, head: str, before_arguments: str) -> str:
        raise NotImplementedError


class DeepSeek(Section):
    tokens = DEEPSEEK

    def name(self, head: str, before_arguments: str) -> str:
        if head == "function":  # V3 / R1: the name comes after the separator, then a ```json fence
            return before_arguments.split("`", 1)[0].strip()
        return head  # V3.1


class Kimi(Section):
    tokens = KIMI

    def name(self, head: str, before_arguments: str) -> str:
        name = head.removeprefix("functions.")  # "functions.NAME:0" -> NAME
        stem, colon, index = name.rpartition(":")
        return stem if colon and index.isdigit() else name


DIALECTS = [
    # A server may drop the section opener; a lone call-begin token starts the section just as well.
    Dialect("deepseek", DeepSeek, openers=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>")),
    Dialect("kimi-k2", Kimi, openers=("<|tool_calls_section_begin|>", "<|tool_call_begin|>")),
]
