"""The streaming think-block filter: the live view never depends on how deltas were cut."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.intents import StreamFilter, parse


def run(pieces) -> tuple[str, str]:
    """(visible, thinking) after feeding `pieces` and finishing."""
    flt = StreamFilter(think_open=False)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + flt.finish()
    visible = "".join(text for kind, text in out if kind == "text")
    thought = "".join(text for kind, text in out if kind == "thinking")
    return visible, thought


def test_think_block_is_split_out():
    assert run(["Sure. <think>plan it</think>Here it is."]) == ("Sure. Here it is.", "plan it")


def test_tags_cut_across_deltas():
    assert run(["<th", "ink>a", "b</thi", "nk>", "c"]) == ("c", "ab")


def test_text_is_released_as_soon_as_it_cannot_be_a_tag():
    flt = StreamFilter(think_open=False)
    assert flt.feed("x <") == [("text", "x")]  # the space waits: markup removed after it would collapse it
    assert flt.feed("b") == []  # "<b" may still become a wrapper tag like <b:tool_call>
    assert "".join(text for _, text in flt.feed(">")) == " <b>"
    assert flt.feed("<think>hm") == [("thinking", "hm")]
    assert flt.feed(" more") == [("thinking", " more")]


def test_unclosed_think_at_the_end_is_thinking():
    assert run(["Answer soon.<think>still going"]) == ("Answer soon.", "still going")
    assert run(["<think>held </thi"]) == ("", "held </thi")


def test_partial_tag_at_the_end_is_plain_text():
    assert run(["a < b and x <thi"]) == ("a < b and x <thi", "")


def test_stray_closing_tag_is_dropped_while_streaming():
    # The opening tag was in the prompt template; the model only writes the end of it.
    # Streaming cannot know that before the tag arrives, so the text was already shown.
    assert run(["reasoning</think>The answer is 4."]) == ("reasoningThe answer is 4.", "")


def test_lone_closing_tag_makes_what_came_before_thinking_in_the_whole_reply():
    reply = parse("reasoning [CALL] read_file {}</think>The answer is 4.")
    assert reply.display == "The answer is 4."
    assert reply.thinking == ["reasoning [CALL] read_file {}"]
    assert reply.calls == []


def test_several_blocks_and_text_between():
    assert run(["<think>1</think>a<think>2</think>b"]) == ("ab", "12")


alphabet = st.sampled_from(["<think>", "</think>", "<", "</", "<th", "think>", ">", "t", "a", " ", "é", "\n"])
texts = st.lists(alphabet, max_size=25).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(texts, st.lists(st.integers(min_value=0, max_value=200), max_size=12))
@example("x<think>y</think>z", [1, 3, 5, 9, 12, 14])
def test_any_split_gives_the_unsplit_result(text, points):
    cuts = sorted({p for p in points if 0 < p < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert run(pieces) == run([text])
    assert run(list(text)) == run([text])


REMOVED = None  # where a think tag was taken out of the visible text


def reference(text: str) -> tuple[str, str]:
    """What the filter should show, read one character at a time with the whole text at hand."""
    visible, thought, thinking, at = [], [], False, 0
    while at < len(text):
        if not thinking and text.startswith("<think>", at):
            thinking, at = True, at + len("<think>")
            visible.append(REMOVED)
        elif text.startswith("</think>", at):
            thinking, at = False, at + len("</think>")
            visible.append(REMOVED)
        else:
            (thought if thinking else visible).append(text[at])
            at += 1
    return collapse_gaps(visible), "".join(thought)


def collapse_gaps(items: list) -> str:
    """Join the visible characters; a whitespace run with a removed tag in it keeps at most one empty
    line (within a line, one space), and vanishes at the start and the end of the reply."""
    out, run, seen_text = [], [], False
    for item in items + ["END"]:
        if item is REMOVED or (item != "END" and item.isspace()):
            run.append(item)
            continue
        space = "".join(c for c in run if c is not REMOVED)
        if REMOVED not in run:
            out.append(space)
        elif seen_text and item != "END":
            newlines = space.count("\n")
            out.append("\n" * min(newlines, 2) + space[space.rfind("\n") + 1:] if newlines else space[:1])
        run = []
        if item != "END":
            out.append(item)
            seen_text = True
    return "".join(out)


@settings(max_examples=examples(200), deadline=None)
@given(texts)
def test_whole_text_matches_a_plain_reading(text):
    assert run([text]) == reference(text)
