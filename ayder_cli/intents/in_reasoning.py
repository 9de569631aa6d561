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

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
_EXAMPLE = "(an example)"  # what a fenced block counts as: text, so nothing before it ends the reasoning


def calls_ending_reasoning(reply_text: str, parsed: ParsedReply, server_thinking: str, tools: list[dict] | None,
                           *, hit_max_tokens: bool = False) -> ParsedReply | None:
    """The calls (and the errors of malformed ones) that end the reasoning of a reply with no call and no
    answer; None when there are none. `parsed` is the reply's text read whole."""
    if parsed.calls or parsed.errors or parsed.display.strip():
        return None
    if parsed.thinking:
        reasoning, unclosed = parsed.thinking[-1], _last_block_unclosed(reply_text)
    else:
        reasoning, unclosed = server_thinking, False
    if not reasoning.strip():
        return None
    return _ending_calls(_without_fences(reasoning), tools, unclosed, hit_max_tokens)


def _ending_calls(reasoning: str, tools: list[dict] | None, every: bool, hit_max_tokens: bool) -> ParsedReply | None:
    flt = StreamFilter(tools, think_open=False, hit_max_tokens=hit_max_tokens)
    found = flt.found
    marks: list[tuple[int, int, int]] = []  # after each call or error: (calls, errors, length of the text shown)
    found.on_found = lambda: marks.append((len(found.calls), len(found.errors), len(flt.result().display)))
    flt.feed(reasoning)
    flt.finish()
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


def _without_fences(text: str) -> str:
    """Every fenced block replaced by a word: an example shown in a fence is never a call."""
    kept, at = [], 0
    while (opening := _FENCE.search(text, at)) is not None:
        kept.append(text[at : opening.start()])
        run = opening.group(1)
        closing = re.compile(r"^[ \t]{0,3}%s{%d,}[ \t]*$" % (re.escape(run[0]), len(run)), re.MULTILINE)
        line_end = text.find("\n", opening.end())
        end = closing.search(text, line_end) if line_end >= 0 else None
        kept.append(_EXAMPLE)
        at = end.end() if end else len(text)
    kept.append(text[at:])
    return "".join(kept)
