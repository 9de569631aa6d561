"""The scanner's mutation survivors, each killed by a test of what the user sees: a reply that starts
thinking, the text after a lone closer shown in the same delta, a call the reply ends on, the markup
held while a call streams, ~~~ and ``` fences however their lines arrive, and inline code at a line's start.

A survivor is a change to the code that no test noticed (`benchmarks/mutation.py scanner`).
"""

from __future__ import annotations

import pytest
from support.intents_corpus import TOOLS

from ayder_cli.intents import StreamFilter, parse

CALL = '[CALL] read_file {"file_path": "a.py"}'
READ_A = [("read_file", {"file_path": "a.py"})]
HERMES = '<tool_call>{"name": "read_file", "arguments": {"file_path": "a.py"}}</tool_call>'


def streamed(pieces: list[str], think_open: bool | None = False) -> tuple[str, str, list, list]:
    """(shown, thinking, calls, errors) when the reply arrives in these pieces."""
    flt = StreamFilter(TOOLS, think_open=think_open)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + flt.finish()
    result = flt.result()
    return ("".join(t for kind, t in out if kind == "text"), "".join(t for kind, t in out if kind == "thinking"),
            [(c.name, c.arguments) for c in result.calls], result.errors)


def splits(text: str) -> list[list[str]]:
    """The reply whole, a character at a time, and in pieces of two and three."""
    return [[text], list(text), [text[i:i + 2] for i in range(0, len(text), 2)],
            [text[i:i + 3] for i in range(0, len(text), 3)]]


def read_however_split(text: str, think_open: bool | None = False) -> tuple[str, str, list, list]:
    """What parse() makes of the whole reply, checked to be what streaming shows and finds however it is split."""
    reply = parse(text, TOOLS, think_open=think_open)
    whole = (reply.display, "".join(reply.thinking), [(c.name, c.arguments) for c in reply.calls], reply.errors)
    for pieces in splits(text):
        assert streamed(pieces, think_open) == whole, pieces
    return whole


def shown_by_each_feed(pieces: list[str], think_open: bool | None = False) -> list[str]:
    """The text each feed() returns, before the reply ends."""
    flt = StreamFilter(TOOLS, think_open=think_open)
    return ["".join(t for kind, t in flt.feed(piece) if kind == "text") for piece in pieces]


# --- where the reply starts, and where it ends

def test_a_reply_that_starts_thinking_shows_only_what_follows_its_closer():
    shown, thinking, calls, errors = read_however_split("plan it</think>The answer is 4.", think_open=True)
    assert (shown, thinking, calls, errors) == ("The answer is 4.", "plan it", [], [])


def test_the_answer_after_a_lone_closer_shows_in_the_delta_that_brought_it():
    # think_open=None: the template may have opened the block; the closer says it did.
    assert shown_by_each_feed(["plan</think>The answer is 4.", " More."], think_open=None)[0] == "The answer is 4."


def test_a_call_line_the_reply_ends_on_runs_unless_the_server_cut_the_reply_there():
    assert streamed(["Reading it.\n", CALL]) == ("Reading it.", "", READ_A, [])
    cut = parse("Reading it.\n" + CALL, TOOLS, think_open=False, hit_max_tokens=True)
    assert cut.calls == [] and len(cut.errors) == 1 and "cut off" in cut.errors[0]


def test_a_brace_that_opens_no_json_call_is_text_and_the_call_right_after_it_runs():
    # The "{" at the reply's start is held as a JSON call until the next character says it is not one.
    assert read_however_split("{" + HERMES) == ("{", "", READ_A, [])


def test_held_is_the_call_markup_while_it_streams_and_empty_in_prose():
    flt = StreamFilter(TOOLS, think_open=False)
    flt.feed("Reading it. <")
    assert flt.held() == ""  # prose, its "<" not yet decided: the chat loop's repeat guard watches it
    flt.feed("-- done.\n")
    flt.feed('[CALL] read_file {"file_')
    assert flt.held() == '[CALL] read_file {"file_'  # what the arriving-call line names
    flt.feed('path": "a.py"}\nDone.')
    assert flt.held() == ""


# --- ~~~ fences

def test_tildes_arriving_in_pieces_open_the_fence_a_whole_reply_opens():
    text = f"~~~\n{CALL}\n~~~\nThat is the format."
    assert read_however_split(text) == (text, "", [], [])
    assert streamed(["~~", "~\n" + CALL, "\n~~~\nThat is the format."]) == (text, "", [], [])


def test_a_line_starting_with_a_home_path_opens_no_fence():
    text = f"~/.bashrc holds your aliases.\n{CALL}"
    assert read_however_split(text) == ("~/.bashrc holds your aliases.", "", READ_A, [])


@pytest.mark.parametrize("indent, fenced", [("   ", True), (" " * 8, False)])
def test_tildes_open_a_fence_after_a_short_indent_only(indent, fenced):
    text = f"{indent}~~~\n{CALL}\n~~~\nok"
    shown, _, calls, _ = read_however_split(text)
    assert (calls, shown) == (([], text) if fenced else (READ_A, f"{indent}~~~\n~~~\nok"))


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_a_fence_whose_closing_line_arrives_in_pieces_ends_there_and_the_call_after_it_runs(fence):
    text = f"{fence}\n{CALL}\n{fence}\nDone.\n{CALL}"
    assert read_however_split(text) == (f"{fence}\n{CALL}\n{fence}\nDone.", "", READ_A, [])


@pytest.mark.parametrize("inside", [
    "x = 1 ```",  # backticks ending a line of code
    "``` js",  # backticks with text after them: a closing line holds nothing else
    "``",  # fewer backticks than opened it
])
def test_a_line_inside_a_fence_that_is_no_closing_line_keeps_the_call_after_it_prose(inside):
    text = f"```\n{inside}\n{CALL}\n```\nok"
    assert read_however_split(text) == (text, "", [], [])


def test_an_empty_fence_ends_at_the_line_after_it_opened():
    text = f"```\n```\n{CALL}"
    assert read_however_split(text) == ("```\n```", "", READ_A, [])


def test_an_indented_closing_line_ends_the_fence():
    text = f"```\ncode\n  ```\n{CALL}"
    assert read_however_split(text) == ("```\ncode\n  ```", "", READ_A, [])


# --- inline code

def test_inline_code_at_a_line_start_holding_a_call_is_prose():
    text = f"`{HERMES}` is the Hermes format.\n{CALL}"
    assert read_however_split(text) == (f"`{HERMES}` is the Hermes format.", "", READ_A, [])


def test_inline_code_open_across_deltas_keeps_markup_in_it_prose():
    text = f"Write `x {HERMES}` to call a tool."
    assert streamed(["Write `x", f" {HERMES}` to call a tool."]) == (text, "", [], [])
