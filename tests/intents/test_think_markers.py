"""Reasoning in the markers of Mistral v13+ ([THINK]…[/THINK]: Magistral, Ministral 3, Devstral 2) and
MiniMax M3 (<mm:think>…</mm:think>): shown apart, never as the answer, whole or streamed.

The replies are shaped as the families' templates render an assistant turn: Mistral's
`[THINK]reasoning[/THINK]answer` (the control tokens as llama.cpp's Magistral test writes them), the
tool call after the reasoning as `[TOOL_CALLS]NAME[ARGS]{…}`; MiniMax M3's think block before its
namespaced call."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.intents import StreamFilter, parse

READ = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}}}}}]
MARKERS = {"mistral": ("[THINK]", "[/THINK]"), "minimax-m3": ("<mm:think>", "</mm:think>")}
CALLS = {  # each family's own call, read after its reasoning
    "mistral": '[TOOL_CALLS]read_file[ARGS]{"file_path": "a.py", "limit": 5}',
    "minimax-m3": (']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="read_file">\n'
                   "]<]minimax[>[<file_path>a.py]<]minimax[>[</file_path>\n]<]minimax[>[<limit>5]<]minimax[>[</limit>\n"
                   "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
}
FAMILIES = pytest.mark.parametrize("family", sorted(MARKERS))


def stream(pieces: list[str]) -> tuple[str, str]:
    """(shown, thinking) as the live view gets them."""
    flt = StreamFilter(READ, think_open=False)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + flt.finish()
    return ("".join(text for kind, text in out if kind == "text"),
            "".join(text for kind, text in out if kind == "thinking"))


@FAMILIES
def test_the_reasoning_is_thinking_and_the_answer_alone_is_shown(family):
    opener, closer = MARKERS[family]
    reply = parse(f"{opener}The user asks 2+2. That is 4.{closer}The answer is 4.", READ)
    assert reply.display == "The answer is 4."
    assert reply.thinking == ["The user asks 2+2. That is 4."]
    assert stream([opener, "The user asks", f" 2+2. That is 4.{closer[:3]}", f"{closer[3:]}The answer is 4."]) == (
        "The answer is 4.", "The user asks 2+2. That is 4.")


@FAMILIES
def test_a_lone_closer_makes_the_start_of_the_reply_reasoning(family):
    """The template wrote the opener into the prompt: the reply starts inside the block."""
    _, closer = MARKERS[family]
    reply = parse(f"I should say 4.{closer}\n\nThe answer is 4.", READ)
    assert (reply.display, reply.thinking) == ("The answer is 4.", ["I should say 4."])


@FAMILIES
def test_reasoning_cut_at_max_tokens_stays_reasoning(family):
    opener, _ = MARKERS[family]
    reply = parse(f"{opener}First I add 2 and 2, which gives", READ, hit_max_tokens=True)
    assert reply.display == "" and reply.thinking == ["First I add 2 and 2, which gives"]
    assert stream([f"{opener}First I add", " 2 and 2, which gives"]) == ("", "First I add 2 and 2, which gives")


@FAMILIES
def test_the_call_after_the_reasoning_runs_typed_by_the_schema(family):
    opener, closer = MARKERS[family]
    reply = parse(f"{opener}I need to see a.py first.{closer}{CALLS[family]}", READ)
    assert [(call.name, call.arguments) for call in reply.calls] == [("read_file", {"file_path": "a.py", "limit": 5})]
    assert reply.display == "" and reply.thinking == ["I need to see a.py first."]


@FAMILIES
def test_a_call_written_inside_the_reasoning_then_an_answer_is_not_run(family):
    opener, closer = MARKERS[family]
    reply = parse(f"{opener}Maybe {CALLS[family]} but I know it already.{closer}It holds 5 lines.", READ)
    assert reply.calls == [] and reply.errors == []
    assert reply.display == "It holds 5 lines."
    assert opener not in reply.display and closer not in reply.display


pieces = st.sampled_from(["[THINK]", "[/THINK]", "<mm:think>", "</mm:think>", "[", "[/", "THINK]", "<mm:",
                          "think>", "a", " ", "\n", "é", "]", "<"])


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(pieces, max_size=20).map("".join), st.lists(st.integers(0, 200), max_size=10))
def test_the_view_is_the_same_however_the_reply_was_split(text, points):
    cuts = sorted({point for point in points if 0 < point < len(text)})
    split = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert stream(split) == stream([text]) == stream(list(text))
