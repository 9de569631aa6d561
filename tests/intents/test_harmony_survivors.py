"""gpt-oss Harmony's mutation survivors, each killed by a test: the header forms the module's own
docstring documents (the recipient in the role header, `<|constrain|>json` with or without a space),
a `final` message whose prose merely mentions a call, and prose mentioning the tags shown as it
streams, not held back until the reply ends.

A survivor is a change to the code that no test noticed (`benchmarks/mutation.py dialects`).
"""

from __future__ import annotations

import pytest
from support.intents_corpus import TOOLS

from ayder_cli.intents import StreamFilter, parse

READ_A = '{"file_path": "a.py"}'


def streamed(text: str, pieces: list[str]) -> tuple[str, list, list]:
    """(shown, calls, errors) when the reply arrives in these pieces."""
    flt = StreamFilter(TOOLS, think_open=False)
    shown = "".join(t for piece in pieces for kind, t in flt.feed(piece) if kind == "text")
    shown += "".join(t for kind, t in flt.finish() if kind == "text")
    result = flt.result()
    return shown, [(c.name, c.arguments) for c in result.calls], result.errors


def calls_whole_and_streamed(text: str) -> list[tuple[str, dict]]:
    reply = parse(text, TOOLS)
    calls = [(c.name, c.arguments) for c in reply.calls]
    assert reply.errors == []
    for pieces in ([text], list(text)):
        assert streamed(text, pieces) == (reply.display, calls, [])
    return calls


@pytest.mark.parametrize("text", [
    # the recipient in the role header, before the channel (as the module's docstring shows)
    f"<|start|>assistant to=functions.read_file<|channel|>commentary <|constrain|>json<|message|>{READ_A}<|call|>",
    f"<|start|>assistant to=functions.read_file<|channel|>commentary<|message|>{READ_A}<|call|>",
    # <|constrain|> right after the recipient, no space between
    f"<|channel|>commentary to=functions.read_file<|constrain|>json<|message|>{READ_A}<|call|>",
    f"<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{READ_A}<|call|>",
    # after an analysis message, in the same reply
    "<|channel|>analysis<|message|>Read it first.<|end|>"
    f"<|start|>assistant to=functions.read_file<|channel|>commentary<|constrain|>json<|message|>{READ_A}<|call|>",
])
def test_every_documented_header_form_is_one_call_with_the_tools_own_name(text):
    assert calls_whole_and_streamed(text) == [("read_file", {"file_path": "a.py"})]
    assert parse(text, TOOLS).display == ""


def test_a_final_message_that_mentions_a_call_is_prose_not_a_call():
    prose = 'To list files, write to=functions.run_shell_command <|message|>{"command": "ls"} and wait.'
    text = f"<|channel|>final<|message|>{prose}<|return|>"
    assert calls_whole_and_streamed(text) == []
    assert parse(text, TOOLS).display == prose


def test_a_final_message_on_several_lines_mentioning_a_recipient_is_prose():
    prose = "The header names it:\nto=functions.read_file\nthen <|message|>{} follows."
    text = f"<|channel|>final<|message|>{prose}<|return|>"
    assert calls_whole_and_streamed(text) == []
    assert parse(text, TOOLS).display == prose


def test_a_call_whose_arguments_are_not_json_is_an_error_naming_the_tool():
    reply = parse('<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"file_path": a.py}'
                  "<|call|>", TOOLS)
    assert reply.calls == []
    assert len(reply.errors) == 1 and reply.errors[0].startswith("read_file: the arguments are not valid JSON")


@pytest.mark.parametrize("tag", ["<|channel|>", "<|message|>"])
def test_prose_mentioning_the_tags_is_shown_as_it_streams(tag):
    first = f"Harmony headers start with {tag} and end at the message tag.\n"
    rest = "Nothing here is a call.\nA third line.\n"
    flt = StreamFilter(TOOLS, think_open=False)
    shown = "".join(t for piece in first + rest for kind, t in flt.feed(piece) if kind == "text")
    assert shown.startswith(first)  # the first line is out before the reply ends
    shown += "".join(t for kind, t in flt.finish() if kind == "text")
    assert shown == first + rest and flt.result().calls == []


def test_a_bad_call_is_reported_with_its_own_text():
    bad = parse('<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"file_path": a.py}'
                "<|call|>", TOOLS)
    assert '{"file_path": a.py}' in bad.errors[0]
    empty = parse("<|channel|>commentary to=functions.read_file <|constrain|>json<|message|><|call|>", TOOLS)
    assert empty.calls == [] and len(empty.errors) == 1
    assert empty.errors[0].startswith("read_file: the call has no arguments (it may be cut off): <|channel|>commentary")
    nameless = parse('<|channel|>commentary to=functions. <|message|>{"file_path": "b.py"}<|call|>', TOOLS)
    assert nameless.calls == [] and len(nameless.errors) == 1
    assert "no valid tool name" in nameless.errors[0] and '{"file_path": "b.py"}' in nameless.errors[0]


def test_a_call_cut_off_by_the_end_of_the_reply_after_whole_json_is_a_call():
    text = '<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"file_path": "a.py"}'
    assert calls_whole_and_streamed(text) == [("read_file", {"file_path": "a.py"})]


def test_a_header_is_its_first_line_only_even_when_more_lines_follow():
    text = '<|channel|>commentary to=functions.read_file\n<|message|>{"file_path": "a.py"}<|call|>\nmore\nlines\n'
    assert calls_whole_and_streamed(text) == []
    assert parse(text, TOOLS).display.startswith("<|channel|>commentary to=functions.read_file\n<|message|>")


@pytest.mark.parametrize("after", ["", "\nmore"])  # a newline farther still does not stretch the header
def test_a_message_tag_farther_than_a_tag_can_be_is_not_a_header(after):
    text = ("<|channel|>commentary to=functions.read_file " + "x" * 200 + '<|message|>{"file_path": "a.py"}<|call|>'
            + after)
    assert calls_whole_and_streamed(text) == []
    assert parse(text, TOOLS).display.startswith("<|channel|>commentary to=functions.read_file xxx")


# A header with prose before it on its line is a mention (issue 28): shown as written, at once.
@pytest.mark.parametrize("text, display", [("<|channel|>final<|message|>", ""),
                                           ("Answer: <|channel|>final<|message|>",
                                            "Answer: <|channel|>final<|message|>")])
def test_a_header_that_ends_the_reply_is_removed(text, display):
    assert parse(text, TOOLS).display == display
    assert streamed(text, list(text))[0] == display


def test_text_after_the_arguments_without_an_end_tag_ends_the_call_and_is_shown():
    text = '<|channel|>commentary to=functions.read_file<|message|>{"file_path": "a.py"} Now I read it.'
    assert calls_whole_and_streamed(text) == [("read_file", {"file_path": "a.py"})]
    assert parse(text, TOOLS).display == "Now I read it."
