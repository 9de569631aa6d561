"""Properties every dialect must have: calls round-trip, prose streams as parsed, cut-off replies run nothing wrong.

The renderers in dialect_renderers.py write calls the way each model family
does; every test here runs for every dialect in its registry. The strategies and
helpers are here; the round trip without a schema, prose around calls and cut-off
replies are in test_dialect_round_trips.py, test_dialect_prose.py and
test_dialect_cut_replies.py, so that xdist's workers (one file each) share them.
"""

from __future__ import annotations

import functools
import keyword

import pytest
from support.dialect_renderers import (
    INLINE_TEXT,
    JSON,
    MARKED,
    MARKUP,
    PYTHON,
    RENDERERS,
    TAGGED,
    TEXT,
)
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from support.examples import examples
from test_intents_properties import FRAGMENTS, TAG_BITS, THINK_TAGS, piece_lists, schema_for, value_chars, xml_safe

from ayder_cli.intents import StreamFilter, parse

_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much]
_PHASES = [phase for phase in Phase if phase is not Phase.explain]  # explaining a failure costs seconds each
FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=_QUIET, phases=_PHASES)
# The tests that draw more per example (prose, split points, cut points) run fewer.
SHORT = settings(max_examples=examples(20), deadline=None, suppress_health_check=_QUIET, phases=_PHASES)

DIALECTS = sorted(RENDERERS)
BY_KIND = {kind: [d for d in DIALECTS if RENDERERS[d][1] == kind]
           for kind in (JSON, PYTHON, TEXT, INLINE_TEXT, TAGGED, MARKED)}
TEXT_VALUED = BY_KIND[TEXT] + BY_KIND[INLINE_TEXT] + BY_KIND[TAGGED] + BY_KIND[MARKED]
JSON_VALUED = BY_KIND[JSON] + BY_KIND[PYTHON]

# ---------------------------------------------------------------------------- strategies

# Markup that is legitimately markup wherever it stands in free text (prose, raw-text values):
# special tokens, Mistral's and MiniMax's bracket tokens, and the tags of the text-valued dialects.
SPECIAL = ("<|", "<｜", "[TOOL_CALLS]", "]~", "[e~[", "<arg_key", "</arg_key", "<arg_value", "</arg_value",
           "<tool_calls", "</tool_calls")


def text_safe(s: str) -> bool:
    """A raw-text value no dialect can mistake for its own markup."""
    return xml_safe(s) and not any(m in s for m in SPECIAL + THINK_TAGS)


# Names and keys (a regex strategy costs more to draw than everything else together).
_FIRST = "abcdefghijklmnopqrstuvwxyz_"
names = st.builds(str.__add__, st.sampled_from(_FIRST), st.text(st.sampled_from(_FIRST + "0123456789"), max_size=20))
keys = st.builds(str.__add__, st.sampled_from(_FIRST), st.text(st.sampled_from(_FIRST + "0123456789"), max_size=12))

# Values are drawn a piece at a time, single characters values really hold (code punctuation, markup,
# whitespace, unicode) or whole snippets, so a draw stays cheap; or character by character, shorter.
PIECES = [*"<>/\\\"'{}[]()=:;,.`#&|*-_ \t\n", *"çşğıöüİ中文é😀—", "abc", "x", "def f(a, b):", "    return a < b",
          "if (a[i] <= b) {", "}", "path/to/file.py", "hello world", "'''", '"""', r"a\nb", "\\\\", "SELECT 1;", "0",
          "-1", "3.14", "true", "null", "None", "  ", "\n\n", "<b>x</b>", "a < b > c", "[x](y)", "{}", "[]"]
piece_text = st.one_of(piece_lists(PIECES, max_size=8).map("".join), st.text(value_chars, max_size=12))
text_strings = piece_text.filter(text_safe)
inline_strings = text_strings.filter(lambda s: s == s.strip())

# JSON strings: anything, plus older formats' tags (JSON says where a string ends) and the line
# separators json.dumps(ensure_ascii=False) leaves raw (a reader that splits lines must not split on them).
json_strings = st.lists(st.one_of(piece_text, st.sampled_from(TAG_BITS + ["\u2028", "\u2029", "\x85"])),
                        max_size=3).map("".join).filter(lambda s: not any(t in s for t in THINK_TAGS))
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
json_scalars = st.one_of(json_strings, st.integers(-10**12, 10**12), st.booleans(), st.none(), floats)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                 st.dictionaries(keys, inner, max_size=3)),
                           max_leaves=6)

py_names = names.filter(lambda s: not keyword.iskeyword(s))
py_keys = keys.filter(lambda s: not keyword.iskeyword(s))

# Values a text-valued dialect carries when the tool's schema says their type (see schema_for).
typed_values = st.one_of(
    text_strings,
    # digits under a string schema stay a string ("007", "-12")
    st.builds(lambda sign, zeros, n: sign + "0" * zeros + str(n), st.sampled_from(["", "-"]), st.integers(0, 2),
              st.integers(0, 99999)),
    st.integers(-10**12, 10**12),
    st.booleans(),
    st.none(),
    floats,
    st.lists(st.one_of(st.integers(), text_strings.filter(lambda s: "\\" not in s)), max_size=3),
    st.dictionaries(keys, st.integers(), max_size=3),
)
# DSML marks non-strings string="false" and writes them as JSON: no schema needed.
tagged_values = st.one_of(inline_strings, st.integers(-10**12, 10**12), st.booleans(), st.none(), floats,
                          st.lists(st.one_of(st.integers(), text_strings), max_size=3),
                          st.dictionaries(keys, st.integers(), max_size=3))


# Gemma 4 and Kimi K3 mark strings apart and carry every other JSON type as it is: strings raw (no special tokens).
marked_scalars = st.one_of(text_strings, st.integers(-10**12, 10**12), st.booleans(), st.none(), floats)
marked_values = st.recursive(marked_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                     st.dictionaries(keys, inner, max_size=3)),
                             max_leaves=6)


def no_edge_space(value) -> bool:
    return not isinstance(value, str) or value == value.strip()


@functools.cache  # one strategy object per kind, built once: a fresh one is validated on every draw
def untyped_args(kind: str):
    """Arguments the dialect round-trips without a schema."""
    if kind == JSON:
        return st.dictionaries(keys, json_values, max_size=3)
    if kind == PYTHON:
        return st.dictionaries(py_keys, json_values, max_size=3)
    if kind == TEXT:
        return st.dictionaries(keys, text_strings, max_size=3)
    if kind == INLINE_TEXT:
        return st.dictionaries(keys, inline_strings, max_size=3)
    if kind == MARKED:
        return st.dictionaries(keys, marked_values, max_size=3)
    return st.dictionaries(keys, tagged_values, max_size=3)


@functools.cache
def typed_args(kind: str):
    """Arguments the dialect round-trips with schema_for's schema."""
    if kind in (JSON, PYTHON):
        return untyped_args(kind)
    values = typed_values if kind in (TEXT, MARKED) else typed_values.filter(no_edge_space)
    return st.dictionaries(keys, values, max_size=4)


def prefix_free(calls) -> bool:
    """No name starts another one: a name cut short can then never be another intended tool."""
    return not any(a != b and b.startswith(a) for a, _ in calls for b, _ in calls)


@functools.cache
def call_lists(kind: str, typed: bool = False, max_size: int = 3):
    name = py_names if kind == PYTHON else names
    args = typed_args(kind) if typed else untyped_args(kind)
    return st.lists(st.tuples(name, args), min_size=1, max_size=max_size, unique_by=lambda c: c[0])


def tools_for(calls) -> list[dict]:
    return [schema_for(name, args)[0] for name, args in calls]


# Prose a model writes around calls: no markup characters at all.
PROSE_ALPHABET = list("abcdefghijklmnopqrstuvwxyz ABCDEFXYZ0123456789.,:;!?'\"()-+*/%çéşİ中文😀—\t")
prose_lines = st.text(st.sampled_from(PROSE_ALPHABET), min_size=1, max_size=30).filter(lambda s: s.strip())
prose = st.lists(prose_lines, min_size=1, max_size=3).map("\n".join)
thoughts = st.one_of(st.just(""), prose.map(lambda t: f"<think>\n{t}\n</think>\n"))


# ---------------------------------------------------------------------------- helpers


def calls_of(reply) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in reply.calls]


def got(text: str, tools=None) -> list[tuple[str, dict]]:
    reply = parse(text, tools)
    assert reply.errors == [], reply.errors
    return calls_of(reply)


def stream(pieces, tools=None, think_open=None):
    """What StreamFilter shows, thinks, calls and reports, fed `pieces` one by one."""
    flt = StreamFilter(tools, think_open=think_open)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + list(flt.finish())
    reply = flt.result()
    return ("".join(t for k, t in out if k == "text"), "".join(t for k, t in out if k == "thinking"),
            calls_of(reply), reply.errors)


def as_parsed(text, tools=None, think_open=None):
    reply = parse(text, tools, think_open=think_open)
    return reply.display, "".join(reply.thinking), calls_of(reply), reply.errors


def find_all(text: str, token: str) -> list[int]:
    found, at = [], text.find(token)
    while at >= 0:
        found.append(at)
        at = text.find(token, at + 1)
    return found


def split(text, points):
    points = sorted({p for p in points if 0 < p < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


# ---------------------------------------------------------------------------- (a) round trips


@pytest.mark.parametrize("dialect", TEXT_VALUED)
@SHORT
@given(data=st.data())
def test_text_values_come_back_typed_by_the_schema(dialect, data):
    render, kind = RENDERERS[dialect]
    calls = data.draw(call_lists(kind, typed=True), label="calls")
    assert got(render(calls), tools_for(calls)) == calls


def union_tools_for(calls) -> list[dict]:
    """The same schemas, each parameter written as a union with null (`anyOf`), the way many tools declare
    an optional parameter."""
    tools = tools_for(calls)
    for tool in tools:
        properties = tool["function"]["parameters"]["properties"]
        for key, prop in properties.items():
            kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            properties[key] = {"anyOf": [{"type": kind} for kind in kinds if kind != "null"] + [{"type": "null"}]}
    return tools


def not_null_text(value) -> bool:
    """A string a union with null keeps as text (an empty value, "null" or "None" there is null)."""
    return not isinstance(value, str) or value.strip() not in ("", "null", "None")


@functools.cache
def not_null_call_lists(kind: str):
    return call_lists(kind, typed=True).filter(
        lambda calls: all(not_null_text(v) for _, args in calls for v in args.values()))


@pytest.mark.parametrize("dialect", TEXT_VALUED)
@SHORT
@given(data=st.data())
def test_text_values_come_back_typed_by_a_union_with_null(dialect, data):
    render, kind = RENDERERS[dialect]
    calls = data.draw(not_null_call_lists(kind), label="calls")
    assert got(render(calls), union_tools_for(calls)) == calls


@pytest.mark.parametrize("with_schema", [True, False])
@SHORT
@given(data=st.data())
def test_a_qwen3_value_may_hold_whole_calls(with_schema, data):
    """A file being written may be a document about tool calls: its value ends at its own closer."""
    render, _ = RENDERERS["qwen3_xml"]
    inner = data.draw(call_lists(TEXT, max_size=2), label="inner calls")
    doc = f"{data.draw(prose, label='intro')}\n{render(inner)}\n{data.draw(prose, label='outro')}\n"
    calls = [("write_file", {"file_path": "docs/calls.md", "content": doc})]
    tools = tools_for(calls + inner) if with_schema else None
    text = f"Writing the doc.\n{render(calls)}\nDone."
    assert got(text, tools) == calls
    points = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="split at")
    assert stream(split(text, points), tools) == as_parsed(text, tools)


# Every dialect's markup, quoted inside a JSON string: JSON says where the string ends, so none of it
# may end the call or start another.
# (Harmony's <|channel|> and <|end|> included: only <think>-style tags are looked for outside of markup.)
QUOTED_MARKUP = sorted({token for tokens in MARKUP.values() for token in tokens} | {"<|call|>", "<|end|>"})
THINK_ONLY = ("<think", "</think", "<reasoning", "</reasoning", "<seed:think", "</seed:think", "<channel|>",
              "<|close|>think", "[THINK]", "[/THINK]", "<mm:think", "</mm:think")
quoting_strings = st.lists(st.one_of(st.sampled_from(QUOTED_MARKUP), st.text(value_chars, max_size=8)),
                           min_size=1, max_size=4).map("".join).filter(lambda s: not any(t in s for t in THINK_ONLY))


@functools.cache
def quoting_call_lists(kind: str):
    name = py_names if kind == PYTHON else names
    key = py_keys if kind == PYTHON else keys
    return st.lists(st.tuples(name, st.dictionaries(key, quoting_strings, min_size=1, max_size=3)),
                    min_size=1, max_size=2)


@pytest.mark.parametrize("dialect", JSON_VALUED)
@SHORT
@given(data=st.data())
def test_json_strings_may_quote_any_dialects_markup(dialect, data):
    render, kind = RENDERERS[dialect]
    calls = data.draw(quoting_call_lists(kind), label="calls")
    assert got(render(calls)) == calls


# ---------------------------------------------------------------------------- robustness: every dialect's pieces

_SAMPLE = [("read_file", {"file_path": "a.py", "limit": 1}), ("run", {"cmd": "ls <x> [y]"})]
DIALECT_FRAGMENTS = sorted({token for tokens in MARKUP.values() for token in tokens}
                           | {"<|call|>", "<|end|>", "<|eom_id|>", "<|python_start|>", "<|python_end|>",
                              "<|channel|>analysis<|message|>", "<|channel|>final<|message|>", "functions.a:0",
                              "function", "read_file", "[ARGS]", "[CALL_ID]", "<tool_call>read_file\n",
                              "src/app.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", "```python a.py\n",
                              "<|channel>thought\n", "<channel|>", "<turn|>", "call:read_file(file_path: \"a\")",
                              "<|open|>think<|sep|>", "<|close|>think<|sep|>", "<|close|>response<|sep|>",
                              "</｜DSML｜inv>", "</｜DSML｜tool>", '<｜DSML｜ invoke name="read_file"/>'})
for _render, _ in RENDERERS.values():
    for _text in (_render(_SAMPLE[:1]), _render(_SAMPLE)):
        DIALECT_FRAGMENTS += [_text, _text[: len(_text) // 2], _text[len(_text) // 2 :]]
ALL_FRAGMENTS = FRAGMENTS + DIALECT_FRAGMENTS
fragment_text = st.lists(st.sampled_from(ALL_FRAGMENTS), max_size=25).map("".join)
tool_lists = st.sampled_from([None, tools_for(_SAMPLE)])


@settings(max_examples=examples(100), deadline=None)
@given(fragment_text, st.lists(st.integers(min_value=0, max_value=2000), max_size=12), tool_lists,
       st.sampled_from([None, False]))
@example("<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}",
         [30, 60], None, None)
@example("<|start|>assistant<|channel|>commentary to=functions.read_file <|c```json\n<|channel|>analysis<|message|>",
         [], None, False)  # a harmony header is one line (streamed, it ended at the newline; parsed, it did not)
def test_any_mix_of_dialect_markup_never_raises_and_streams_as_parsed(text, points, tools, think_open):
    reply = parse(text, tools, think_open=think_open)
    assert isinstance(reply.display, str)
    assert all(isinstance(e, str) for e in reply.errors)
    assert all(isinstance(c.arguments, dict) for c in reply.calls)
    ids = [c.id for c in reply.calls]
    assert len(set(ids)) == len(ids)
    expected = as_parsed(text, tools, think_open)
    assert stream(split(text, points), tools, think_open) == expected
    assert stream(list(text), tools, think_open) == expected
