"""Calls a model wrote inside its reasoning: Qwen3.5+ and Kimi-Thinking often put the tool call in the
think block (or never close it), and engines then show it as thinking and run nothing.

A reply that holds no call and no answer, whose reasoning ends with one or more
calls, meant them: those calls are read and run. Calls followed by more
reasoning were drafts; fenced examples never count; a think block whose closer
never came ends at its first call (what follows the call is the reply, so
every call from there on counts). The reasoning is the reply's last think
block, else the server's own reasoning field (`reasoning_content`,
`reasoning`, Ollama's `thinking`).
"""

from __future__ import annotations

import re

from ayder_cli.intents import think
from ayder_cli.intents.found import ParsedReply
from ayder_cli.intents.scanner import StreamFilter

MAX_CALLS = 32  # a reasoning holding more calls than this is read for none
_CALL_FENCE = re.compile(r"^([ \t]*`{3,})[ \t]*tool(?:_code)?[ \t]*$", re.MULTILINE)
_JSON_FENCE = re.compile(r"\A(\s*`{3,})[ \t]*json[ \t]*$", re.MULTILINE)


def calls_ending_reasoning(reply_text: str, parsed: ParsedReply, server_thinking: str, tools: list[dict] | None,
                           *, hit_max_tokens: bool = False) -> ParsedReply | None:
    """The calls (and the errors of malformed ones) that end the reasoning of a reply with no call and no
    answer; None when there are none. `parsed` is the reply's text read whole."""
    if parsed.calls or parsed.errors or parsed.display.strip():
        return None
    if parsed.thinking and parsed.thinking[-1].strip():
        reasoning, unclosed = parsed.thinking[-1], _last_block_unclosed(reply_text)
    else:  # an empty block (a template's <think></think>) leaves the server's field
        reasoning, unclosed = server_thinking, False
    if not reasoning.strip():
        return None
    return _ending_calls(_fences_as_examples(reasoning), tools, unclosed, hit_max_tokens)


def _ending_calls(reasoning: str, tools: list[dict] | None, every: bool, hit_max_tokens: bool) -> ParsedReply | None:
    flt = StreamFilter(tools, think_open=False, hit_max_tokens=hit_max_tokens)
    found = flt.found
    marks: list[tuple[int, int, int]] = []  # after each call or error: (calls, errors, length of the text shown)

    def mark() -> None:
        if len(marks) <= MAX_CALLS:
            marks.append((len(found.calls), len(found.errors), len(flt.result().display)))

    found.on_found = mark
    flt.feed(reasoning)
    flt.finish()
    if len(marks) > MAX_CALLS:  # drafts, not a plan: and each mark measures all the text shown before it
        return None
    shown = flt.result().display
    first = 0 if every else next((i for i, (_, _, at) in enumerate(marks) if not shown[at:].strip()), len(marks))
    if first == len(marks):
        return None
    calls_before, errors_before = marks[first - 1][:2] if first else (0, 0)
    calls = [call for call in found.calls[calls_before:] if not call.written_edit]  # an edit in a thought is a draft
    errors = found.errors[errors_before:]
    return ParsedReply(calls, errors) if calls or errors else None


def _last_block_unclosed(text: str) -> bool:
    """The reply's last think block never got its closer (the reply ended inside it)."""
    opened = max(((text.rfind(opener), opener) for opener in think.BLOCKS), default=(-1, ""))
    return opened[0] >= 0 and text.find(think.BLOCKS[opened[1]], opened[0]) < 0


def _fences_as_examples(text: str) -> str:
    """The fences that would hold calls (```tool, ```tool_code, a reasoning that is one ```json fence) made
    ordinary ones, which the scanner shows as written: in the reasoning a fence is an example."""
    return _JSON_FENCE.sub(r"\1", _CALL_FENCE.sub(r"\1", text), count=1)
