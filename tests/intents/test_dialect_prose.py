"""Properties every dialect must have (see test_dialect_properties.py): prose around calls streams as parsed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.dialect_renderers import END_TOKEN, LAST_IN_REPLY, MARKUP, RENDERERS, WHOLE_REPLY
from test_dialect_properties import DIALECTS, SHORT, call_lists, calls_of, prose, split, stream, thoughts

from ayder_cli.intents import StreamFilter, parse


# ---------------------------------------------------------------------------- (b) prose around calls, streamed


def surround(dialect: str, think: str, before: str, rendered: str, after: str) -> str:
    if dialect in WHOLE_REPLY:  # only thinking and whitespace may stand around them
        return f"{think}{rendered}\n"
    if dialect in LAST_IN_REPLY:  # prose before them only
        return f"{think}{before}\n{rendered}\n"
    return f"{think}{before}\n{rendered}{END_TOKEN.get(dialect, '')}\n{after}"


@pytest.mark.parametrize("dialect", DIALECTS)
@SHORT
@given(data=st.data())
def test_prose_around_calls_streams_exactly_as_parsed(dialect, data):
    render, kind = RENDERERS[dialect]
    calls = data.draw(call_lists(kind, max_size=2), label="calls")
    think, before, after = data.draw(thoughts, label="think"), data.draw(prose, label="before"), data.draw(
        prose, label="after")
    text = surround(dialect, think, before, render(calls), after)
    points = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="split at")

    reply = parse(text)
    assert reply.errors == []
    assert calls_of(reply) == calls
    if dialect in WHOLE_REPLY:
        assert reply.display == ""
    else:
        assert before.strip() in reply.display
        assert dialect in LAST_IN_REPLY or after.strip() in reply.display
    leaked = [m for m in MARKUP[dialect] if m in reply.display]
    assert not leaked, (leaked, reply.display)
    if think:
        assert "".join(reply.thinking).strip() == think.removeprefix("<think>").removesuffix("</think>\n").strip()

    expected = (reply.display, "".join(reply.thinking), calls_of(reply), reply.errors)
    assert stream(split(text, points)) == expected

    if dialect not in WHOLE_REPLY:  # the live view shows the prose before the markup has even begun
        flt = StreamFilter(think_open=False)
        shown = "".join(t for k, t in flt.feed(text[: len(think) + len(before) + 1]) if k == "text")
        assert shown.strip() == before.strip()
        rest = flt.feed(text[len(think) + len(before) + 1 :]) + flt.finish()
        live = shown + "".join(t for k, t in rest if k == "text")
        assert live == parse(text, think_open=False).display
