"""Mistral's mutation survivors, each killed by a test: what a bad call answers (the exact error, with
its own text), a bare `[TOOL_CALLS]` at the end, and prose mentioning the token shown as it streams.

A survivor is a change to the code that no test noticed (`benchmarks/mutation.py dialects`).
"""

from __future__ import annotations

import pytest
from support.intents_corpus import TOOLS

from ayder_cli.intents import StreamFilter, parse


@pytest.mark.parametrize("text, error", [
    ("Done.[TOOL_CALLS]", "[TOOL_CALLS] is not followed by valid JSON (Expecting value): "),
    ("[TOOL_CALLS]{bad", "[TOOL_CALLS] is not followed by valid JSON "
                         "(Expecting property name enclosed in double quotes): {bad"),
    ("[TOOL_CALLS]list_files[ARGS]{bad", "[TOOL_CALLS]list_files[ARGS] is not followed by valid JSON "
                                         "(Expecting property name enclosed in double quotes): {bad"),
    ("[TOOL_CALLS]list_files[ARGS][1, 2]",
     "[TOOL_CALLS]list_files[ARGS]: the arguments must be one JSON object: [1, 2]"),
    ('[TOOL_CALLS]["list_files"]', '[TOOL_CALLS] needs {"name": ..., "arguments": {...}}, got: list_files'),
    ('[TOOL_CALLS][{"name": 5, "arguments": {}}]',
     'a tool call has no valid tool name (got 5): [{"name": 5, "arguments": {}}]'),
])
def test_a_bad_call_answers_what_is_wrong_with_its_text(text, error):
    reply = parse(text, TOOLS)
    assert reply.calls == [] and reply.errors == [error]
    assert reply.display == text.partition("[TOOL_CALLS]")[0]


def test_a_name_without_args_at_the_end_of_the_reply_is_prose():
    reply = parse("Done. [TOOL_CALLS]list_files", TOOLS)
    assert (reply.calls, reply.errors, reply.display) == ([], [], "Done. [TOOL_CALLS]list_files")


@pytest.mark.parametrize("mention", ["[TOOL_CALLS] is the token", "[TOOL_CALLS]list_files and more",
                                     "[TOOL_CALLS]XML-like token"])
def test_prose_mentioning_the_token_is_shown_as_it_streams(mention):
    first = f"Mistral's {mention} that starts calls.\n"
    rest = "Nothing here is a call.\n"
    flt = StreamFilter(TOOLS, think_open=False)
    shown = "".join(t for piece in first + rest for kind, t in flt.feed(piece) if kind == "text")
    assert shown.startswith(first)  # out before the reply ends
    shown += "".join(t for kind, t in flt.finish() if kind == "text")
    assert shown == first + rest and flt.result().calls == []
