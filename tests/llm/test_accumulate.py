"""Streamed deltas -> one Reply."""

from __future__ import annotations

import json

from ayder_cli.calls import decode_arguments
from ayder_cli.llm.accumulate import Accumulator
from ayder_cli.llm.wire_types import Delta, ToolCallFragment, Usage
from ayder_cli.llm.ollama import line_delta
from ayder_cli.llm.openai_compat import chunk_delta


def accumulate(*deltas: Delta, **turn_flags):
    acc = Accumulator()
    for delta in deltas:
        acc.add(delta)
    return acc.reply(**turn_flags)


def fragment(index, id=None, name=None, arguments=None) -> Delta:
    return Delta(tool_calls=[ToolCallFragment(index, id, name, arguments)])


def test_text_and_thinking_are_joined_in_order():
    reply = accumulate(
        Delta(thinking="Let me "),
        Delta(thinking="think."),
        Delta(content="Hel"),
        Delta(content=""),
        Delta(content="lo"),
        Delta(content=" world", finish_reason="stop"),
    )
    assert reply.text == "Hello world"
    assert reply.thinking == "Let me think."
    assert reply.tool_calls == []
    assert reply.finish_reason == "stop"


def test_finish_reason_and_usage_survive_later_empty_deltas():
    reply = accumulate(
        Delta(content="x", finish_reason="length"),
        Delta(usage=Usage(120, 30)),
        Delta(),
    )
    assert reply.finish_reason == "length"
    assert reply.usage == Usage(120, 30)
    assert reply.usage.total_tokens == 150


def test_interrupted_and_stream_cut_flags_keep_what_arrived():
    acc = Accumulator()
    acc.add(Delta(content="partial"))
    assert acc.text == "partial"
    reply = acc.reply(interrupted=True)
    assert reply.interrupted and reply.text == "partial" and not reply.stream_cut
    assert acc.reply(stream_cut=True).stream_cut


def test_native_tool_calls_accumulate_by_index_across_fragments():
    reply = accumulate(
        fragment(0, id="call_a", name="read_file", arguments=""),
        fragment(1, id="call_b", name="list_files", arguments='{"pa'),
        fragment(0, arguments='{"path": '),
        fragment(1, arguments='th": "src"}'),
        fragment(0, arguments='"README.md"}'),
        Delta(finish_reason="tool_calls"),
    )
    assert [(c.id, c.name, c.arguments, c.error) for c in reply.tool_calls] == [
        ("call_a", "read_file", {"path": "README.md"}, None),
        ("call_b", "list_files", {"path": "src"}, None),
    ]
    assert reply.finish_reason == "tool_calls"


def test_calls_come_out_in_index_order_with_ids_filled_in():
    reply = accumulate(
        fragment(2, name="third", arguments="{}"),
        fragment(0, name="first"),
    )
    assert [c.name for c in reply.tool_calls] == ["first", "third"]
    assert [c.id for c in reply.tool_calls] == ["call_0", "call_1"]
    assert reply.tool_calls[0].arguments == {}
    assert reply.tool_calls[0].error is None


def test_name_repeated_in_every_fragment_is_not_doubled():
    reply = accumulate(
        fragment(0, id="c1", name="write_file", arguments='{"path": "a.txt", '),
        fragment(0, id="c1", name="write_file", arguments='"content": "hi"}'),
    )
    call = reply.tool_calls[0]
    assert call.name == "write_file"
    assert call.arguments == {"path": "a.txt", "content": "hi"}


def test_name_streamed_in_pieces_is_joined():
    reply = accumulate(fragment(0, name="read_"), fragment(0, name="file"), fragment(0, arguments="{}"))
    assert reply.tool_calls[0].name == "read_file"


def test_legacy_function_call_becomes_a_tool_call():
    chunks = [
        {"choices": [{"delta": {"role": "assistant", "function_call": {"name": "run_shell", "arguments": ""}}}]},
        {"choices": [{"delta": {"function_call": {"arguments": '{"command": '}}}]},
        {"choices": [{"delta": {"function_call": {"arguments": '"ls"}'}}}]},
        {"choices": [{"delta": {}, "finish_reason": "function_call"}]},
    ]
    reply = accumulate(*(chunk_delta(c) for c in chunks))
    assert len(reply.tool_calls) == 1
    call = reply.tool_calls[0]
    assert (call.name, call.arguments, call.error) == ("run_shell", {"command": "ls"}, None)
    assert call.id  # a tool result needs an id to refer to
    assert reply.finish_reason == "function_call"


def test_openai_chunks_with_tool_calls_and_usage():
    chunks = [
        {"choices": [{"delta": {"content": "Let me look."}}]},
        {"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "call_9", "type": "function", "function": {"name": "read_file", "arguments": ""}}
        ]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"path":"x"}'}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}},
    ]
    reply = accumulate(*(chunk_delta(c) for c in chunks))
    assert reply.text == "Let me look."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("call_9", "read_file", {"path": "x"})]
    assert reply.finish_reason == "tool_calls"
    assert reply.usage == Usage(50, 9)


def test_reasoning_content_is_thinking():
    reply = accumulate(chunk_delta({"choices": [{"delta": {"reasoning_content": "hmm"}}]}),
                      chunk_delta({"choices": [{"delta": {"reasoning": " ok"}}]}))
    assert reply.thinking == "hmm ok"
    assert reply.text == ""


def test_double_encoded_arguments_are_repaired():
    inner = json.dumps({"path": "a.py", "line": 3})
    reply = accumulate(fragment(0, id="c", name="read_file", arguments=json.dumps(inner)))
    call = reply.tool_calls[0]
    assert call.arguments == {"path": "a.py", "line": 3}
    assert call.error is None


def test_invalid_json_arguments_give_a_call_with_an_error():
    reply = accumulate(fragment(0, id="c", name="write_file", arguments='{"path": "a.txt", "content": '))
    call = reply.tool_calls[0]
    assert call.name == "write_file"
    assert call.arguments == {}
    assert "not valid JSON" in call.error
    assert '{"path": "a.txt"' in call.error  # the model is shown what it sent


def test_arguments_that_are_not_an_object_are_an_error():
    arguments, error = decode_arguments("[1, 2]")
    assert arguments == {}
    assert "JSON object" in error


def test_empty_arguments_mean_no_arguments():
    assert decode_arguments("") == ({}, None)
    assert decode_arguments("  ") == ({}, None)
    assert decode_arguments(None) == ({}, None)


def test_ollama_dict_arguments_are_used_as_they_are():
    lines = [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": {"path": "a"}}},
            {"function": {"name": "list_files", "arguments": {}}},
        ]}, "done": False},
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": {"path": "b"}}},
        ]}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
         "prompt_eval_count": 40, "eval_count": 12},
    ]
    seen = 0
    deltas = []
    for line in lines:
        delta = line_delta(line, seen)
        seen += len(delta.tool_calls or [])
        deltas.append(delta)
    reply = accumulate(*deltas)
    assert [(c.name, c.arguments, c.error) for c in reply.tool_calls] == [
        ("read_file", {"path": "a"}, None),
        ("list_files", {}, None),
        ("read_file", {"path": "b"}, None),
    ]
    assert len({c.id for c in reply.tool_calls}) == 3
    assert reply.finish_reason == "stop"
    assert reply.usage == Usage(40, 12)


# --- tool-call ids: joined when streamed in pieces, never doubled


def test_an_id_in_pieces_is_joined_sent_once_kept_and_repeated_not_doubled():
    pieces = accumulate(fragment(0, id="call_", name="read_file", arguments='{"file_path"'),
                        fragment(0, id="9f3a"), fragment(0, id="b2", arguments=': "a.py"}'))
    assert pieces.tool_calls[0].id == "call_9f3ab2"
    once = accumulate(fragment(0, id="call_1", name="read_file", arguments="{}"), fragment(0, arguments=""))
    assert once.tool_calls[0].id == "call_1"
    repeated = accumulate(*(fragment(0, id="call_1", name="read_file", arguments=part) for part in ("{", "}")))
    assert repeated.tool_calls[0].id == "call_1"
    growing = accumulate(fragment(0, id="call", name="read_file"), fragment(0, id="call_12", arguments="{}"))
    assert growing.tool_calls[0].id == "call_12"  # the id so far sent again, longer: taken whole
