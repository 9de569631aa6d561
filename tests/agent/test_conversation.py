"""The message contract: how calls and results are written into the conversation and sent."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from ayder_cli.agent.conversation import NO_RESULT, Conversation, render_result
from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.llm.wire_types import Reply


def call(call_id: str = "call_0", name: str = "read_file", **arguments) -> ToolCall:
    return ToolCall(call_id, name, arguments or {"file_path": "a.py"})


def with_calls(*calls: ToolCall, text: str = "") -> Reply:
    return Reply(text=text, tool_calls=list(calls), finish_reason="tool_calls")


def check_valid(messages: list[dict]) -> None:
    """What servers insist on: each tool message answers a call of the assistant message before it,
    once, and every call is answered before anything else comes."""
    pending: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in pending, f"orphan tool message: {message}"
            pending.remove(message["tool_call_id"])
            continue
        assert not pending, f"calls without results before {message}"
        if message["role"] == "assistant":
            pending = [c["id"] for c in message.get("tool_calls", ())]
    assert not pending, "calls without results at the end"


# --- for_request


def test_system_prompt_first_and_overridable():
    conversation = Conversation("be brief")
    conversation.add_user("hi")
    assert conversation.for_request() == [{"role": "system", "content": "be brief"},
                                          {"role": "user", "content": "hi"}]
    assert conversation.for_request("taught")[0] == {"role": "system", "content": "taught"}
    assert Conversation("").for_request() == []


def test_an_orphan_tool_message_is_never_sent():
    conversation = Conversation("s")
    conversation.add_user("q")
    conversation.messages.append({"role": "tool", "tool_call_id": "call_gone", "content": "stale"})
    conversation.add_assistant(Reply(text="answer"))
    sent = conversation.for_request()
    assert [m["role"] for m in sent] == ["system", "user", "assistant"]
    assert "stale" not in json.dumps(sent)


def test_a_result_for_another_call_id_is_dropped_and_the_call_gets_a_stand_in():
    conversation = Conversation("s")
    conversation.add_user("q")
    conversation.add_assistant(with_calls(call("call_a")))
    conversation.messages.append({"role": "tool", "tool_call_id": "call_b", "content": "wrong"})
    sent = conversation.for_request()
    check_valid(sent)
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_a", "name": "read_file", "content": NO_RESULT}
    assert "wrong" not in json.dumps(sent)


def test_a_second_result_for_the_same_call_is_dropped():
    conversation = Conversation("s")
    conversation.add_assistant(with_calls(call("call_a")))
    conversation.add_results([call("call_a")], [ToolResult(ok=True, output="first")], native=True)
    conversation.messages.append({"role": "tool", "tool_call_id": "call_a", "content": "again"})
    sent = conversation.for_request()
    check_valid(sent)
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["ok:\nfirst"]


def test_calls_without_results_get_stand_ins_before_the_next_message():
    conversation = Conversation("s")
    conversation.add_user("q")
    conversation.add_assistant(with_calls(call("call_a"), call("call_b")))
    conversation.add_results([call("call_a")], [ToolResult(ok=True, output="A")], native=True)
    conversation.add_user("never mind")  # e.g. Ctrl-C before call_b ran, then a new prompt
    sent = conversation.for_request()
    check_valid(sent)
    roles = [(m["role"], m.get("tool_call_id")) for m in sent]
    assert roles == [("system", None), ("user", None), ("assistant", None), ("tool", "call_a"),
                     ("tool", "call_b"), ("user", None)]
    assert sent[4]["content"] == NO_RESULT
    # The history itself is not changed: the stand-ins are made for each request.
    assert len(conversation.messages) == 4


def test_calls_without_results_at_the_end_get_stand_ins():
    conversation = Conversation("s")
    conversation.add_assistant(with_calls(call("call_a"), call("call_b")))
    sent = conversation.for_request()
    check_valid(sent)
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ["call_a", "call_b"]


def test_the_same_call_id_in_two_rounds_is_answered_in_each():
    """Ollama sends calls without ids, so every round numbers its calls from call_0 again."""
    conversation = Conversation("s")
    for output in ("one", "two"):
        conversation.add_assistant(with_calls(call("call_0")))
        conversation.add_results([call("call_0")], [ToolResult(ok=True, output=output)], native=True)
    sent = conversation.for_request()
    check_valid(sent)
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["ok:\none", "ok:\ntwo"]


# --- add_assistant


def test_native_calls_are_kept_with_their_arguments_as_a_json_string():
    conversation = Conversation("s")
    conversation.add_assistant(with_calls(call("call_a", file_path="é.py", start_line=3), text="Looking."))
    [message] = conversation.messages
    assert message["content"] == "Looking."
    [kept] = message["tool_calls"]
    assert kept["id"] == "call_a" and kept["type"] == "function"
    assert kept["function"]["name"] == "read_file"
    assert isinstance(kept["function"]["arguments"], str)
    assert json.loads(kept["function"]["arguments"]) == {"file_path": "é.py", "start_line": 3}
    assert "é" in kept["function"]["arguments"]  # not \\u-escaped: fewer tokens


def test_an_interrupted_reply_keeps_its_text_but_not_its_calls():
    conversation = Conversation("s")
    reply = with_calls(call("call_a"), text="partial")
    reply.interrupted = True
    conversation.add_assistant(reply)
    [message] = conversation.messages
    assert "tool_calls" not in message
    assert message["content"].startswith("partial") and "interrupted" in message["content"]
    check_valid(conversation.for_request())


# --- add_results


def test_native_results_one_tool_message_per_call_in_order_then_notes():
    conversation = Conversation("s")
    calls = [call("call_a"), call("call_b", file_path="b.py")]
    conversation.add_assistant(with_calls(*calls))
    conversation.add_results(calls, [ToolResult(ok=True, output="A"), ToolResult.failure("no such file: b.py")],
                             native=True, notes=["fix the other call"])
    assert conversation.messages[1:] == [
        {"role": "tool", "tool_call_id": "call_a", "name": "read_file", "content": "ok:\nA"},
        {"role": "tool", "tool_call_id": "call_b", "name": "read_file", "content": "error: no such file: b.py"},
        {"role": "user", "content": "fix the other call"},
    ]
    check_valid(conversation.for_request())


def test_text_results_are_one_user_message_naming_each_call():
    conversation = Conversation("s")
    conversation.add_assistant(Reply(text="[CALL] list_files {}\n[CALL] read_file {...}"))
    calls = [ToolCall("call_0", "list_files", {}), ToolCall("call_1", "read_file", {"file_path": "a.py"})]
    conversation.add_results(calls, [ToolResult(ok=True, output="a.py"), ToolResult.failure("boom")],
                             native=False, notes=["a note"])
    [message] = conversation.messages[1:]
    assert message["role"] == "user"
    assert message["content"] == (
        "Tool results:\n\n"
        "[list_files {}] ok:\na.py\n\n"
        '[read_file {"file_path": "a.py"}] error: boom\n\n'
        "a note"
    )
    sent = conversation.for_request()
    check_valid(sent)
    assert not [m for m in sent if m["role"] == "tool"]


def test_text_form_with_only_notes_has_no_results_header():
    conversation = Conversation("s")
    conversation.add_results([], [], native=False, notes=["These tool calls could not be run: ..."])
    assert conversation.messages == [{"role": "user", "content": "These tool calls could not be run: ..."}]


def test_render_result():
    assert render_result(ToolResult(ok=True, output="text")) == "ok:\ntext"
    assert render_result(ToolResult(ok=True)) == "ok"
    assert render_result(ToolResult.failure("bad path")) == "error: bad path"


# --- size and undo


def test_estimated_tokens_grow_with_content_and_calls():
    conversation = Conversation("system prompt")
    sizes = [conversation.estimated_tokens()]
    conversation.add_user("x" * 400)
    sizes.append(conversation.estimated_tokens())
    conversation.add_assistant(with_calls(call("call_a", file_path="y" * 400)))
    sizes.append(conversation.estimated_tokens())
    conversation.add_results([call("call_a")], [ToolResult(ok=True, output="z" * 4000)], native=True)
    sizes.append(conversation.estimated_tokens())
    assert sizes == sorted(sizes) and len(set(sizes)) == 4
    assert sizes[1] - sizes[0] >= 100  # about four characters a token
    assert sizes[3] - sizes[2] >= 950  # the result replaces a short stand-in


def test_drop_last_user_removes_only_a_user_message():
    conversation = Conversation("s")
    conversation.add_user("q")
    conversation.add_assistant(Reply(text="a"))
    conversation.drop_last_user()
    assert len(conversation.messages) == 2
    conversation.add_user("again")
    conversation.drop_last_user()
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]


# --- any history gives a valid request

ids = st.sampled_from(["call_0", "call_1", "call_x"])
steps = st.one_of(
    st.tuples(st.just("user"), st.just(None)),
    st.tuples(st.just("assistant"), st.lists(ids, max_size=3, unique=True)),
    st.tuples(st.just("native"), st.lists(ids, max_size=3, unique=True)),
    st.tuples(st.just("orphan"), ids),
    st.tuples(st.just("text"), st.integers(0, 2)),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(steps, max_size=12))
def test_for_request_is_always_valid(history):
    conversation = Conversation("s")
    for kind, value in history:
        if kind == "user":
            conversation.add_user("u")
        elif kind == "assistant":
            conversation.add_assistant(with_calls(*(call(i) for i in value)))
        elif kind == "native":
            conversation.add_results([call(i) for i in value], [ToolResult(ok=True)] * len(value), native=True)
        elif kind == "orphan":
            conversation.messages.append({"role": "tool", "tool_call_id": value, "content": "r"})
        else:
            calls = [call(f"call_{n}") for n in range(value)]
            conversation.add_results(calls, [ToolResult(ok=True)] * value, native=False)
    check_valid(conversation.for_request())


def test_the_size_of_calls_is_their_written_length_and_long_arguments_are_measured_not_written():
    from ayder_cli.agent.conversation import LONG_ARGUMENTS, calls_chars

    conversation = Conversation("s")
    conversation.add_assistant(with_calls(call("c1"), call("c2", "write_file", file_path="b.py", content="x = 1\n")))
    calls = conversation.messages[-1]["tool_calls"]
    assert calls_chars(calls) == len(str(calls))  # ordinary calls: exactly what the estimate counted before
    assert calls_chars(None) == calls_chars([]) == 0
    huge = "line with 'quotes'\n" * (LONG_ARGUMENTS // 4)  # a whole file given to write_file
    conversation.add_assistant(with_calls(call("c3", "write_file", file_path="big.py", content=huge)))
    calls = conversation.messages[-1]["tool_calls"]
    arguments = calls[0]["function"]["arguments"]
    assert len(arguments) < calls_chars(calls) <= len(str(calls))  # the arguments as sent, not their repr
