"""MiniMax-M3: every tag carries the namespace marker, and each argument is an element named by its key.

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="read_file">
    ]<]minimax[>[<file_path>a.py]<]minimax[>[</file_path>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

An element holding elements is an object (a repeated key, or elements all
named `item`, a list); a leaf's text is typed by the tool's schema, or read
as JSON when the tool is on offer and its schema gives the key no type. A
marker elsewhere is a leaked token (markers.py removes it).
"""

from __future__ import annotations

import re
from typing import Any

from ayder_cli.intents.coerce import CoerceError, typed
from ayder_cli.intents.dialects.common.dialect_parts import Dialect, ToCloser, Verdict
from ayder_cli.intents.found import NAME
from ayder_cli.wording import short

MARK = "]<]minimax[>["
_NAME_ATTRIBUTE = re.compile(r'\s+name\s*=\s*"([^"]*)"\s*>')
_TAG = re.compile(r"<([A-Za-z_][\w.\-]*)>")


class _Broken(ValueError):
    """The call's elements do not nest."""


class Namespaced(ToCloser):
    """From `MARK<tool_call>` (or a bare `MARK<invoke`) to its closer, or the end of the reply."""

    def __init__(self, context, opener: str) -> None:
        super().__init__(context, opener, MARK + ("</tool_call>" if opener.endswith("<tool_call>") else "</invoke>"))

    def read(self, buf: str, final: bool) -> Verdict:
        return self.to_closer(buf, final)

    def finish(self, text: str) -> None:
        if not self.ended:
            self.found.error(f"a MiniMax tool call was cut off before its closing tag: {short(text)}")
            return
        body = text if self.opener.endswith("<invoke ") else text[len(self.opener) : -len(self.closer)]
        position = invokes = 0
        while (start := body.find(MARK + "<invoke ", position)) >= 0:
            end = body.find(MARK + "</invoke>", start)
            name = _NAME_ATTRIBUTE.match(body, start + len(MARK) + len("<invoke"))
            if end < 0 or name is None:
                self.found.error(f"a MiniMax invoke has no name or no closing tag: {short(body[start:])}")
                return
            invokes += 1
            self._call(name.group(1).strip(), body[name.end() : end], text)
            position = end + len(MARK) + len("</invoke>")
        if not invokes:
            self.found.error(f"a MiniMax tool call holds no invoke: {short(text)}")

    def _call(self, name: str, inner: str, raw: str) -> None:
        if not NAME.fullmatch(name or ""):
            self.found.add_call(name, {}, raw)  # reported: no valid tool name
            return
        properties = self.found.parameters(name).get("properties", {})
        try:
            elements, _ = _elements(inner, 0, None)
            arguments = _object(elements, properties, name in self.found.schemas)
        except (_Broken, CoerceError) as exc:
            self.found.error(f"{name}: {exc}: {short(raw)}")
            return
        self.found.add_call(name, arguments, raw)


def _elements(text: str, position: int, closing: str | None) -> tuple[list[tuple[str, Any]], int]:
    """The elements from `position` to `closing` (or the end): (key, children list or leaf text) pairs."""
    found: list[tuple[str, Any]] = []
    while True:
        at = text.find(MARK, position)
        if at < 0:
            if closing is not None:
                raise _Broken(f"the element {closing!r} is not closed")
            return found, len(text)
        if closing is not None and text.startswith(MARK + f"</{closing}>", at):
            return found, at + len(MARK) + len(closing) + 3
        tag = _TAG.match(text, at + len(MARK))
        if tag is None:
            raise _Broken("a namespace marker is not followed by a tag")
        key, start = tag.group(1), tag.end()
        close = MARK + f"</{key}>"
        next_mark = text.find(MARK, start)
        if next_mark >= 0 and text.startswith(close, next_mark):  # a leaf: its text, then its closer
            found.append((key, text[start:next_mark]))
            position = next_mark + len(close)
        else:
            children, position = _elements(text, start, key)
            found.append((key, children))


def _object(elements: list[tuple[str, Any]], properties: dict, known: bool) -> dict:
    result: dict = {}
    for key, content in elements:
        schema = properties.get(key) if isinstance(properties, dict) else None
        value = _value(content, schema, key, known)
        if key in result:  # a repeated element: the values form a list
            result[key] = (result[key] if isinstance(result[key], list) else [result[key]]) + [value]
        else:
            result[key] = value
    return result


def _value(content: Any, schema: dict | None, key: str, known: bool) -> Any:
    if isinstance(content, str):
        return typed(content, schema, key, untyped_json=known)
    if content and all(child == "item" for child, _ in content):
        items = (schema or {}).get("items") if isinstance(schema, dict) else None
        return [_value(child, items, key, known) for _, child in content]
    return _object(content, (schema or {}).get("properties") or {}, known)


DIALECTS = [
    Dialect("minimax-m3", Namespaced, openers=(MARK + "<tool_call>", MARK + "<invoke ")),
]
