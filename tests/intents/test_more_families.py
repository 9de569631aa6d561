"""What the families added in issue 28 promise beyond the shared dialect properties: a harmony `final` message is
the answer whatever it holds, harmony markup mentioned in prose streams at once, and Seed-OSS thinking cut at
max_tokens stays thinking."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.dialect_renderers import RENDERERS, render_harmony, render_json_array
from test_dialect_properties import QUOTED_MARKUP, SHORT, call_lists, prose, split, stream, tools_for

from ayder_cli.intents import StreamFilter, parse
from ayder_cli.intents.dialects.markers import LEAKED_TOKENS, ORPHAN_CLOSERS

FINAL = "<|start|>assistant<|channel|>final<|message|>"


@SHORT
@given(data=st.data())
def test_a_harmony_final_message_is_the_answer_whatever_call_it_holds(data):
    """JSON calls, or harmony's own call headers on lines of their own, written inside a final message are shown
    as written and never run, streamed as parsed."""
    render = data.draw(st.sampled_from([render_json_array, render_harmony,
                                        lambda calls: "\n" + render_harmony(calls).replace("<|start|>assistant", "")]))
    calls = data.draw(call_lists(RENDERERS["harmony"][1], max_size=2), label="calls")
    body = render(calls)
    text = f"{FINAL}{body}"
    tools = tools_for(calls)
    reply = parse(text, tools)
    assert reply.calls == []  # never run
    # Shown as written, with nothing to correct, unless a value holds other markup: a leaked token or a closer
    # left alone is hidden from any answer (markers.py, dsml.py), and an empty <tool_call></tool_call> is reported.
    if not any(token in body for token in (*QUOTED_MARKUP, *LEAKED_TOKENS, *ORPHAN_CLOSERS)):
        assert reply.errors == []
        assert all(json.dumps(arguments, ensure_ascii=False) in reply.display for _, arguments in calls)
    points = data.draw(st.lists(st.integers(0, len(text)), max_size=10), label="split at")
    assert stream(split(text, points), tools) == (reply.display, "", [], reply.errors)  # streamed as parsed


@pytest.mark.parametrize("text", [
    'In harmony a call reads <|channel|>commentary to=functions.read_file <|message|>{"file_path": "a.py"',
    f'{FINAL}Write to=functions.read_file <|message|>{{"file_path": "a.py" and the runtime calls it',
    f'{FINAL}A call:\n<|channel|>commentary to=functions.read_file <|message|>{{"file_path": "a.py',
])
def test_harmony_markup_mentioned_in_prose_is_shown_before_the_reply_ends(text):
    flt = StreamFilter(think_open=False)
    shown = "".join(piece for kind, piece in flt.feed(text) if kind == "text")
    assert shown.rstrip() == parse(text, think_open=False).display.rstrip()  # nothing held for the end
    assert "to=functions.read_file" in shown


@settings(max_examples=examples(30), deadline=None)
@given(prose)
def test_seed_thinking_cut_at_max_tokens_stays_thinking(thought):
    reply = parse(f"<seed:think>{thought}", hit_max_tokens=True)
    assert reply.display == "" and "".join(reply.thinking) == thought and reply.calls == []
    reply = parse(f"{thought}</seed:think>The answer.")
    assert reply.display == "The answer." and "".join(reply.thinking) == thought
