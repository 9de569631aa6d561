"""Calls written at the end of the reasoning (intents/in_reasoning.py), in every dialect the parser reads:
rendered as each family's template writes them, inside a think block or the server's reasoning field."""

from __future__ import annotations

import pytest
from support.dialect_renderers import RENDERERS, WHOLE_REPLY

from ayder_cli.intents import parse
from ayder_cli.intents.in_reasoning import calls_ending_reasoning

CALLS = [("read_file", {"file_path": "a.py"}), ("list_files", {"directory": "src"})]
FENCED = {"tool_fence", "json_fence", "tool_code"}  # a fence in the reasoning is an example
DIALECTS = sorted(set(RENDERERS) - FENCED - WHOLE_REPLY)  # a whole-reply list after prose is an example too
THOUGHT = "The user wants a.py and the src listing. I will call the tools.\n"


def ending(text: str, server_thinking: str = "", cut: bool = False):
    parsed = parse(text, hit_max_tokens=cut)
    found = calls_ending_reasoning(text, parsed, server_thinking, None, hit_max_tokens=cut)
    return None if found is None else ([(call.name, call.arguments) for call in found.calls], found.errors)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_calls_ending_a_think_block_are_found(dialect):
    calls = RENDERERS[dialect][0](CALLS)
    assert ending(f"<think>\n{THOUGHT}{calls}\n</think>\n\n") == (CALLS, [])
    assert ending("", server_thinking=f"{THOUGHT}{calls}\n") == (CALLS, [])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_calls_followed_by_more_reasoning_or_an_answer_are_not(dialect):
    calls = RENDERERS[dialect][0](CALLS)
    assert ending(f"<think>\n{THOUGHT}{calls}\nNo: I know both already.\n</think>\n\n") is None
    assert ending(f"<think>\n{THOUGHT}{calls}\n</think>\n\nBoth are empty.") is None
    assert ending("Both are empty.", server_thinking=f"{THOUGHT}{calls}\n") is None


@pytest.mark.parametrize("dialect", sorted(FENCED))
def test_fenced_calls_in_the_reasoning_are_examples(dialect):
    calls = RENDERERS[dialect][0](CALLS)
    assert ending("", server_thinking=f"{THOUGHT}{calls}\n") is None
    assert ending("", server_thinking=f"{THOUGHT}```\n{RENDERERS['hermes'][0](CALLS)}\n```\n") is None


def test_in_an_unclosed_block_the_first_call_ends_the_thinking():
    calls = RENDERERS["qwen3_xml"][0](CALLS[:1])
    assert ending(f"<think>\n{THOUGHT}{calls}\nthen I answer") == (CALLS[:1], [])


def test_a_call_cut_at_max_tokens_in_the_reasoning_is_reported_not_run():
    found = ending(f"<think>\n{THOUGHT}<tool_call>\n<function=read_file>\n<parameter=file_path>\na.", cut=True)
    assert found is not None and found[0] == [] and len(found[1]) == 1


def test_an_empty_think_block_in_the_text_leaves_the_server_reasoning():
    call = RENDERERS["qwen3_xml"][0](CALLS[:1])
    assert ending("<think>\n\n</think>\n\n", server_thinking=f"{THOUGHT}{call}") == (CALLS[:1], [])


def test_a_reply_with_an_answer_or_a_call_is_left_alone():
    call = RENDERERS["hermes"][0](CALLS[:1])
    assert ending(f"<think>{THOUGHT}{call}</think>{call}") is None  # the real call runs, not the draft
    assert ending("", server_thinking="Just thinking, no call.") is None


def test_a_reasoning_full_of_drafted_calls_is_read_for_none():
    call = RENDERERS["hermes"][0](CALLS[:1])
    assert ending("", server_thinking=f"{THOUGHT}{call}\n" * 3) == (CALLS[:1], [])  # the last one ends it
    assert ending("", server_thinking=f"{THOUGHT}{call}\n" * 40) is None  # more than 32: drafts
