"""The fast paths of the stream decoders behave exactly like the plain ones they replace."""

from __future__ import annotations

import codecs
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ayder_cli.llm.ollama import loads_line


def outcome(parse, line: bytes):
    try:
        return ("ok", parse(line))
    except Exception as exc:  # the same exception type, whatever the path
        return ("error", type(exc))


@pytest.mark.parametrize("line", [
    b'{"message":{"content":"tok"},"done":false}',
    '{"message":{"content":"h\u00e9 \u2603"}}'.encode(),
    codecs.BOM_UTF8 + b'{"done":true}',  # json.loads accepts a UTF-8 BOM on bytes
    '{"a":1}'.encode("utf-16"),  # and detects UTF-16
    b'{"a":"\xff"}',  # not UTF-8
    b'{"a":',  # cut short
    b"not json",
    b"42",
])
def test_loads_line_matches_json_loads(line):
    assert outcome(loads_line, line) == outcome(json.loads, line)


@given(st.binary(max_size=40) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
).map(lambda value: json.dumps(value, ensure_ascii=False).encode()))
def test_loads_line_matches_json_loads_on_any_bytes(line):
    assert outcome(loads_line, line) == outcome(json.loads, line)
