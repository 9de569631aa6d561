"""The intent parser against realistic model replies: calls found, errors reported, the user's view kept clean."""

from __future__ import annotations

import random

import pytest

from ayder_cli.intents import StreamFilter, parse
from support.intents_corpus import CASES, TOOLS, Case
from support.intents_corpus_dialects import CASES as DIALECT_CASES
from support.intents_corpus_more_families import CASES as MORE_FAMILY_CASES
from support.intents_corpus_variants import CASES as VARIANT_CASES

ALL_CASES = CASES + DIALECT_CASES + VARIANT_CASES + MORE_FAMILY_CASES
SMALL = [c for c in ALL_CASES if "huge" not in c.tags]


def stream(text: str, pieces: list[str], tools=None) -> tuple[str, str]:
    """(shown text, thinking) from feeding `pieces` to a StreamFilter and finishing."""
    flt = StreamFilter(tools=tools)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + list(flt.finish())
    for kind, _ in out:
        assert kind in ("text", "thinking")
    return ("".join(t for k, t in out if k == "text"), "".join(t for k, t in out if k == "thinking"))


def cut(text: str, points) -> list[str]:
    points = sorted({p for p in points if 0 < p < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


@pytest.mark.parametrize("c", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_corpus_reply(c: Case):
    reply = parse(c.text, c.tools)
    got = [(call.name, call.arguments) for call in reply.calls]
    assert got == c.calls, f"errors: {reply.errors}"
    if c.errors is not None:
        assert len(reply.errors) == c.errors, reply.errors
    for err in reply.errors:
        assert isinstance(err, str) and err.strip()
    joined_errors = "\n".join(reply.errors)
    for needle in c.error_mentions:
        assert needle in joined_errors
    for needle in c.shown:
        assert needle in reply.display
    for needle in c.hidden:
        assert needle not in reply.display
    if c.display is not None:
        assert reply.display == c.display
    thinking = "".join(reply.thinking)
    for needle in c.thought:
        assert needle in thinking
    ids = [call.id for call in reply.calls]
    assert all(isinstance(i, str) and i for i in ids)
    assert len(set(ids)) == len(ids)
    assert all(getattr(call, "error", None) is None for call in reply.calls)


@pytest.mark.parametrize("c", SMALL, ids=[c.id for c in SMALL])
def test_corpus_reply_streams_to_the_same_view(c: Case):
    reply = parse(c.text, c.tools)
    expected = (reply.display, "".join(reply.thinking))
    rng = random.Random(c.id)
    splits = [
        [c.text],
        list(c.text),
        cut(c.text, range(0, len(c.text), 7)),
        cut(c.text, [rng.randrange(len(c.text) + 1) for _ in range(12)]),
        cut(c.text, [rng.randrange(len(c.text) + 1) for _ in range(3)]),
    ]
    for pieces in splits:
        assert stream(c.text, pieces, c.tools) == expected, pieces


@pytest.mark.parametrize("c", [c for c in CASES if "huge" in c.tags], ids=[c.id for c in CASES if "huge" in c.tags])
def test_huge_reply_streams_in_chunks(c: Case):
    reply = parse(c.text, c.tools)
    assert stream(c.text, cut(c.text, range(0, len(c.text), 64)), c.tools) == (reply.display, "".join(reply.thinking))


def test_case_ids_are_unique_across_corpora():
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------- exact views


def test_empty_reply():
    reply = parse("")
    assert (reply.calls, reply.errors, reply.display, reply.thinking) == ([], [], "", [])
    assert stream("", []) == ("", "")


@pytest.mark.parametrize("text", [" ", "\n", "  \n\t\n  "])
def test_whitespace_only_reply(text):
    reply = parse(text, TOOLS)
    assert reply.calls == [] and reply.errors == []
    assert reply.display.strip() == ""
    assert reply.thinking == []


def test_plain_text_is_shown_unchanged():
    text = "Done.\n\nThe tests pass:\n  - 12 passed\n  - 0 failed\n\nAnything else?  "
    assert parse(text).display == text


def test_fenced_example_is_shown_verbatim():
    text = (
        "Call lines look like this:\n"
        "```\n"
        '[CALL] read_file {"file_path": "x"}\n'
        "```\n"
        "and XML like this:\n"
        "```xml\n"
        "<function=read_file>\n<parameter=file_path>\nx\n</parameter>\n</function>\n"
        "```\n"
    )
    reply = parse(text, TOOLS)
    assert reply.calls == [] and reply.errors == []
    assert reply.display == text


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning"])
def test_think_blocks_in_order_and_removed_from_view(tag):
    reply = parse(f"<{tag}>one</{tag}>a<{tag}>two</{tag}>b")
    assert reply.thinking == ["one", "two"]
    assert reply.display == "ab"


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning"])
def test_only_closing_think_tag_makes_everything_before_it_thinking(tag):
    reply = parse(f"weighing options</{tag}>Here is the answer.")
    assert reply.thinking == ["weighing options"]
    assert reply.display == "Here is the answer."


def test_unclosed_think_at_the_end_is_thinking():
    reply = parse("Answer first.<think>still going")
    assert reply.display == "Answer first."
    assert reply.thinking == ["still going"]


def test_text_around_a_call_is_kept_in_order():
    reply = parse('Before.\n[CALL] list_files {"directory": "."}\nAfter.')
    assert len(reply.calls) == 1
    before, after = reply.display.find("Before."), reply.display.find("After.")
    assert 0 <= before < after


def test_unknown_tool_error_names_the_nearest_tool():
    reply = parse('<tool_call>\n{"name": "writefile", "arguments": {"file_path": "a", "content": "b"}}\n</tool_call>',
                  TOOLS)
    assert reply.calls == []
    assert len(reply.errors) == 1
    assert "writefile" in reply.errors[0] and "write_file" in reply.errors[0]


def test_known_tools_are_accepted_in_every_format_with_schema():
    replies = [
        '[CALL] list_files {"directory": "a"}',
        '```tool\n{"name": "list_files", "args": {"directory": "a"}}\n```',
        "<tool_call>\n<function=list_files>\n<parameter=directory>\na\n</parameter>\n</function>\n</tool_call>",
        '<minimax:tool_call>\n<invoke name="list_files">\n<parameter name="directory">a</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        '<function_calls>\n<invoke name="list_files">\n<parameter name="directory" string="true">a</parameter>\n'
        "</invoke>\n</function_calls>",
        '<tool_call>\n{"name": "list_files", "arguments": {"directory": "a"}}\n</tool_call>',
        '[{"name": "list_files", "arguments": {"directory": "a"}}]',
        '[TOOL_CALLS][{"name": "list_files", "arguments": {"directory": "a"}}]',
    ]
    for text in replies:
        reply = parse(text, TOOLS)
        assert [(c.name, c.arguments) for c in reply.calls] == [("list_files", {"directory": "a"})], text
        assert reply.errors == [], text


def test_unknown_tool_is_reported_in_every_format_with_schema():
    replies = [
        '[CALL] list_dirs {"directory": "a"}',
        '```tool\n{"name": "list_dirs", "args": {"directory": "a"}}\n```',
        "<tool_call>\n<function=list_dirs>\n<parameter=directory>\na\n</parameter>\n</function>\n</tool_call>",
        '<minimax:tool_call>\n<invoke name="list_dirs">\n<parameter name="directory">a</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="list_dirs">\n'
        '<｜DSML｜parameter name="directory" string="true">a</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        "</｜DSML｜function_calls>",
        '<tool_call>\n{"name": "list_dirs", "arguments": {"directory": "a"}}\n</tool_call>',
        '[{"name": "list_dirs", "arguments": {"directory": "a"}}]',
    ]
    for text in replies:
        reply = parse(text, TOOLS)
        assert reply.calls == [], text
        assert len(reply.errors) == 1, (text, reply.errors)
        assert "list_files" in reply.errors[0], (text, reply.errors)


def test_many_calls_get_distinct_ids():
    text = "\n".join(f'[CALL] read_file {{"file_path": "f{i}.py"}}' for i in range(50))
    reply = parse(text)
    assert [c.arguments["file_path"] for c in reply.calls] == [f"f{i}.py" for i in range(50)]
    assert len({c.id for c in reply.calls}) == 50


def test_two_json_objects_in_one_tool_call_block_are_not_silently_dropped():
    reply = parse(
        "<tool_call>\n"
        '{"name": "read_file", "arguments": {"file_path": "a.py"}}\n'
        '{"name": "read_file", "arguments": {"file_path": "b.py"}}\n'
        "</tool_call>"
    )
    got = [(c.name, c.arguments) for c in reply.calls]
    assert got[:1] == [("read_file", {"file_path": "a.py"})]
    # the second object is either run or reported, never lost without a word
    assert got[1:] == [("read_file", {"file_path": "b.py"})] or reply.errors


def test_doubled_opening_tag_does_not_lose_or_invent_calls():
    reply = parse('<tool_call>\n<tool_call>\n{"name": "list_files", "arguments": {"directory": "."}}\n</tool_call>')
    assert [(c.name, c.arguments) for c in reply.calls] in ([], [("list_files", {"directory": "."})])
    assert len(reply.calls) + len(reply.errors) >= 1


def test_interleaved_unbalanced_xml_does_not_raise():
    text = (
        "<function=read_file>\n<parameter=file_path>\na.py\n<function=list_files>\n</parameter>\n"
        "<parameter=directory>\n</function>\n</tool_call>\n</parameter>\n<tool_call>\n"
    )
    reply = parse(text, TOOLS)
    assert all(c.name in ("read_file", "list_files") for c in reply.calls)


# ---------------------------------------------------------------------------- exact views: display rules

LIST_CALL = '<tool_call>\n{"name": "list_files", "arguments": {"directory": "."}}\n</tool_call>'


def same_when_streamed(text: str, tools=None) -> None:
    reply = parse(text, tools)
    expected = (reply.display, "".join(reply.thinking))
    assert stream(text, [text], tools) == expected
    assert stream(text, list(text), tools) == expected


@pytest.mark.parametrize(
    ("text", "display"),
    [
        ("Intro.\n\n" + LIST_CALL + "\n\n\nNext.", "Intro.\n\nNext."),
        ("Intro.\n\n" + LIST_CALL + "\n\n" + LIST_CALL + "\n\nNext.", "Intro.\n\nNext."),
        (LIST_CALL + "\n\nHere is the plan.", "Here is the plan."),
        ("\n\n" + LIST_CALL + "\n\n\nHere is the plan.", "Here is the plan."),
        ("Reading it.\n\n" + LIST_CALL + "\n\n", "Reading it."),
        ("Reading it.\n" + LIST_CALL, "Reading it."),
        ("Done.\n</tool_call>", "Done."),
        ("Done.\n</function>\n", "Done."),
        ("Done.\n</function_calls>", "Done."),
        ("Done.\n</invoke>", "Done."),
        ("All set.<|im_end|>", "All set."),
        ("All set.<|eot_id|>", "All set."),
        ("All set.<｜end▁of▁sentence｜>", "All set."),
        ("Para one.\n\n<think>\nhmm\n</think>\n\n\nPara two.", "Para one.\n\nPara two."),
        ("<thinking>plan</thinking>\n\nAnswer.", "Answer."),
        ("<reasoning>plan</reasoning>Answer.", "Answer."),
    ],
)
def test_display_exact_view_where_markup_was_removed(text, display):
    reply = parse(text, TOOLS)
    assert reply.display == display
    same_when_streamed(text, TOOLS)


def test_display_neither_starts_nor_ends_with_a_blank_line_around_removed_markup():
    for text in (
        LIST_CALL + "\n\nAfter.",
        "Before.\n\n" + LIST_CALL + "\n\n\n",
        "<think>x</think>\n\n\nAfter.",
        '<|python_tag|>{"name": "list_files", "parameters": {"directory": "."}}<|eom_id|>\n\nAfter.',
    ):
        display = parse(text, TOOLS).display
        assert display == display.strip("\n"), (text, display)
        assert "\n\n\n" not in display


def test_harmony_final_channel_is_the_whole_view():
    text = (
        "<|channel|>analysis<|message|>Simple lookup.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>It is 42.<|return|>"
    )
    reply = parse(text, TOOLS)
    assert reply.display == "It is 42."
    assert reply.thinking == ["Simple lookup."]
    assert reply.calls == [] and reply.errors == []
    same_when_streamed(text, TOOLS)


def test_harmony_header_ends_with_its_line_whole_or_streamed():
    # A header is one line: <|message|> on the next one does not make it a call, however the reply arrives
    # (streamed, the header used to be given up at the newline while parse() read on to <|message|>).
    text = '<|channel|>commentary to=functions.read_file \n<|message|>{"file_path": "a.py"}<|call|>'
    reply = parse(text, TOOLS)
    assert reply.calls == [] and reply.errors == []
    assert reply.display.startswith("<|channel|>commentary to=functions.read_file \n")
    for pieces in ([text], list(text)):
        flt = StreamFilter(TOOLS)
        shown = "".join(t for piece in pieces for k, t in flt.feed(piece) if k == "text")
        shown += "".join(t for k, t in flt.finish() if k == "text")
        assert (shown, flt.result().calls, flt.result().errors) == (reply.display, [], [])


def test_reasoning_tags_in_order_and_removed_from_view():
    reply = parse("<thinking>one</thinking>a<reasoning>two</reasoning>b")
    assert reply.thinking == ["one", "two"]
    assert reply.display == "ab"


def test_mistral_prose_before_calls_is_kept_exactly():
    reply = parse('Sure.[TOOL_CALLS]list_files[ARGS]{"directory": "a"}', TOOLS)
    assert [(c.name, c.arguments) for c in reply.calls] == [("list_files", {"directory": "a"})]
    assert reply.display == "Sure."


def test_fenced_dialect_examples_are_shown_verbatim():
    text = (
        "GLM:\n```xml\n<tool_call>list_files\n<arg_key>directory</arg_key>\n"
        "<arg_value>a</arg_value>\n</tool_call>\n```\n"
        "Kimi:\n```\n<|tool_calls_section_begin|><|tool_call_begin|>functions.list_files:0"
        '<|tool_call_argument_begin|>{"directory": "a"}<|tool_call_end|><|tool_calls_section_end|>\n```\n'
        'Mistral:\n```\n[TOOL_CALLS]list_files[ARGS]{"directory": "a"}\n```\n'
        "Pythonic:\n```python\nlist_files(directory=\"a\")\n```\n"
    )
    reply = parse(text, TOOLS)
    assert reply.calls == [] and reply.errors == []
    assert reply.display == text


# ---------------------------------------------------------------------------- scale


def test_twenty_thousand_unclosed_function_lines_return():
    text = "".join("<function=read_file>\n" if i % 2 else "<function=\n" for i in range(20000))
    reply = parse(text)
    assert reply.calls == []
    assert reply.errors == ["a tool call was cut off in the middle of a tag: <function=read_file>"]
    # every line is shown but the cut-off call at the end
    assert text.startswith(reply.display) and text[len(reply.display):].strip() == "<function=read_file>"


def test_twenty_thousand_broken_call_lines_return():
    text = "\n".join('[CALL] read_file {"file_path": ' for _ in range(20000))
    reply = parse(text)
    assert reply.calls == []
    assert reply.errors


def test_crlf_line_ends_are_stripped_from_xml_values_like_newlines():
    reply = parse("<function=list_files>\r\n<parameter=directory>\r\nsrc\r\n</parameter>\r\n</function>")
    assert [(c.name, c.arguments) for c in reply.calls] == [("list_files", {"directory": "src"})]
