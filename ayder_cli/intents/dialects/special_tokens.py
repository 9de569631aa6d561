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

from ayder_cli.intents.dialects.base import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Outcome, may_become
from ayder_cli.intents.found import short


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


class Section(Block):
    tokens: Tokens

    search = 0

    def read(self, buf: str, final: bool) -> Outcome:
        if not self.search:
            opened = self._opens_a_call(buf, final)
            if opened is not True:
                return opened
        end_token = self.tokens.section_end
        end = buf.find(end_token, max(self.search, len(self.opener)))
        if end >= 0:
            return Ends(end + len(end_token))
        self.search = max(len(self.opener), len(buf) - len(end_token))
        return Ends(len(buf)) if final else NEED_MORE

    def _opens_a_call(self, buf: str, final: bool) -> Outcome | bool:
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
        tokens = self.tokens
        body = text.removesuffix(tokens.section_end)
        pieces = body.split(tokens.call_begin)[1:] if tokens.call_begin in body else []
        if not pieces:
            self.found.error(f"a tool-call section holds no call (it may be cut off): {short(text)}")
        for piece in pieces:
            call, ended, _ = piece.partition(tokens.call_end)
            head, separated, arguments = call.partition(tokens.separator)
            if not separated:
                self.found.error(f"a tool call is cut off before its arguments: {short(piece)}")
                continue
            self._add(head.strip(), arguments, ended, piece)

    def _add(self, head: str, arguments: str, ended: str, raw: str) -> None:
        name, text = self.name_and_arguments(head, arguments)
        try:
            value = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            cut = "" if ended else "; the call may be cut off"
            self.found.error(f"{name or 'a tool call'}: the arguments are not valid JSON ({exc.msg}){cut}: {short(raw)}")
            return
        self.found.add_call(name, value, raw)

    def name_and_arguments(self, head: str, arguments: str) -> tuple[str, str]:
        raise NotImplementedError


class DeepSeek(Section):
    tokens = DEEPSEEK

    def name_and_arguments(self, head: str, arguments: str) -> tuple[str, str]:
        if head == "function":  # V3 / R1: the name starts the arguments part, then a ```json fence
            cut = min((found for found in map(arguments.find, ("\n", "`", "{")) if found >= 0), default=len(arguments))
            return arguments[:cut].strip(), _unfenced(arguments[cut:])
        return head, arguments  # V3.1


class Kimi(Section):
    tokens = KIMI

    def name_and_arguments(self, head: str, arguments: str) -> tuple[str, str]:
        name = head.removeprefix("functions.")  # "functions.NAME:0" -> NAME
        stem, colon, index = name.rpartition(":")
        return (stem if colon and index.isdigit() else name), arguments


def _unfenced(text: str) -> str:
    """The JSON inside a ```json fence (or the text itself when it has none)."""
    text = text.strip()
    if not text.startswith("```"):
        return text
    text = text[3:].removeprefix("json").rstrip()
    return text.removesuffix("```")


DIALECTS = [
    # A server may drop the section opener; a lone call-begin token starts the section just as well.
    Dialect("deepseek", DeepSeek, openers=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>")),
    Dialect("kimi-k2", Kimi, openers=("<|tool_calls_section_begin|>", "<|tool_call_begin|>")),
]
