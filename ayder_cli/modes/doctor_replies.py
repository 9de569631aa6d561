"""What the doctor reads in the server's answers: the served model's name, the server's own words, the add call."""

from __future__ import annotations

from typing import Any

from ayder_cli.calls import ToolCall
from ayder_cli.intents import parse
from ayder_cli.llm.wire_types import LLMError, Reply
from ayder_cli.wording import short

ADD_TOOL = {"type": "function", "function": {
    "name": "add", "description": "Add two integers.",
    "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                   "required": ["a", "b"]}}}
ADD_ARGUMENTS = {"a": 2, "b": 3}
# A call of add and a short answer take ~40 tokens; a thinking model's reasoning before them a few hundred.
# The session's max_tokens (4,096) let one check run for minutes on a CPU.
TOOL_CHECK_MAX_TOKENS = 512


def served_name(wanted: str, models: list[str]) -> str | None:
    """The server's name for the model: the same, or with Ollama's ":latest" on either side."""
    for name in models:
        if wanted in (name, f"{name}:latest") or name == f"{wanted}:latest":
            return name
    return None


def server_words(exc: LLMError) -> str:
    """The server's own message, without ayder's "... rejected the request (HTTP 400): " before it."""
    _, colon, words = exc.message.partition("): ")
    return words if colon else exc.message


def call_in(reply: Reply) -> tuple[ToolCall | None, bool]:
    """The reply's first tool call, native or written in its text; and whether it came from the text."""
    if reply.tool_calls:
        return reply.tool_calls[0], False
    calls = parse(reply.text, [ADD_TOOL]).calls
    return (calls[0], True) if calls else (None, False)


def right_call(call: ToolCall) -> bool:
    """add with a=2 and b=3 (numbers written as strings count too)."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    return call.error is None and call.name == "add" and {
        key: _number(value) for key, value in arguments.items()} == ADD_ARGUMENTS


def _number(value: Any) -> Any:
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def said(reply: Reply) -> str:
    text = parse(reply.text, [ADD_TOOL]).display.strip()
    words = f"the model said {short(text, 60)!r}" if text else "the model said nothing"
    if reply.finish_reason == "length":  # cut at the checks' own cap: a long thinker may need more
        words += f"; cut at {TOOL_CHECK_MAX_TOKENS} tokens"
    return words
