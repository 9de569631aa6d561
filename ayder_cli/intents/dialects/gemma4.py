"""Gemma 4: <|tool_call>call:NAME{key:VALUE,…}<tool_call|>, one block per call, blocks back to back.

    <|tool_call>call:read_file{file_path:<|"|>a.py<|"|>,limit:40}<tool_call|>

Keys are unquoted; a string sits between two `<|"|>` tokens with nothing
escaped inside (so it may hold any text but that token); numbers, `true`,
`false` and `null` are bare; objects and lists nest (`{k:v}`, `[a,b]`), as
the chat template's format_argument writes them. What models write besides:
`<turn|>` (the end of the turn) in place of the closer, a stray colon after
the opener, no closer at the end of the reply or before the next text, and
the drift `call:NAME(key: "value")` (JSON strings, `key=value`). Values are
typed by the tool's schema: a quoted "40" under an integer is 40, a bare 007
under a string is "007". The template's other tokens, leaked, are hidden.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ayder_cli.calls import json_raw_decode
from ayder_cli.intents.coerce import CoerceError, schema_kinds, typed
from ayder_cli.intents.dialects.common.dialect_parts import MAX_TAG, NEED_MORE, NOT_MINE, Block, Dialect, Ends, Verdict
from ayder_cli.intents.dialects.markers import Token
from ayder_cli.wording import short

OPENER = "<|tool_call>"
QUOTE = '<|"|>'
CLOSERS = ("<tool_call|>", "<turn|>")
_HEAD = re.compile(r"\s*:?\s*call:([A-Za-z_][\w.\-]*)\s*([{(])")
_HEAD_START = re.compile(r"\s*:?\s*(?:c(?:a(?:l(?:l(?::[\w.\-]*\s*)?)?)?)?)?")  # what may still grow into _HEAD
_OUTSIDE = re.compile(r'[<"{}\[\]()]')  # what matters between strings
_JSON_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)  # up to a JSON string's closing quote
_BARE_END = re.compile(r"[,}\])]")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_SCALARS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}


class _Broken(ValueError):
    """The arguments cannot be read."""


class _Bare(str):
    """A value written without quotes: its type is what it reads as, unless the schema asks for text."""


class Call(Block):
    """From `<|tool_call>` to its closer; once the arguments' braces close, to the closer or right there."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener)
        self.position = 0  # where reading goes on; 0 while the head (call:NAME{) is not read yet
        self.depth = 0
        self.in_quote = False  # inside <|"|>…<|"|>
        self.in_json = False  # inside a "JSON string" (the drift form)
        self.closed = False  # the block ended at a closer, or its braces closed
        self.args_at = 0  # where the arguments' opening brace stands
        self.name = ""  # "" until the head is read (or when the reply ended inside it)

    def read(self, buf: str, final: bool) -> Verdict:
        if not self.position:
            head = _HEAD.match(buf, len(OPENER))
            if head is None:
                rest = buf[len(OPENER) : len(OPENER) + MAX_TAG]
                if len(rest) >= MAX_TAG or not _HEAD_START.fullmatch(rest):
                    return NOT_MINE
                return Ends(len(buf)) if final else NEED_MORE  # the reply ended inside the head: a cut call
            self.name, self.position, self.depth = head.group(1), head.end(), 1
            self.args_at = head.end() - 1  # the opening brace
        while True:
            if self.in_quote:
                at = buf.find(QUOTE, self.position)
                if at < 0:
                    self.position = max(self.position, len(buf) - len(QUOTE) + 1)  # the token may straddle the end
                    return Ends(len(buf)) if final else NEED_MORE
                self.in_quote, self.position = False, at + len(QUOTE)
                continue
            if self.in_json:
                at = _JSON_STRING_REST.match(buf, self.position).end()
                if at == len(buf) or buf[at] != '"':
                    self.position = at
                    return Ends(len(buf)) if final else NEED_MORE
                self.in_json, self.position = False, at + 1
                continue
            if self.depth == 0:
                return self._after_arguments(buf, final)
            found = _OUTSIDE.search(buf, self.position)
            if found is None:
                self.position = len(buf)
                return Ends(len(buf)) if final else NEED_MORE
            char, at = found.group(0), found.start()
            self.position = at + 1
            if char == '"':
                self.in_json = True
            elif char in "{[(":
                self.depth += 1
            elif char in "}])":
                self.depth -= 1
            elif buf.startswith(QUOTE, at):
                self.in_quote, self.position = True, at + len(QUOTE)
            elif closer := next((c for c in CLOSERS if buf.startswith(c, at)), None):
                return Ends(at + len(closer))  # a closer before the braces closed: the call is cut short
            elif not final and len(buf) - at < len(CLOSERS[0]) and _may_start_token(buf[at:]):
                self.position = at
                return NEED_MORE

    def _after_arguments(self, buf: str, final: bool) -> Verdict:
        """The braces closed: the closer follows (after spaces), or it is missing and the block ends here."""
        self.closed = True
        following = buf[self.position : self.position + MAX_TAG].lstrip()
        closer = next((c for c in CLOSERS if following.startswith(c)), None)
        if closer:
            return Ends(buf.index(closer, self.position) + len(closer))
        if following and any(c.startswith(following) for c in CLOSERS):
            return Ends(len(buf)) if final else NEED_MORE  # at the end: the reply was cut inside the closer
        return Ends(self.position) if following or final else NEED_MORE

    def finish(self, text: str) -> None:
        name, raw = self.name, text[len(OPENER) :]
        if not name or not self.closed and self.context.hit_max_tokens:
            self.found.error(f"{name or 'a tool call'}: the reply was cut off inside this call; it was not run: "
                             f"{short(raw)}")
            return
        try:
            value, _ = _Reader(text).value_at(self.args_at)
        except _Broken as exc:
            self.found.error(f"{name}: the arguments cannot be read ({exc}); write them as "
                             f'{{key:<|"|>text<|"|>,count:3}}: {short(raw)}')
            return
        try:
            arguments = _typed(value, self.found.parameters(name), name)
        except CoerceError as exc:
            self.found.error(f"{name}: {exc}")
            return
        self.found.add_call(name, arguments, raw)


def _may_start_token(text: str) -> bool:
    return any(token.startswith(text) for token in (QUOTE, *CLOSERS))


class _Reader:
    """The arguments, read whole: an object of key:value pairs, strings quoted <|"|> or as JSON."""

    def __init__(self, text: str) -> None:
        self.text = text

    def value_at(self, at: int) -> tuple[Any, int]:
        text = self.text
        at = self._skip(at)
        if text.startswith(QUOTE, at):
            end = text.find(QUOTE, at + len(QUOTE))
            if end < 0:
                raise _Broken("a string is not closed")
            return text[at + len(QUOTE) : end], end + len(QUOTE)
        char = text[at : at + 1]
        if char == '"':
            try:
                return json_raw_decode(text, at)
            except json.JSONDecodeError as exc:
                raise _Broken("a quoted string is not valid") from exc
        if char in ("{", "("):
            return self._object(at + 1, "}" if char == "{" else ")")
        if char == "[":
            return self._list(at + 1)
        found = _BARE_END.search(text, at)
        end = found.start() if found else len(text)
        bare = text[at:end].strip()
        if not bare:
            raise _Broken("a value is missing")
        return _Bare(bare), end

    def _object(self, at: int, close: str) -> tuple[dict, int]:
        text, result = self.text, {}
        while True:
            at = self._skip(at, ",")
            if at >= len(text):
                raise _Broken("the arguments are not closed")
            if text[at] == close:
                return result, at + 1
            key, at = self._key(at)
            result[key], at = self.value_at(at)

    def _key(self, at: int) -> tuple[str, int]:
        text = self.text
        if text.startswith(QUOTE, at) or text[at] == '"':
            key, at = self.value_at(at)
            at = self._skip(at)
            if text[at : at + 1] not in (":", "="):
                raise _Broken(f"no ':' after the key {key!r}")
            return key, at + 1
        found = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*[:=]").match(text, at)
        if found is None:
            raise _Broken(f"no key at {short(text[at : at + 20])}")
        return found.group(1), found.end()

    def _list(self, at: int) -> tuple[list, int]:
        text, items = self.text, []
        while True:
            at = self._skip(at, ",")
            if at >= len(text):
                raise _Broken("a list is not closed")
            if text[at] == "]":
                return items, at + 1
            item, at = self.value_at(at)
            items.append(item)

    def _skip(self, at: int, also: str = "") -> int:
        text = self.text
        while at < len(text) and (text[at].isspace() or text[at] in also):
            at += 1
        return at


def _typed(value: Any, schema: dict | None, key: str) -> Any:
    """`value` as its schema asks: quoted text under another type is read as that type, bare text under
    a string stays the text as written; without a schema a bare value is what it reads as."""
    kinds = schema_kinds(schema)
    if isinstance(value, dict):
        properties = (schema or {}).get("properties") if isinstance(schema, dict) else None
        properties = properties if isinstance(properties, dict) else {}
        return {k: _typed(v, properties.get(k), k) for k, v in value.items()}
    if isinstance(value, list):
        items = (schema or {}).get("items") if isinstance(schema, dict) else None
        return [_typed(item, items if isinstance(items, dict) else None, key) for item in value]
    if isinstance(value, _Bare):
        if value in ("null", "None"):
            return None  # the template writes None as a bare null
        if "string" in kinds:
            return str(value)
        read = _scalar(value)
        return typed(str(value), schema, key) if kinds and read is value else read
    if kinds and "string" not in kinds:
        return typed(value, schema, key)
    return value


def _scalar(text: str) -> Any:
    if text in _SCALARS:
        return _SCALARS[text]
    if _NUMBER.fullmatch(text):
        number = float(text)
        return int(text) if re.fullmatch(r"-?\d+", text) else number
    return text  # `key=value` drift: the text


DIALECTS = [
    Dialect("gemma4", Call, openers=(OPENER,)),
    # The template's own tokens, when a server leaves them in the text.
    Dialect("gemma4-tokens", Token, openers=("<tool_call|>", "<|tool_response>", "<tool_response|>", "<turn|>")),
]
