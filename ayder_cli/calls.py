"""Tool calls as every layer sees them: the call, its arguments decoded, structured values read from
text, its result, and the call as one line for the user.

This module sits at the bottom: the clients (`llm`), the intent parser
(`intents`) and the tools all use it, and it imports nothing of theirs.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

MAX_NESTING = 64  # arrays and objects inside each other in a call's arguments: deeper is a malformed call
TOO_DEEP = f"nested more than {MAX_NESTING} levels deep"
_DECODER = json.JSONDecoder()


def json_loads(text: str, **options: Any) -> Any:
    """json.loads for what a model wrote: a value nested past MAX_NESTING is a JSONDecodeError (the
    decoder would raise RecursionError a little further down, and much else after it)."""
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text, 0) from None
    return _not_too_deep(value, text, 0)


def json_raw_decode(text: str, position: int = 0) -> tuple[Any, int]:
    """JSONDecoder().raw_decode with json_loads' limit on nesting."""
    try:
        value, end = _DECODER.raw_decode(text, position)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text, position) from None
    return _not_too_deep(value, text, position), end


def _not_too_deep(value: Any, text: str, position: int) -> Any:
    level = [value]
    for _ in range(MAX_NESTING + 1):  # one level at a time, not a recursion
        level = [item for held in level if isinstance(held, (dict, list))
                 for item in (held.values() if isinstance(held, dict) else held)]
        if not level:
            return value
    raise json.JSONDecodeError(TOO_DEEP, text, position)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # set when the arguments could not be decoded
    # An edit written as text (a SEARCH/REPLACE block, a whole file): its write tool runs in every edit
    # format, offered as a schema or not (the text formats send no replace_string).
    written_edit: bool = False


def decode_arguments(raw: str | dict | None) -> tuple[dict[str, Any], str | None]:
    """Tool-call arguments as a dict; JSON that was encoded twice is unwrapped."""
    if isinstance(raw, dict):
        return raw, None
    if raw is None or not raw.strip():
        return {}, None
    value: Any = raw
    for _ in range(3):  # a string holding JSON holding JSON ... at most this deep
        if not isinstance(value, str):
            break
        try:
            value = json_loads(value)
        except json.JSONDecodeError as exc:
            return {}, f"arguments are not valid JSON ({exc.msg} at column {exc.colno}): {raw[:200]}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got: {raw[:200]}"
    return value, None


def structured_value(text: str) -> Any:
    """An object or array written as JSON or as a Python literal ({'a': 1}, ['x'], True, None).

    Small models write Python as often as JSON. Literals only: ast.literal_eval
    never runs code. Raises ValueError when the text is neither.
    """
    try:
        return json_loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not JSON or a literal: {text[:80]!r}") from exc


def describe(name: str, arguments: dict[str, Any], width: int = 60) -> str:
    """write_file(file_path="a.py", content="...") -- each value cut to one short line."""
    parts = []
    for key, value in arguments.items():
        # Cut long text before encoding it: a 40 MB file content need not be encoded to show 60 characters.
        text = json.dumps(value[: width * 2] if isinstance(value, str) else value, ensure_ascii=False)
        parts.append(f"{key}={text if len(text) <= width else text[: width - 1] + '…'}")
    return f"{name}({', '.join(parts)})"


@dataclass
class ToolResult:
    ok: bool
    output: str = ""
    error: str | None = None
    summary: str = ""  # a few words for the one-line activity display

    @classmethod
    def failure(cls, error: str) -> "ToolResult":
        return cls(ok=False, error=error, summary=first_line(error))


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]
