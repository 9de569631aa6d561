"""Properties of the intent parser: every format round-trips a call, nothing raises, streaming matches parsing."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.intents import StreamFilter, parse
from ayder_cli.intents.dialects.harmony import REPLY_HEAD

# ---------------------------------------------------------------------------- strategies

def piece_lists(pieces, min_size=0, max_size=None):
    """Lists of `pieces`, each as likely, as st.lists(st.sampled_from(pieces)) draws them, but drawn as one
    string of stand-in characters (a private-use character a piece) and translated: one choice for
    hypothesis instead of two for each piece."""
    assert len(pieces) <= 256  # draw_string favours the first 256 characters of a bigger alphabet
    stand_ins = [chr(0xE000 + i) for i in range(len(pieces))]
    return st.text(st.sampled_from(stand_ins), min_size=min_size, max_size=max_size).map(
        lambda s: [pieces[ord(c) - 0xE000] for c in s])


# The strings of [a-z_][a-z0-9_]{0,24} (and {0,16}), built from two draws: st.from_regex draws them a
# character at a time and costs twice as much.
_FIRST = "abcdefghijklmnopqrstuvwxyz_"
_REST = st.sampled_from(_FIRST + "0123456789")
names = st.builds(str.__add__, st.sampled_from(_FIRST), st.text(_REST, max_size=24))
keys = st.builds(str.__add__, st.sampled_from(_FIRST), st.text(_REST, max_size=16))

THINK_TAGS = ("<think", "</think", "<reasoning", "</reasoning", "<|channel|>", "<|end|>", "<seed:think", "</seed:think",
              "<|channel>", "<channel|>", "<|open|>think", "<|close|>think",  # Seed-OSS, Gemma 4, Kimi K3
              "[THINK]", "[/THINK]", "<mm:think", "</mm:think")
# Characters a model's argument values really hold: code punctuation, markup, whitespace, unicode.
value_chars = st.one_of(
    st.sampled_from(list("<>/\\\"'{}[]()=:;,.`#&|*-_ \t\n")),
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.sampled_from(list("çşğıöüİ中文é😀—")),
)
free_strings = st.text(value_chars, max_size=40).filter(lambda s: not any(t in s for t in THINK_TAGS))

XML_MARKERS = ("<parameter", "</parameter", "<function", "</function", "<tool_call", "</tool_call", "<invoke",
               "</invoke", "<minimax", "</minimax", "function_calls", "DSML", "<think", "</think", "<reasoning", "</reasoning", "```",
               *THINK_TAGS)


def xml_safe(s: str) -> bool:
    """A value the XML formats can carry without a schema: no tag of the format inside it."""
    return not any(m in s for m in XML_MARKERS)


# Filters on a text or list strategy are lambdas, not the named predicate: hypothesis re-validates a filtered
# strategy at each draw and reads a named predicate's source (inspect.getsource) each time; a lambda's is cached.
xml_strings = st.text(value_chars, max_size=40).filter(lambda s: xml_safe(s))
# The invoke form writes values inline; keep them free of edge whitespace, whose fate the spec leaves open.
inline_strings = xml_strings.filter(lambda s: s == s.strip())

# Markup a model may legitimately put inside a JSON string (a file about tool calls, a test fixture):
# JSON says where the string ends, so none of it may end or start a call.
TAG_BITS = ["</tool_call>", "<tool_call>", "</parameter>", "<parameter=k>", "</function>", "<function=f>", "```",
            "```tool", "[CALL] x {}", "[TOOL_CALLS]", "</invoke>", '<invoke name="x">', "</minimax:tool_call>",
            "<｜DSML｜function_calls>", "</｜DSML｜parameter>", "{", "}", '"', "\n", "]"]
json_strings = st.lists(st.one_of(free_strings, st.sampled_from(TAG_BITS)), max_size=5).map("".join)
json_scalars = st.one_of(free_strings, json_strings, st.integers(-10**12, 10**12), st.booleans())
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=10)

string_args = st.dictionaries(keys, xml_strings, max_size=5)
inline_args = st.dictionaries(keys, inline_strings, max_size=5)
json_args = st.dictionaries(keys, json_values, max_size=5)

FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def got(text: str, tools=None) -> list[tuple[str, dict]]:
    reply = parse(text, tools)
    assert reply.errors == [], reply.errors
    return [(c.name, c.arguments) for c in reply.calls]


# ---------------------------------------------------------------------------- renderers


def render_call_line(name, args):
    return f"[CALL] {name} {json.dumps(args, ensure_ascii=False)}"


def render_tool_fence(name, args):
    return "```tool\n" + json.dumps({"name": name, "args": args}) + "\n```"


def render_hermes(name, args):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


def render_hermes_string_arguments(name, args):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": json.dumps(args)}) + "\n</tool_call>"


def render_json_array(calls):
    return json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)


def render_mistral(calls):
    return "[TOOL_CALLS]" + json.dumps([{"name": n, "arguments": a} for n, a in calls])


def render_openai(calls):
    return json.dumps(
        [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
         for i, (n, a) in enumerate(calls)],
        indent=2,
    )


def xml_value(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def render_qwen(name, args, wrapper="<tool_call>", closer="</tool_call>"):
    body = f"<function={name}>\n"
    for key, value in args.items():
        body += f"<parameter={key}>\n{xml_value(value)}\n</parameter>\n"
    body += "</function>"
    return f"{wrapper}\n{body}\n{closer}" if wrapper else body


def render_minimax_invoke(name, args):
    params = "".join(f'<parameter name="{k}">{xml_value(v)}</parameter>\n' for k, v in args.items())
    return f'<minimax:tool_call>\n<invoke name="{name}">\n{params}</invoke>\n</minimax:tool_call>'


def render_dsml(name, args, prefix="｜DSML｜"):
    params = ""
    for key, value in args.items():
        is_string = isinstance(value, str)
        text = value if is_string else json.dumps(value)
        params += (f'<{prefix}parameter name="{key}" string="{"true" if is_string else "false"}">'
                   f"{text}</{prefix}parameter>\n")
    return (f"<{prefix}function_calls>\n<{prefix}invoke name=\"{name}\">\n{params}"
            f"</{prefix}invoke>\n</{prefix}function_calls>")


JSON_SINGLE = [render_call_line, render_tool_fence, render_hermes, render_hermes_string_arguments]
JSON_MULTI = [render_json_array, render_mistral, render_openai]


# ---------------------------------------------------------------------------- round trips: JSON formats


@FAST
@given(names, json_args, st.sampled_from(JSON_SINGLE))
@example("read_file", {"file_path": "a.py", "n": [1, [True, "x"]]}, render_call_line)
def test_json_formats_round_trip(name, args, render):
    assert got(render(name, args)) == [(name, args)]


@FAST
@given(st.lists(st.tuples(names, json_args), min_size=1, max_size=3), st.sampled_from(JSON_MULTI))
def test_json_array_formats_round_trip(calls, render):
    assert got(render(calls)) == calls


@FAST
@given(st.lists(st.tuples(names, json_args), min_size=1, max_size=3),
       st.sampled_from([render_call_line, render_hermes, render_tool_fence]),
       st.sampled_from(["\n", "\nok, next:\n", "\n\n"]))
def test_several_json_calls_in_one_reply_in_order(calls, render, between):
    text = "Starting.\n" + between.join(render(n, a) for n, a in calls) + "\nDone."
    reply = parse(text)
    assert reply.errors == []
    assert [(c.name, c.arguments) for c in reply.calls] == calls
    assert len({c.id for c in reply.calls}) == len(calls)
    assert "Starting." in reply.display and "Done." in reply.display


# ---------------------------------------------------------------------------- round trips: XML formats


QWEN_VARIANTS = [
    lambda n, a: render_qwen(n, a),
    lambda n, a: render_qwen(n, a, wrapper=""),
    lambda n, a: render_qwen(n, a, wrapper="<minimax:tool_call>", closer="</minimax:tool_call>"),
]


@FAST
@given(names, string_args, st.sampled_from(QWEN_VARIANTS))
@example("write_file", {"content": "\n  x < y\n\n", "path": ""}, QWEN_VARIANTS[0])
def test_qwen_xml_round_trips_strings_without_schema(name, args, render):
    assert got(render(name, args)) == [(name, args)]


@FAST
@given(names, inline_args, st.sampled_from([render_minimax_invoke, render_dsml,
                                            lambda n, a: render_dsml(n, a, prefix="")]))
def test_invoke_forms_round_trip_strings_without_schema(name, args, render):
    assert got(render(name, args)) == [(name, args)]


@FAST
@given(names, st.dictionaries(keys, st.one_of(inline_strings, st.integers(-10**9, 10**9), st.booleans(),
                                              st.lists(st.integers(), max_size=3)), max_size=5))
def test_dsml_string_false_values_are_json(name, args):
    assert got(render_dsml(name, args)) == [(name, args)]


def schema_type(value):
    if value is None:
        return ["string", "null"]
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def schema_for(name, args):
    props = {k: {"type": schema_type(v)} for k, v in args.items()}
    return [{"type": "function", "function": {"name": name, "description": "generated",
                                              "parameters": {"type": "object", "properties": props,
                                                             "required": sorted(props)}}}]


typed_values = st.one_of(
    xml_strings,
    # digits under a string schema stay a string: -?[0-9]{1,6}
    st.builds(str.__add__, st.sampled_from(["", "-"]), st.text(st.sampled_from("0123456789"), min_size=1, max_size=6)),
    st.integers(-10**12, 10**12),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.lists(st.one_of(st.integers(), xml_strings.filter(lambda s: "\\" not in s)), max_size=3),
    st.dictionaries(keys, st.integers(), max_size=3),
)
typed_args = st.dictionaries(keys, typed_values, max_size=6)


@FAST
@given(names, typed_args, st.sampled_from(QWEN_VARIANTS))
@example("set_limits", {"n": 5, "ratio": 0.25, "on": False, "glob": None, "tags": ["a"], "meta": {"k": 1},
                        "code": "007"}, QWEN_VARIANTS[0])
def test_qwen_xml_values_typed_by_schema(name, args, render):
    assert got(render(name, args), schema_for(name, args)) == [(name, args)]


# Lines a value may quote under a schema: a closing tag that is not followed by structure, a tag of a
# parameter the tool does not have, tag-like code. Whatever comes right after a quoted </parameter>
# is a plain line, so only the schema and the layout tell it from the real closer.
QUOTED_LINES = ["</parameter>", "<parameter=not_a_param>", "x = 1", "    if a < b > c:", "", "  ", "a</parameter>",
                "<parameter=also_not>x", "</tool_call> and more", "text"]


def quoting_value(lines: list[str]) -> str | None:
    """The value, or None when a quoted </parameter> would be followed by a closer (then nothing tells)."""
    for i, line in enumerate(lines):
        if "</parameter>" in line:
            following = next((later for later in lines[i + 1:] if later.strip()), None)
            if following is None or following.lstrip().startswith("</"):
                return None
    return "\n".join(lines)


quoting_values = piece_lists(QUOTED_LINES, min_size=1, max_size=8).map(quoting_value).filter(
    lambda v: v is not None)


@FAST
@given(names, st.dictionaries(keys.filter(lambda k: k not in ("not_a_param", "also_not")),
                              st.one_of(quoting_values, st.integers(), st.booleans()), min_size=1, max_size=4),
       st.sampled_from(QWEN_VARIANTS))
@example("write_file", {"content": 'S = """\n</parameter>\n<parameter=not_a_param>\nw\n</parameter>\n"""'},
         QWEN_VARIANTS[0])
def test_qwen_xml_schema_tells_quoted_tags_from_real_ones(name, args, render):
    assert got(render(name, args), schema_for(name, args)) == [(name, args)]


@FAST
@given(names, typed_args.map(lambda a: {k: v for k, v in a.items() if not (isinstance(v, str) and v != v.strip())}))
def test_minimax_invoke_values_typed_by_schema(name, args):
    assert got(render_minimax_invoke(name, args), schema_for(name, args)) == [(name, args)]


@FAST
@given(st.lists(st.tuples(names, string_args), min_size=2, max_size=3))
def test_several_qwen_calls_in_order(calls):
    text = "\n".join(render_qwen(n, a) for n, a in calls)
    assert got(text) == calls


# ---------------------------------------------------------------------------- robustness

FRAGMENTS = [
    "<tool_call>", "</tool_call>", "<function=", "<function=read_file>", "</function>", "<parameter=",
    "<parameter=file_path>", "</parameter>", "[CALL]", "[CALL] read_file ", "```", "```tool\n", "```python\n",
    "<think>", "</think>", "{", "}", '"', '"name"', ": ", '"arguments"', "[", "]", "[TOOL_CALLS]",
    "<minimax:tool_call>", '<invoke name="', "</invoke>", '<parameter name="k">', "<｜DSML｜function_calls>",
    "<function_calls>", "\n", " ", "a", "x.py", "<", ">", "=", "é", "null", "1",
    "```json\n", '[{"name": "a", "arguments": {}}]', '{"name": "a", "arguments": {"k": "v"}}', "</minimax:tool_call>",
    "</function_calls>", '<｜DSML｜invoke name="a">', '<｜DSML｜parameter name="k" string="false">',
    "</｜DSML｜parameter>", "</｜DSML｜invoke>", "</｜DSML｜function_calls>", "\n</parameter>\n", "`",
    # edits written as text
    "<<<<<<< SEARCH\n", "<<<<<<< SEARCH", "=======\n", ">>>>>>> REPLACE\n", "src/app.py\n", "**a.py**\n",
    "```python a.py\n", "\r\n",
]
fragment_text = piece_lists(FRAGMENTS, max_size=30).map("".join)
any_text = st.one_of(st.text(max_size=200), fragment_text)
tool_lists = st.sampled_from([None, schema_for("read_file", {"file_path": "x", "limit": 1})])


@settings(max_examples=examples(300), deadline=None)
@given(any_text, tool_lists)
def test_parse_never_raises(text, tools):
    reply = parse(text, tools)
    assert isinstance(reply.display, str)
    assert all(isinstance(e, str) for e in reply.errors)
    assert all(isinstance(t, str) for t in reply.thinking)
    ids = [c.id for c in reply.calls]
    assert all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids)
    assert all(isinstance(c.arguments, dict) for c in reply.calls)


plain_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="<[]`{"), max_size=200)


@settings(max_examples=examples(100), deadline=None)
@given(plain_text)
def test_text_without_markup_characters_is_shown_unchanged(text):
    reply = parse(text)
    assert (reply.calls, reply.errors, reply.display, reply.thinking) == ([], [], text, [])


# ---------------------------------------------------------------------------- streaming


def stream(pieces, tools=None) -> tuple[str, str]:
    flt = StreamFilter(tools=tools)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + list(flt.finish())
    return "".join(t for k, t in out if k == "text"), "".join(t for k, t in out if k == "thinking")


def split(text, points):
    points = sorted({p for p in points if 0 < p < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


@settings(max_examples=examples(300), deadline=None)
@given(any_text, st.lists(st.integers(min_value=0, max_value=400), max_size=15), tool_lists)
@example("a<think>b</think>c[CALL] x {}\nd", [1, 3, 9, 16, 20], None)
@example("plan</think>ok", [2, 6], None)
@example('<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>tail', [5, 12, 40], None)
def test_stream_matches_parse_for_any_split(text, points, tools):
    reply = parse(text, tools)
    expected = (reply.display, "".join(reply.thinking))
    assert stream(split(text, points), tools) == expected
    assert stream(list(text), tools) == expected


@FAST
@given(st.lists(st.tuples(names, json_args), min_size=1, max_size=2),
       st.sampled_from([render_call_line, render_hermes, render_tool_fence, render_dsml]),
       st.lists(st.integers(min_value=0, max_value=600), max_size=10))
def test_stream_of_real_calls_matches_parse(calls, render, points):
    text = "Let me do that.\n" + "\n".join(
        render(n, a) if render is not render_dsml else render_dsml(n, {k: str(v) for k, v in a.items()})
        for n, a in calls) + "\nAll set."
    reply = parse(text)
    assert stream(split(text, points)) == (reply.display, "".join(reply.thinking))
    assert "Let me do that." in reply.display


# ---------------------------------------------------------------------------- the live view (think_open=False)
# The chat loop streams with think_open=False so text shows at once (a lone </think> cannot be known
# before it arrives); the same equality must hold against parse(..., think_open=False).


def stream_live(pieces, tools=None) -> tuple[str, str]:
    flt = StreamFilter(tools=tools, think_open=False)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + list(flt.finish())
    return "".join(t for k, t in out if k == "text"), "".join(t for k, t in out if k == "thinking")


@settings(max_examples=examples(200), deadline=None)
@given(any_text, st.lists(st.integers(min_value=0, max_value=400), max_size=15), tool_lists)
def test_live_stream_matches_parse_for_any_split(text, points, tools):
    reply = parse(text, tools, think_open=False)
    expected = (reply.display, "".join(reply.thinking))
    assert stream_live(split(text, points), tools) == expected
    assert stream_live(list(text), tools) == expected


@settings(max_examples=examples(100), deadline=None)
@given(plain_text)
@example("t")
@example("to=f")
@example("t ")
def test_live_stream_shows_plain_text_as_soon_as_it_arrives(text):
    # Only whitespace at the very end waits, for the next visible character or the end of the reply; and a
    # reply that so far is all the start of gpt-oss's raw role header ("to=functions.", read at a reply's
    # start) waits for the character that shows it is not one. (Hypothesis found "t" held back.)
    assume(not text.startswith(REPLY_HEAD))
    flt = StreamFilter(think_open=False)
    visible = "" if REPLY_HEAD.startswith(text) else text.rstrip(" \t\r\n")
    assert "".join(t for k, t in flt.feed(text)) == visible
    assert "".join(t for k, t in flt.finish()) == text[len(visible):]


# ---------------------------------------------------------------------------- edits written as text
# SEARCH/REPLACE blocks and (whole_files) a fence under a path: each edit comes back as the call it
# means, none of its markup is shown, and streaming shows exactly what parse shows.

MARKER_LINES = ("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE")


def not_a_marker(line: str) -> bool:
    stripped = line.strip(" \t")
    return not stripped.startswith(("<<<<<<<", ">>>>>")) and (stripped.strip("=") != "" or not stripped)


edit_line = st.text(st.sampled_from(list("abcxyz ()=:<>`{}#*-_.\t'\"é")), max_size=12).filter(lambda s: not_a_marker(s))
edit_lines = st.lists(edit_line, max_size=4)
edit_paths = st.sampled_from(["src/app.py", "a.py", "lib/x-y/mod_1.rs", "README.md", "web/index.html"])
PATH_FORMS = ["{}", "**{}**", "`{}`", "### {}", "{}:"]


def render_search_replace(path, search, replace, form="{}", fence="bare"):
    """One SEARCH/REPLACE block: bare, fenced under its path line, or with the path inside the fence."""
    block = "\n".join(["<<<<<<< SEARCH", *search, "=======", *replace, ">>>>>>> REPLACE"])
    if fence == "bare":
        return f"{form.format(path)}\n{block}"
    if fence == "under":
        return f"{form.format(path)}\n```python\n{block}\n```"
    if fence == "info":
        return f"```python {path}\n{block}\n```"
    return f"```python\n{path}\n{block}\n```"


def expected_edit(path, search, replace):
    old, new = "\n".join(search), "\n".join(replace)
    if not search:
        old, new = "", new + "\n"
    elif not replace:
        old += "\n"
    return ("replace_string", {"file_path": path, "old_string": old, "new_string": new})


edits = st.lists(st.tuples(edit_paths, edit_lines, edit_lines, st.sampled_from(PATH_FORMS),
                           st.sampled_from(["bare", "under", "info", "inside"])), min_size=1, max_size=3)
edit_prose = st.lists(st.text(st.sampled_from(list("abc xyz.,:!?()")), min_size=1, max_size=20).filter(str.strip),
                      min_size=1, max_size=2).map("\n".join)


def edit_reply(drawn, before, after, crlf=False):
    text = before + "\n\n" + "\n\n".join(render_search_replace(p, s, r, f, fence) for p, s, r, f, fence in drawn)
    text += "\n\n" + after
    return text.replace("\n", "\r\n") if crlf else text


def filtered(pieces, **options):
    flt = StreamFilter(**options)
    out = [pair for piece in pieces for pair in flt.feed(piece)] + list(flt.finish())
    reply = flt.result()
    return ("".join(t for k, t in out if k == "text"), [(c.name, c.arguments) for c in reply.calls], reply.errors)


@FAST
@given(edits, edit_prose, edit_prose, st.booleans(), st.lists(st.integers(min_value=0, max_value=600), max_size=12),
       st.sampled_from([None, False]))
@example([("a.py", ["x = 1"], ["x = 2"], "{}", "bare")], "Fixing.", "Done.", True, [3, 20], False)
def test_search_replace_blocks_round_trip_hidden_and_streamed_as_parsed(drawn, before, after, crlf, points,
                                                                        think_open):
    text = edit_reply(drawn, before, after, crlf)
    reply = parse(text, think_open=think_open)
    assert reply.errors == []
    assert [(c.name, c.arguments) for c in reply.calls] == [expected_edit(p, s, r) for p, s, r, _, _ in drawn]
    assert not any(marker in reply.display for marker in MARKER_LINES) and "```" not in reply.display
    newline = "\r\n" if crlf else "\n"
    assert before.strip().replace("\n", newline) in reply.display
    assert after.strip().replace("\n", newline) in reply.display
    expected = (reply.display, [(c.name, c.arguments) for c in reply.calls], reply.errors)
    assert filtered(split(text, points), think_open=think_open) == expected
    assert filtered(list(text), think_open=think_open) == expected


whole_content = st.lists(st.text(st.sampled_from(list("abc xyz()=:<>{}#*-_.'\"")), max_size=12), max_size=5)


@FAST
@given(edit_paths, whole_content, st.sampled_from(["**{}**", "{}", "`{}`", "info"]), edit_prose, edit_prose,
       st.booleans(), st.lists(st.integers(min_value=0, max_value=400), max_size=10))
def test_a_whole_file_under_its_path_is_a_write_only_in_the_whole_format(path, lines, form, before, after, whole,
                                                                        points):
    fence = f"```python {path}\n" if form == "info" else f"{form.format(path)}\n```python\n"
    block = fence + "".join(line + "\n" for line in lines) + "```"
    text = f"{before}\n{block}\n{after}"
    reply = parse(text, whole_files=whole)
    calls = [(c.name, c.arguments) for c in reply.calls]
    if whole:
        assert calls == [("write_file", {"file_path": path, "content": "".join(line + "\n" for line in lines)})]
        assert "```" not in reply.display
    else:
        assert calls == [] and block in reply.display  # an ordinary fence: shown as written
    expected = (reply.display, calls, reply.errors)
    assert filtered(split(text, points), whole_files=whole) == expected
    assert filtered(list(text), whole_files=whole, think_open=False) == filtered([text], whole_files=whole,
                                                                                   think_open=False)


@settings(max_examples=examples(200), deadline=None)
@given(any_text, st.lists(st.integers(min_value=0, max_value=400), max_size=15), st.sampled_from([None, False]))
@example("a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\ntail", [3, 9, 20, 41], False)
@example("```python a.py\n```python\nx\n```\n```", [4, 17], None)
def test_any_text_streams_as_parsed_in_the_whole_format(text, points, think_open):
    reply = parse(text, think_open=think_open, whole_files=True)
    expected = (reply.display, [(c.name, c.arguments) for c in reply.calls], reply.errors)
    assert filtered(split(text, points), think_open=think_open, whole_files=True) == expected
    assert filtered(list(text), think_open=think_open, whole_files=True) == expected
