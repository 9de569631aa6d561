"""The intent parser: tool calls written as text, in every dialect open models use, and think blocks.

`parse(text, tools)` reads a whole reply; `StreamFilter` reads it delta by delta and shows exactly what `parse` would.
The scanner (`scanner.py`, its text in a `ScanBuffer`) knows text, think blocks and fences; each dialect (`dialects/`,
what they share in `dialects/common/`) knows its own markup, and `families.py` says which model family each one reads;
`coerce.py` types values by the tool's schema; `display.py` closes the gaps removed markup leaves.

May import: the leaves.
(The layers, bottom to top: tests/project/test_house.py.)

    coerce.py            typing text values by the tool's JSON schema
    cut_calls.py         a reply cut at max_tokens: the complete calls before the cut one, container closed
    display.py           what the user sees: no markup, no leftover blank lines
    families.py          model family -> the dialect modules that read it ("how is Kimi K2 read?")
    found.py             what a reply yields: calls, errors for the model, the view for the user
    in_reasoning.py      the calls that end the reasoning of a reply with no call and no answer
    lines_seen.py        the last lines shown: where the path of an edit written as text stands
    scan_buffer.py       ScanBuffer: the scanner's input, a short buffer filled a slice at a time
    scanner.py           the one incremental scanner: text, think blocks, code fences, openers
    shown_line.py        Where the scanner's shown text stands, and how far from there the text is plainly text
    think.py             the tags that open and close think blocks
    dialects/            see its __init__.py
"""

from __future__ import annotations

from ayder_cli.intents.found import ParsedReply
from ayder_cli.intents.scanner import StreamFilter

__all__ = ["ParsedReply", "StreamFilter", "call_format_instructions", "parse"]


def parse(text: str, tools: list[dict] | None = None, *, think_open: bool | None = None,
          hit_max_tokens: bool = False, whole_files: bool = False) -> ParsedReply:
    """Every tool call, malformed call, think block and the display text of one reply.

    think_open: None (default) treats a lone </think> as closing a block that
    started with the reply; True/False say whether the reply starts thinking.
    hit_max_tokens: the server ended the reply at max_tokens; a call that its own
    closing markup did not end is reported, not run. The display is the same either way.
    whole_files: the edit format is `whole`, so a fence under a file's path is that whole file.
    """
    scanner = StreamFilter(tools, think_open=think_open, hit_max_tokens=hit_max_tokens, whole_files=whole_files)
    scanner.feed(text)
    scanner.finish()
    return scanner.result()


def call_format_instructions(signatures: list[str]) -> str:
    """The system-prompt part that teaches the [CALL] format to a model without native tools."""
    lines = [
        "You can use tools. To call one, write a line on its own, exactly like this:",
        '[CALL] tool_name {"argument": "value"}',
        "The arguments are one JSON object on that same line. Write the calls, then stop and wait:",
        "the results come back in the next message. Tools:",
    ]
    lines += [f"- {signature}" for signature in signatures]
    return "\n".join(lines)
