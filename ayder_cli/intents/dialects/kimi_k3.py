"""Kimi K3 ("XTML"): channels opened by <|open|>NAME<|sep|> and closed by <|close|>NAME<|sep|>.

    <|open|>tools<|sep|><|open|>call tool="read_file" index="1"<|sep|>
    <|open|>argument key="file_path" type="string"<|sep|>a.py<|close|>argument<|sep|>
    <|open|>argument key="limit" type="number"<|sep|>40<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|>

An argument's value is raw text when its type is "string" and JSON text for
any other type; a call may instead hold one JSON object of its arguments
(<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>). Attribute values
escape `&` and `"` (&amp;, &quot;). Values are typed by the tool's schema
where the markup gives no type, or gives text for a parameter of another
type. The `response` channel is the answer (its tags are hidden, its text
shown); `think` is thinking (think.py); the end-of-message tokens are hidden.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ayder_cli.calls import json_loads
from ayder_cli.intents.coerce import CoerceError, marked_json, schema_kinds, typed
from ayder_cli.intents.dialects.common.dialect_parts import NEED_MORE, NOT_MINE, Dialect, ToCloser, Verdict, may_become
from ayder_cli.intents.dialects.markers import Token
from ayder_cli.wording import short

OPEN, CLOSE, SEP = "<|open|>", "<|close|>", "<|sep|>"
TOOLS_OPEN, TOOLS_CLOSE = OPEN + "tools" + SEP, CLOSE + "tools" + SEP
CALL_OPEN, CALL_CLOSE = OPEN + "call", CLOSE + "call" + SEP
_ATTRIBUTE = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
_PART = re.compile(r"<\|open\|>(argument|json)\b")


class Channel(ToCloser):
    """The tools channel, from its opener to its closer (or the end of the reply); a lone call, to its closer."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener, TOOLS_CLOSE if opener == TOOLS_OPEN else CALL_CLOSE)
        self.opened = False

    def read(self, buf: str, final: bool) -> Verdict:
        if not self.opened:
            following = self.context.following(buf, len(self.opener))
            if self.opener == TOOLS_OPEN:  # a call (or the channel's end) must come next
                if not following.startswith((CALL_OPEN, TOOLS_CLOSE)):
                    grows = not final and may_become(following or "<", (CALL_OPEN, TOOLS_CLOSE))
                    return NEED_MORE if grows else NOT_MINE
            else:  # "<|open|>call" then a space and its attributes
                rest = buf[len(self.opener) : len(self.opener) + 1]
                if rest != " ":
                    return NEED_MORE if not rest and not final else NOT_MINE
            self.opened = True
        return self.to_closer(buf, final)

    def finish(self, text: str) -> None:
        position, calls = 0, 0
        while (start := text.find(CALL_OPEN, position)) >= 0:
            calls += 1
            head_end = text.find(SEP, start)
            end = text.find(CALL_CLOSE, start)
            if head_end < 0 or end < 0 and self.context.hit_max_tokens:
                self.found.error(f"a tool call was cut off before its end; it was not run: {short(text[start:])}")
                return
            attributes = _attributes(text[start + len(CALL_OPEN) : head_end])
            body = text[head_end + len(SEP) : end if end >= 0 else len(text)]
            self._call(attributes.get("tool", ""), body, text[start : end if end >= 0 else len(text)], end >= 0)
            if end < 0:
                return
            position = end + len(CALL_CLOSE)
        if not calls:
            self.found.error(f"a tool-call channel holds no call (it may be cut off): {short(text)}")

    def _call(self, name: str, body: str, raw: str, ended: bool) -> None:
        properties = self.found.parameters(name).get("properties") or {}
        arguments: dict[str, Any] = {}
        position = 0
        while found := _PART.search(body, position):
            kind = found.group(1)
            head_end = body.find(SEP, found.end())
            closer = CLOSE + kind + SEP
            end = body.find(closer, head_end + len(SEP)) if head_end >= 0 else -1
            if end < 0:
                self.found.error(f"{name or 'a tool call'}: an {kind} is not closed (the call may be cut off): "
                                 f"{short(raw)}")
                return
            attributes = _attributes(body[found.end() : head_end])
            value = body[head_end + len(SEP) : end]
            try:
                if kind == "json":
                    arguments.update(_json_object(value))
                else:
                    key = attributes.get("key", "")
                    if key:  # an empty key names nothing: dropped
                        arguments[key] = _value(value, attributes.get("type"), properties.get(key), key)
            except (CoerceError, ValueError) as exc:
                self.found.error(f"{name or 'a tool call'}: {exc}")
                return
            position = end + len(closer)
        if not ended and not arguments and not body.strip():
            self.found.error(f"{name or 'a tool call'}: cut off before its arguments: {short(raw)}")
            return
        self.found.add_call(name, arguments, raw)


def _attributes(head: str) -> dict[str, str]:
    """The attributes of a tag, unescaped as the encoder escaped them (&quot; first, then &amp;)."""
    return {key: value.replace("&quot;", '"').replace("&amp;", "&") for key, value in _ATTRIBUTE.findall(head)}


def _json_object(value: str) -> dict:
    try:
        parsed = json_loads(value)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the JSON arguments are not valid JSON ({exc.msg})") from exc
    if not isinstance(parsed, dict):
        raise ValueError(f"the JSON arguments must be an object, got: {short(parsed)}")
    return parsed


def _value(value: str, kind: str | None, schema: dict | None, key: str) -> Any:
    """A string is the raw text (typed by the schema when it asks for another type); any other type is JSON,
    read by the schema when it is not valid JSON; no type: by the schema."""
    kinds = schema_kinds(schema)
    if kind == "string" and (not kinds or "string" in kinds):
        return value
    if kind not in (None, "string"):
        return marked_json(value, schema, key)
    return typed(value, schema, key)


DIALECTS = [
    Dialect("kimi-k3", Channel, openers=(TOOLS_OPEN, CALL_OPEN)),
    # The channel tags around the answer, and the end of the message: hidden, the answer's text shown.
    Dialect("kimi-k3-tokens", Token, openers=(
        OPEN + "response" + SEP, CLOSE + "response" + SEP, CLOSE + "message" + SEP, "<|end_of_msg|>",
        TOOLS_OPEN, TOOLS_CLOSE, CALL_CLOSE)),
]
