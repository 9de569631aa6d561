"""Gemma 4, Kimi K3 and DeepSeek V4.1 replies (issue 28): the corpus, and the families' thinking markers.

The call formats' render-then-parse and stream-equals-whole properties run with
every other dialect's in test_dialect_*.py (renderers gemma4, kimi_k3,
dsml_v41, dsml_doubled_bars); here are their realistic replies, and the
properties of Gemma 4's `<|channel>thought…<channel|>` and Kimi K3's
`<|open|>think<|sep|>…<|close|>think<|sep|>`: shown apart as thinking, never
as the answer, the lone closer when the template opened the block, and
reasoning cut at max_tokens staying reasoning.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.dialect_renderers import render_gemma4, render_kimi_k3
from support.intents_corpus import TOOLS
from support.intents_corpus_families_2026 import CASES
from test_intents_corpus import cut
from test_intents_corpus import stream as stream_view
from test_intents_corpus import test_corpus_reply as check_reply

from ayder_cli.intents import StreamFilter, parse


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_reply(c):
    check_reply(c)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_reply_streams_to_the_same_view(c):
    reply = parse(c.text, c.tools)
    expected = (reply.display, "".join(reply.thinking))
    rng = random.Random(c.id)
    for pieces in ([c.text], list(c.text), cut(c.text, range(0, len(c.text), 5)),
                   cut(c.text, [rng.randrange(len(c.text) + 1) for _ in range(12)])):
        assert stream_view(c.text, pieces, c.tools) == expected, pieces


def test_the_case_ids_are_not_used_by_the_other_corpora():
    from test_intents_corpus import ALL_CASES

    assert not {c.id for c in CASES} & {c.id for c in ALL_CASES}


# ---------------------------------------------------------------------------- thinking markers

MARKERS = {"gemma4": ("<|channel>thought\n", "<channel|>"), "kimi_k3": ("<|open|>think<|sep|>", "<|close|>think<|sep|>")}
CALLS = {"gemma4": render_gemma4, "kimi_k3": render_kimi_k3}
READ = [("read_file", {"file_path": "a.py", "limit": 3})]
QUICK = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])

words = st.text(st.sampled_from("abcdefghij klmnop.,:;!?()-\n'\"<>/{}[]"), min_size=1, max_size=40).filter(
    lambda s: s.strip() and "<|" not in s and "|>" not in s and "think" not in s)


def split(text, points):
    points = sorted({p for p in points if 0 < p < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


def streamed(pieces, tools=None, hit_max_tokens=False):
    flt = StreamFilter(tools, hit_max_tokens=hit_max_tokens)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + flt.finish()
    reply = flt.result()
    return ("".join(t for k, t in out if k == "text"), "".join(t for k, t in out if k == "thinking"),
            [(c.name, c.arguments) for c in reply.calls], reply.errors)


def whole(text, tools=None, hit_max_tokens=False):
    reply = parse(text, tools, hit_max_tokens=hit_max_tokens)
    return reply.display, "".join(reply.thinking), [(c.name, c.arguments) for c in reply.calls], reply.errors


@pytest.mark.parametrize("family", MARKERS)
@QUICK
@given(thought=words, answer=words, with_call=st.booleans(), prefilled=st.booleans(), data=st.data())
def test_thinking_is_shown_apart_never_as_the_answer(family, thought, answer, with_call, prefilled, data):
    opener, closer = MARKERS[family]
    call = CALLS[family](READ) if with_call else ""
    text = ("" if prefilled else opener) + thought + closer + answer.strip() + "\n" + call
    display, thinking, calls, errors = whole(text, TOOLS)
    assert errors == []
    assert thinking == thought  # the lone closer: the template opened the block in the prompt
    assert display.strip() == answer.strip()
    assert calls == (READ if with_call else [])
    assert opener.strip() not in display and closer not in display
    points = data.draw(st.lists(st.integers(0, len(text)), max_size=10), label="split at")
    assert streamed(split(text, points), TOOLS) == (display, thinking, calls, errors)


@pytest.mark.parametrize("family", MARKERS)
@QUICK
@given(thought=words, data=st.data())
def test_reasoning_cut_at_max_tokens_stays_reasoning(family, thought, data):
    opener, closer = MARKERS[family]
    text = opener + thought + closer + CALLS[family](READ)
    end = data.draw(st.integers(len(opener), len(opener) + len(thought)), label="cut at")
    display, thinking, calls, errors = whole(text[:end], TOOLS, hit_max_tokens=True)
    assert (display, calls) == ("", [])
    assert thinking == thought[: end - len(opener)]
    assert streamed(list(text[:end]), TOOLS, hit_max_tokens=True) == (display, thinking, calls, errors)


@pytest.mark.parametrize("family", MARKERS)
def test_a_call_written_inside_the_thinking_is_not_run(family):
    opener, closer = MARKERS[family]
    text = opener + "maybe " + CALLS[family](READ) + " or not" + closer + "I will ask first."
    display, thinking, calls, errors = whole(text, TOOLS)
    assert (display, calls, errors) == ("I will ask first.", [], [])
    assert "a.py" in thinking
