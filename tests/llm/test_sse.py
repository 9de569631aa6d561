"""Incremental SSE and NDJSON decoding: any chunking of the bytes gives the same result."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.llm.sse import LineSplitter, SSEDecoder, decode_ndjson_lines, decode_sse, json_value


def sse_events(chunks) -> list[tuple[str, str]]:
    return list(decode_sse(chunks))


def split_at(data: bytes, points) -> list[bytes]:
    """Cut `data` at the given fractions of its length."""
    cuts = sorted({int(p * len(data)) for p in points} - {0, len(data)})
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]


def every_two_way_split(data: bytes):
    for at in range(len(data) + 1):
        yield [data[:at], data[at:]]


# --- LineSplitter


def test_lines_survive_any_two_way_split():
    data = b"one\ntwo\r\nthree\rfour\r\n\r\nfive"
    for chunks in every_two_way_split(data):
        splitter = LineSplitter()
        lines = [line for chunk in chunks for line in splitter.feed(chunk)] + splitter.finish()
        assert lines == [b"one", b"two", b"three", b"four", b"", b"five"], chunks


def test_crlf_split_across_chunks_is_one_line_ending():
    splitter = LineSplitter()
    assert splitter.feed(b"a\r") == []
    assert splitter.feed(b"\nb\r") == [b"a"]
    assert splitter.feed(b"\r\n") == [b"b", b""]
    assert splitter.finish() == []


def test_lone_cr_at_end_of_stream_ends_the_line():
    splitter = LineSplitter()
    assert splitter.feed(b"last\r") == []
    assert splitter.finish() == [b"last"]


# --- SSE


def test_events_with_data_split_inside_a_data_line_and_a_utf8_character():
    payload = json.dumps({"text": "héllo — 世界 🙂"}, ensure_ascii=False)
    data = f"data: {payload}\n\n".encode()
    for chunks in every_two_way_split(data):
        assert sse_events(chunks) == [("message", payload)], chunks


def test_one_byte_at_a_time():
    data = "data: ünï\n\ndata: [DONE]\n\n".encode()
    assert sse_events([data[i : i + 1] for i in range(len(data))]) == [
        ("message", "ünï"),
        ("message", "[DONE]"),
    ]


def test_crlf_and_lone_cr_line_endings():
    assert sse_events([b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"]) == [
        ("message", "a"),
        ("message", "b"),
        ("message", "c"),
    ]


def test_several_data_lines_join_with_newlines():
    stream = b'data: {"a":\ndata:  1}\ndata:\n\n'
    assert sse_events([stream]) == [("message", '{"a":\n 1}\n')]


def test_comments_are_keepalives_and_do_not_end_or_add_to_an_event():
    stream = b": ping\n\ndata: one\n: still thinking\ndata: two\n\n:\n\n"
    assert sse_events([stream]) == [("message", "one\ntwo")]


def test_event_names_apply_to_one_event_only():
    stream = b"event: error\ndata: {\"error\": \"boom\"}\n\ndata: after\n\n"
    assert sse_events([stream]) == [("error", '{"error": "boom"}'), ("message", "after")]


def test_event_name_without_data_is_forgotten():
    assert sse_events([b"event: error\n\ndata: x\n\n"]) == [("message", "x")]


def test_done_marker_is_an_ordinary_event():
    assert sse_events([b'data: {"x": 1}\n\ndata: [DONE]\n\n']) == [
        ("message", '{"x": 1}'),
        ("message", "[DONE]"),
    ]


def test_last_event_without_trailing_blank_line_still_counts():
    assert sse_events([b"data: one\n\ndata: two"]) == [("message", "one"), ("message", "two")]
    assert sse_events([b"data: three\n"]) == [("message", "three")]


def test_unknown_fields_and_data_without_space_are_handled():
    assert sse_events([b"id: 7\nretry: 100\ndata:tight\n\n"]) == [("message", "tight")]


def test_decoder_feed_returns_events_as_soon_as_they_are_complete():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert decoder.feed(b"\ndata: b") == [("message", "a")]
    assert decoder.finish() == [("message", "b")]


# --- NDJSON


def test_ndjson_skips_blank_lines_and_keeps_a_last_line_without_newline():
    chunks = [b'{"a": 1}\n\n  \n{"b":', b' "\xc3', b'\xa9"}\r\n{"c": 3}']
    lines = list(decode_ndjson_lines(chunks))
    assert [json.loads(line) for line in lines] == [{"a": 1}, {"b": "é"}, {"c": 3}]


# --- properties: the split never matters

payloads = st.lists(
    st.dictionaries(st.text(max_size=8), st.text(max_size=20), max_size=3), min_size=1, max_size=6
)
split_points = st.lists(st.floats(min_value=0, max_value=1), max_size=20)
line_endings = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def sse_streams(draw):
    """A valid SSE byte stream and the events it holds."""
    events = []
    parts = []
    for payload in draw(payloads):
        eol = draw(line_endings)
        name = draw(st.sampled_from([None, "message", "delta", "error"]))
        text = json.dumps(payload, ensure_ascii=draw(st.booleans()))
        if draw(st.booleans()):
            parts.append(f": keep-alive{eol}")
        if name:
            parts.append(f"event: {name}{eol}")
        # split the JSON over several data: lines at arbitrary places
        cut = draw(st.integers(min_value=0, max_value=len(text)))
        pieces = [text[:cut], text[cut:]] if draw(st.booleans()) else [text]
        parts.extend(f"data: {piece}{eol}" for piece in pieces)
        parts.append(eol)
        events.append((name or "message", "\n".join(pieces)))
    parts.append("data: [DONE]\n\n")
    events.append(("message", "[DONE]"))
    return "".join(parts).encode("utf-8"), events


@settings(max_examples=examples(150), deadline=None)
@given(sse_streams(), split_points)
def test_any_split_of_an_sse_stream_gives_the_same_events(stream, points):
    data, events = stream
    assert sse_events([data]) == events
    assert sse_events(split_at(data, points)) == events


@st.composite
def ndjson_streams(draw):
    objects = draw(payloads)
    eol = draw(line_endings)
    text = eol.join(json.dumps(o, ensure_ascii=draw(st.booleans())) for o in objects)
    if draw(st.booleans()):
        text += eol
    return text.encode("utf-8"), objects


@settings(max_examples=examples(150), deadline=None)
@given(ndjson_streams(), split_points)
def test_any_split_of_an_ndjson_stream_gives_the_same_lines(stream, points):
    data, objects = stream
    whole = list(decode_ndjson_lines([data]))
    assert [json.loads(line) for line in whole] == objects
    assert list(decode_ndjson_lines(split_at(data, points))) == whole


# --- one event per chunk, as servers that flush each token send it (the decoder's quick way)


def test_one_event_per_chunk_keeps_names_held_lines_and_multiline_events():
    chunks = [b'data: {"a":1}\n\n',
              b"event: error\n", b'data: {"b":2}\n\n',  # the name came in the chunk before
              b"data: first", b' half\n\n',  # a line held from the chunk before
              b"data: x\ndata: y\n\n",  # two data lines: not the quick way's
              b"data: \n\n", b"data: caf\xc3\xa9\n\n", b"data: [DONE]\n\n"]
    assert sse_events(chunks) == [("message", '{"a":1}'), ("error", '{"b":2}'), ("message", "first half"),
                                  ("message", "x\ny"), ("message", ""), ("message", "café"),
                                  ("message", "[DONE]")]
    assert sse_events(chunks) == sse_events([b"".join(chunks)])


@pytest.mark.parametrize("text", ['{"a": [1, 2]}', ' {"a": 1} ', '{"a": 1}\n', "[1]", '"s"', "NaN",
                                  '{"a": 1} x', "", "{", '{"a": "\\ud800"}', "tru"])
def test_json_value_answers_as_json_loads(text):
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as raised:
            json_value(text)
        assert str(raised.value) == str(exc)
    else:
        value = json_value(text)
        assert value == expected or (value != value and expected != expected)  # NaN is NaN
