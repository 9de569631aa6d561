"""JSON calls that are the whole reply (Llama 3.x, xLAM, OpenAI-shaped), and Llama's <|python_tag|>.

A reply that is nothing but `[{"name": ..., "arguments": ...}, ...]`, or one
`{"name": ..., "parameters": ...}` object, bare or in a ```json fence, is a
list of calls (so is xLAM's `{"tool_calls": [...]}`; a stray `}` after it,
or an end-of-turn token, is the model's slip). With prose around it, it is
an example and is shown. A lone
object counts only when it has arguments and names a tool on offer, so a
reply that *is* JSON data ({"name": "Alice", "age": 30}) stays text.

One exception: an unfenced array in the shape of OpenAI's `tool_calls`
(`[{"type": "function", "function": {"name": ..., "arguments": ...}}]`) on
lines of its own at the end of the reply, after prose, is calls too (a server
that wrote its calls out as text): nobody writes that shape as prose, and
its names must be tools on offer.
"""

from __future__ import annotations

import re
from typing import Any

from ayder_cli.calls import json_raw_decode
from ayder_cli.intents.dialects.common.dialect_parts import (MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends,
                                                            Verdict, Where)
from ayder_cli.intents.dialects.common.json_extent import JsonSequence
from ayder_cli.intents.found import is_call_object
from ayder_cli.wording import short

PYTHON_TAG = "<|python_tag|>"
_OPENAI_START = re.compile(r'\{\s*"(?:id|type|function|index)"\s*:')  # how a call of OpenAI's shape begins
_TAG_ENDS = ("<|eom_id|>", "<|eot_id|>")
_STRAY = " \t\r\n}]"  # closing brackets a model leaves after its call
_END_TOKENS = ("<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|endoftext|>", "<|end|>", "<|return|>")


class WholeReply(Block):
    """Held to the end of the reply: only then is it known to be the whole of it."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.value: Any = None

    def read(self, buf: str, final: bool) -> Verdict:
        fenced = self.opener.startswith("`")
        if not fenced:
            following = self.context.following(buf, 1)
            starts = "{" if self.opener == "[" else '"'
            if following[:1] != starts:
                return NOT_MINE if following or final else NEED_MORE
        if not final:
            return NEED_MORE
        self.value = _value(buf.strip(), fenced)
        return Ends(len(buf)) if self._is_calls(self.value) else NOT_MINE

    def _is_calls(self, value: Any) -> bool:
        if isinstance(value, dict) and list(value) == ["tool_calls"]:  # xLAM-1: {"tool_calls": [...]}
            self.value = value = value["tool_calls"]
        if isinstance(value, list):
            return bool(value) and all(is_call_object(item) for item in value)
        if not is_call_object(value):
            return False
        function = value["function"] if isinstance(value.get("function"), dict) else value
        arguments = next((function[key] for key in ("arguments", "parameters") if key in function), None)
        known = not self.found.schemas or function["name"] in self.found.schemas
        return isinstance(arguments, (dict, str)) and known

    def finish(self, text: str) -> None:
        self.found.add_json_calls(self.value, text, "a JSON reply")


def _value(text: str, fenced: bool) -> Any:
    text = text.strip()
    while text.endswith(_END_TOKENS):  # an end-of-turn token the server left: not part of the reply
        text = text[: text.rfind("<")].rstrip()
    if fenced:
        _, _, rest = text.partition("\n")
        text = rest[: rest.rfind("```")] if rest.rstrip().endswith("```") else ""
    text = text.strip()
    try:
        value, end = json_raw_decode(text)
    except ValueError:
        return None
    return value if not text[end:].strip(_STRAY) else None  # a stray '}' after the call is the model's slip


class TrailingCalls(Block):
    """An OpenAI-shaped array of calls at the end of the reply, prose before it: held to the end of the reply
    (only then is it known to end it), and read there at once."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.value: Any = None

    def read(self, buf: str, final: bool) -> Verdict:
        following = self.context.following(buf, 1)
        if not _OPENAI_START.match(following):
            # Only an array that starts like one is held: any other '[{' costs no more than this look.
            grows = len(following) < MAX_TAG and ":" not in following and following[:1] in ("{", "")
            return NEED_MORE if grows and not final else NOT_MINE
        if not final:
            return NEED_MORE
        try:
            self.value, end = json_raw_decode(buf)
        except ValueError:
            return NOT_MINE
        if buf[end:].strip() or not self._openai_calls(self.value):
            return NOT_MINE  # text after it, or not calls: an example
        return Ends(len(buf))

    def _openai_calls(self, value: Any) -> bool:
        if not isinstance(value, list) or not value:
            return False
        for item in value:
            function = item.get("function") if isinstance(item, dict) else None
            if not isinstance(function, dict) or item.get("type", "function") != "function":
                return False
            if not isinstance(function.get("name"), str) or not isinstance(function.get("arguments"), (dict, str)):
                return False
            if self.found.schemas and function["name"] not in self.found.schemas:
                return False  # a tool not on offer: an example of some API
        return True

    def finish(self, text: str) -> None:
        self.found.add_json_calls(self.value, text, "an array of calls")


class PythonTag(Block):
    """Llama 3.1: <|python_tag|>{"name": ..., "parameters": ...}; several may be joined by ';'."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        # ';' joins calls; a stray "}" after one is the model's slip.
        self.calls = JsonSequence(len(opener), ends=_TAG_ENDS, between=";}]", text_ends=True)

    def read(self, buf: str, final: bool) -> Verdict:
        end = self.calls.end(buf, final)
        return NEED_MORE if end is None else Ends(end)

    def finish(self, text: str) -> None:
        if not self.calls.items:
            self.found.error("an empty <|python_tag|> call (it may be cut off)")
        for value, raw in self.calls.values(text):
            if value is None:
                self.found.error(f"<|python_tag|> is not followed by valid JSON (it may be cut off): {short(raw)}")
            else:
                self.found.add_json_calls(value, raw, "<|python_tag|>")


DIALECTS = [
    Dialect("json-reply", WholeReply, openers=("[", "{"), where=Where.REPLY_START, fences=("json",)),
    Dialect("python-tag", PythonTag, openers=(PYTHON_TAG,)),
    # '[{"', or '[' then '{' after a space or an indented line break (pretty-printed): never "[x]", "[{\n" or
    # "[\n[", which would each cost a hold.
    Dialect("trailing-calls", TrailingCalls, openers=('[{"', "[ {", "[\n{", "[\n ", "[\n\t", "[\r\n"),
            where=Where.LINE_START),
]
