"""Tool round trips end to end: the real `ayder` process, real files, the fake server.

What the server receives in the request after a tool call is the contract the
model sees, so most assertions are on that request; the rest are on what the
user sees (stdout: the answer only; stderr: one activity line per call).
"""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.files import NOTES, write_json
from support.harness import server_args
from support.requests_seen import activity_lines, all_request_text, messages, numbered, of_role, tool_names

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"


# --- native tool calls


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_native_call_round_trip(fake, run_ayder, protocol, notes, stream):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"}, "id": "call_a1"}]),
        Reply(text="The notes have three lines."),
    )
    result = run_ayder(*server_args(fake, protocol), *([] if stream else ["--no-stream"]), "what is in notes.txt?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The notes have three lines.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']

    first, second = fake.chat_requests()
    assert tool_names(first)[:2] == ["read_file", "list_files"]
    assert {"write_file", "run_shell_command", "search_codebase"} <= set(tool_names(first))
    assert first["body"]["tools"][0]["function"]["parameters"]["required"] == ["file_path"]

    assistant = of_role(second, "assistant")[-1]
    [call] = assistant["tool_calls"]
    assert call["function"]["name"] == "read_file"
    arguments = call["function"]["arguments"]
    if protocol == "openai":
        assert isinstance(arguments, str) and json.loads(arguments) == {"file_path": "notes.txt"}
        call_id = "call_a1"
    else:  # Ollama wants the arguments as an object; its calls carry no id, so ayder numbers them
        assert arguments == {"file_path": "notes.txt"}
        call_id = call["id"]
    assert call["id"] == call_id
    [tool] = of_role(second, "tool")
    assert tool["tool_call_id"] == call_id
    for line in numbered(NOTES):
        assert line in tool["content"]
    # The tool result comes right after the call, and nothing else was added.
    assert messages(second)[-2:] == [assistant, tool]
    assert second["body"]["tools"] == first["body"]["tools"]


def test_two_native_calls_in_one_reply_get_two_results_in_order(fake, run_ayder, protocol, notes, project):
    (project / "b.txt").write_text("bee\n", encoding="utf-8")
    fake.queue(
        Reply(text="", tool_calls=[
            {"name": "read_file", "arguments": {"file_path": "b.txt"}, "id": "call_b"},
            {"name": "read_file", "arguments": {"file_path": "notes.txt"}, "id": "call_n"},
        ]),
        Reply(text="Both read."),
    )
    result = run_ayder(*server_args(fake, protocol), "read both")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Both read.\n"
    assert activity_lines(result.stderr) == [
        '→ read_file(file_path="b.txt")  ✓ 1 line',
        '→ read_file(file_path="notes.txt")  ✓ 3 lines',
    ]
    second = fake.chat_requests()[1]
    ids = [call["id"] for call in of_role(second, "assistant")[-1]["tool_calls"]]
    if protocol == "openai":
        assert ids == ["call_b", "call_n"]
    assert len(set(ids)) == 2
    tools = of_role(second, "tool")
    assert [t["tool_call_id"] for t in tools] == ids
    assert "bee" in tools[0]["content"] and "bee" not in tools[1]["content"]
    assert "second line" in tools[1]["content"]


def test_unknown_native_tool_gets_an_error_naming_the_nearest_and_the_loop_goes_on(fake, run_ayder, protocol):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_fil", "arguments": {"file_path": "x"}, "id": "call_u"}]),
        Reply(text="Sorry, retrying is not needed."),
    )
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Sorry, retrying is not needed.\n"
    [tool] = of_role(fake.chat_requests()[1], "tool")
    assert tool["content"].startswith("error:")
    assert "read_fil" in tool["content"] and "did you mean read_file" in tool["content"]
    assert len(fake.chat_requests()) == 2


def test_native_call_with_broken_arguments_is_not_run_and_the_model_is_told(fake, run_ayder, notes):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": '{"file_path": "notes.txt', "id": "call_x"}]),
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"}, "id": "call_y"}]),
        Reply(text="Done."),
    )
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']
    second = fake.chat_requests()[1]
    [tool] = of_role(second, "tool")
    assert tool["tool_call_id"] == "call_x"
    assert tool["content"].startswith("error: not run") and "not valid JSON" in tool["content"]
    correction = messages(second)[-1]
    assert correction["role"] == "user" and "[CALL] tool_name {" in correction["content"]
    third = fake.chat_requests()[2]
    assert "second line" in of_role(third, "tool")[-1]["content"]


# --- calls written as text


def assert_text_round_trip(fake, result, call_text: str, expected_in_result: list[str]) -> dict:
    """The common checks of a text-format round trip; returns the second request."""
    assert result.returncode == 0, result.stderr
    second = fake.chat_requests()[1]
    assert messages(second)[-2] == {"role": "assistant", "content": call_text}
    results = messages(second)[-1]
    assert results["role"] == "user"
    assert results["content"].startswith("Tool results:")
    for expected in expected_in_result:
        assert expected in results["content"]
    assert not of_role(second, "tool")
    return second


def test_qwen3_xml_call_round_trip(fake, run_ayder, protocol, notes):
    text = ("Let me read the notes.\n<tool_call>\n<function=read_file>\n<parameter=file_path>\nnotes.txt\n"
            "</parameter>\n</function>\n</tool_call>")
    fake.queue(Reply(text=text), Reply(text="Three lines."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert_text_round_trip(fake, result, text, ["read_file", "notes.txt", *numbered(NOTES)])
    assert result.stdout == "Let me read the notes.\nThree lines.\n"  # the text before the call, not the call
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']


def test_xml_parameters_are_typed_by_the_schema(fake, run_ayder, notes):
    text = ("<function=read_file>\n<parameter=file_path>\nnotes.txt\n</parameter>\n"
            "<parameter=start_line>\n2\n</parameter>\n</function>")
    fake.queue(Reply(text=text), Reply(text="Two more lines."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    second = assert_text_round_trip(fake, result, text, ['"start_line": 2}', *numbered(NOTES)[1:]])
    assert numbered(NOTES)[0] not in messages(second)[-1]["content"]
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt", start_line=2)  ✓ 2 lines']
    assert result.stdout == "Two more lines.\n"


def test_call_line_round_trip(fake, run_ayder, protocol, notes, project):
    (project / "src").mkdir()
    fake.queue(Reply(text="[CALL] list_files {}"), Reply(text="A notes file and src."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert_text_round_trip(fake, result, "[CALL] list_files {}", ["[list_files {}]", "notes.txt", "src/"])
    assert result.stdout == "A notes file and src.\n"
    assert activity_lines(result.stderr) == ["→ list_files()  ✓ 2 entries"]


@pytest.mark.parametrize("arguments", [
    '{"file_path": "notes.txt"}',
    '"{\\"file_path\\": \\"notes.txt\\"}"',  # the arguments object encoded as a string
], ids=["object", "string"])
def test_hermes_call_round_trip(fake, run_ayder, protocol, notes, arguments):
    text = f'<tool_call>\n{{"name": "read_file", "arguments": {arguments}}}\n</tool_call>'
    fake.queue(Reply(text=text), Reply(text="Read it."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert_text_round_trip(fake, result, text, numbered(NOTES))
    assert result.stdout == "Read it.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']


@pytest.mark.parametrize("text", [
    "Reading.\n<tool_call>read_file\n<arg_key>file_path</arg_key>\n<arg_value>notes.txt</arg_value>\n</tool_call>",
    "Reading.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"file_path\": \"notes.txt\"}"
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
    "Reading.\n<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>"
    "{\"file_path\": \"notes.txt\"}<|tool_call_end|><|tool_calls_section_end|>",
    "<|channel|>analysis<|message|>The user wants the notes.<|end|><|start|>assistant<|channel|>final<|message|>"
    "Reading.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>"
    "{\"file_path\": \"notes.txt\"}<|call|>",
    "Reading.\n[TOOL_CALLS]read_file[ARGS]{\"file_path\": \"notes.txt\"}",
    "Reading.\n<function=read_file>notes.txt</function>",
], ids=["glm", "deepseek-v3.1", "kimi-k2", "harmony", "mistral-named", "lazy-parameter"])
def test_open_model_dialects_round_trip_with_no_markup_shown(fake, run_ayder, notes, text):
    fake.queue(Reply(text=text), Reply(text="Three lines."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert_text_round_trip(fake, result, text, numbered(NOTES))
    assert result.stdout == "Reading.\nThree lines.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']


def test_native_array_argument_sent_as_a_json_string_is_decoded(fake, run_ayder, protocol, project):
    arguments = {"content": "use tabs", "tags": '["style", "python"]'}
    fake.queue(Reply(text="", tool_calls=[{"name": "save_memory", "arguments": arguments, "id": "call_m"}]),
               Reply(text="Noted."))
    result = run_ayder(*server_args(fake, protocol), "--tools", "memory", "-w", "q")
    assert result.returncode == 0, result.stderr
    [tool] = of_role(fake.chat_requests()[1], "tool")
    assert not tool["content"].startswith("error"), tool["content"]
    saved = (project / ".ayder" / "memory" / "memories.jsonl").read_text(encoding="utf-8")
    assert json.loads(saved.splitlines()[-1])["tags"] == ["style", "python"]


def test_text_calls_of_several_kinds_in_one_reply_get_one_results_message(fake, run_ayder, notes):
    text = 'Looking.\n[CALL] list_files {}\n```tool\n{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n```\n'
    fake.queue(Reply(text=text), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "q")
    second = assert_text_round_trip(fake, result, text, ["[list_files {}]", "[read_file {\"file_path\": \"notes.txt\"}]"])
    content = messages(second)[-1]["content"]
    assert content.index("[list_files") < content.index("[read_file")
    assert len(activity_lines(result.stderr)) == 2
    assert "```" not in result.stdout and "[CALL]" not in result.stdout


# --- malformed calls


def test_a_good_and_a_malformed_call_in_one_reply_share_one_message(fake, run_ayder, protocol, notes):
    fake.queue(Reply(text='[CALL] list_files {}\n[CALL] read_file {"file_path": '), Reply(text="Done."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    assert activity_lines(result.stderr) == ["→ list_files()  ✓ 1 entry"]
    second = fake.chat_requests()[1]
    content = messages(second)[-1]["content"]
    assert content.startswith("Tool results:") and "notes.txt" in content
    assert "could not be run" in content and "read_file" in content and "[CALL] tool_name {" in content
    assert content.index("notes.txt") < content.index("could not be run")


def test_malformed_call_gets_a_correction_then_the_corrected_call_runs(fake, run_ayder, protocol, project):
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    fake.queue(
        Reply(text='[CALL] read_file {"file_path": "a.txt'),
        Reply(text='[CALL] read_file {"file_path": "a.txt"}'),
        Reply(text="It says alpha."),
    )
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It says alpha.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="a.txt")  ✓ 1 line']
    second, third = fake.chat_requests()[1:]
    correction = messages(second)[-1]
    assert correction["role"] == "user"
    assert "read_file" in correction["content"] and "not valid JSON" in correction["content"]
    assert '[CALL] tool_name {"argument": "value"}' in correction["content"]
    results = messages(third)[-1]
    assert results["content"].startswith("Tool results:") and "alpha" in results["content"]


def test_three_malformed_replies_in_a_row_stop_the_loop(fake, run_ayder, protocol):
    fake.queue(*[Reply(text='[CALL] read_file {"file_path": "a.txt') for _ in range(3)],
               Reply(text="never requested"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert len(fake.chat_requests()) == 3
    assert "malformed tool calls 3 times" in result.stderr
    assert result.returncode == 1
    assert not activity_lines(result.stderr)
    assert "never requested" not in result.stdout


def test_a_stopped_run_counts_as_failed_in_a_script(fake, run_ayder):
    fake.queue(*[Reply(text="[CALL] read_file {") for _ in range(3)], Reply(text="Next answer."))
    result = run_ayder(*server_args(fake, "ollama"), input="first\nsecond\n")
    assert "malformed tool calls 3 times" in result.stderr
    assert "Next answer." in result.stdout  # the script goes on
    assert result.returncode == 1


def test_unknown_tool_in_a_text_call_gets_a_correction_naming_the_nearest(fake, run_ayder, protocol, notes):
    fake.queue(
        Reply(text='[CALL] read_fiel {"file_path": "notes.txt"}'),
        Reply(text='[CALL] read_file {"file_path": "notes.txt"}'),
        Reply(text="Fine."),
    )
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fine.\n"
    correction = messages(fake.chat_requests()[1])[-1]
    assert correction["role"] == "user"
    assert "read_fiel" in correction["content"] and "read_file" in correction["content"]
    assert len(activity_lines(result.stderr)) == 1
    assert "second line" in messages(fake.chat_requests()[2])[-1]["content"]


# --- think blocks are not calls


@pytest.mark.parametrize("think", [
    '<think>I could [CALL] read_file {"file_path": "secret.txt"}</think>The answer.',
    '<think>I could call:\n[CALL] read_file {"file_path": "secret.txt"}\n</think>The answer.',
    '<think><tool_call>{"name": "read_file", "arguments": {"file_path": "secret.txt"}}</tool_call></think>The answer.',
], ids=["inline", "own-line", "hermes"])
def test_a_call_inside_a_think_block_is_not_run(fake, run_ayder, protocol, project, think):
    (project / "secret.txt").write_text("do not read\n", encoding="utf-8")
    fake.queue(Reply(text=think), Reply(text="a second request was made"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer.\n"
    assert len(fake.chat_requests()) == 1
    assert not activity_lines(result.stderr)


@pytest.mark.parametrize("text", [
    'let me [CALL] read_file {"file_path": "x"}</think>Done.',
    'let me see\n[CALL] read_file {"file_path": "x"}\n</think>Done.',
], ids=["inline", "own-line"])
def test_a_call_before_a_lone_closing_think_tag_is_not_run(fake, run_ayder, protocol, project, text):
    (project / "x").write_text("do not read\n", encoding="utf-8")
    fake.queue(Reply(text=text),
               Reply(text="a second request was made"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 1
    assert not activity_lines(result.stderr)
    assert result.stdout.rstrip().endswith("Done.")
    assert "</think>" not in result.stdout


# --- the project root


@pytest.mark.parametrize("form", ["relative", "absolute"])
def test_paths_outside_the_project_are_refused_and_never_sent(fake, run_ayder, protocol, project, form):
    outside = project.parent / "outside.txt"
    outside.write_text(SECRET + "\n", encoding="utf-8")
    path = "../outside.txt" if form == "relative" else str(outside)
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": path}, "id": "call_o"}]),
        Reply(text=f'[CALL] read_file {{"file_path": {json.dumps(path)}, "start_line": 1}}'),  # not a repeat
        Reply(text="I cannot read it."),
    )
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I cannot read it.\n"
    [tool] = of_role(fake.chat_requests()[1], "tool")
    assert tool["content"].startswith("error:") and "outside the project root" in tool["content"]
    text_result = messages(fake.chat_requests()[2])[-1]["content"]
    assert text_result.startswith("Tool results:") and "outside the project root" in text_result
    assert SECRET not in all_request_text(fake)
    assert SECRET not in result.stdout + result.stderr
    lines = activity_lines(result.stderr)
    assert len(lines) == 2 and all("✗" in line and "outside the project root" in line for line in lines)


def test_list_files_outside_the_project_is_refused(fake, run_ayder, project):
    (project.parent / SECRET).write_text("x", encoding="utf-8")
    fake.queue(Reply(text='[CALL] list_files {"directory": ".."}'), Reply(text="No."))
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    assert "outside the project root" in messages(fake.chat_requests()[1])[-1]["content"]
    assert SECRET not in all_request_text(fake)


def test_symlinks_out_of_the_project_are_refused(fake, run_ayder, project):
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "o.txt").write_text(SECRET + "\n", encoding="utf-8")
    (project / "link.txt").symlink_to(outside / "o.txt")
    (project / "linkdir").symlink_to(outside)
    fake.queue(Reply(text='[CALL] read_file {"file_path": "link.txt"}\n[CALL] list_files {"directory": "linkdir"}\n'
                          '[CALL] read_file {"file_path": "linkdir/o.txt"}'), Reply(text="No."))
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    content = messages(fake.chat_requests()[1])[-1]["content"]
    assert content.count("outside the project root") == 3
    assert SECRET not in all_request_text(fake)
    assert all("✗" in line for line in activity_lines(result.stderr))


# --- the iteration budget


def endless_calls(count: int) -> list[Reply]:
    """A model that never stops calling; the calls alternate, so the guard against repeats stays quiet."""
    return [Reply(text="", tool_calls=[{"name": "list_files", "arguments": {"directory": "."} if n % 2 else {},
                                        "id": f"call_{n}"}])
            for n in range(count)]


@pytest.fixture
def no_checkpoints(project):
    """The budget's plain stop, without the checkpoint cycles that are on by default."""
    write_json(project / ".ayder" / "config.json", {"max_checkpoints": 0})


def test_the_iteration_budget_stops_the_loop(fake, run_ayder, protocol, notes, no_checkpoints):
    fake.queue(*endless_calls(5))
    result = run_ayder(*server_args(fake, protocol), "-I", "2", "q")
    assert len(fake.chat_requests()) == 3  # two rounds ran; the third reply's calls did not
    assert len(activity_lines(result.stderr)) == 2
    assert "-I 2" in result.stderr
    assert result.returncode == 1
    assert result.stdout == ""


def test_calls_refused_by_the_budget_are_answered_in_the_next_request(fake, run_ayder, protocol, notes,
                                                                     no_checkpoints):
    """A script's next prompt shows the model that its last calls were not run."""
    fake.queue(*endless_calls(3), Reply(text="Fine, stopping."))
    result = run_ayder(*server_args(fake, protocol), "-I", "2", input="look around\nnow stop\n")
    assert "-I 2" in result.stderr
    assert "Fine, stopping." in result.stdout
    fourth = fake.chat_requests()[3]
    tools = of_role(fourth, "tool")
    assert len(tools) == 3
    assert "not run" in tools[-1]["content"] and "iteration budget" in tools[-1]["content"]
    assert "notes.txt" in tools[0]["content"]
    assert messages(fourth)[-1] == {"role": "user", "content": "now stop"}


def test_the_budget_counts_per_message(fake, run_ayder, notes):
    fake.queue(*endless_calls(2), Reply(text="one"), *endless_calls(2), Reply(text="two"))
    result = run_ayder(*server_args(fake, "ollama"), "-I", "2", input="a\nb\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "one\ntwo\n"
    assert len(activity_lines(result.stderr)) == 4


# --- servers without native tool calling


def refusals(protocol: str) -> list[Reply]:
    """What a server without tools answers: one refusal (it does not name stream_options,
    so the OpenAI client does not ask again without that option)."""
    return [Reply(reject_tools=True)]


def test_a_failing_server_side_tool_parser_is_replaced_by_ayders_own(fake, run_ayder, notes):
    # The first round trip works natively; then the server's parser chokes on the model's output
    # (it would on every retry): that request goes again with the tools taught as text.
    parser_error = "Failed to parse tool call arguments as JSON: Expecting ',' delimiter"
    fake.queue(Reply(text="", tool_calls=[{"name": "list_files", "arguments": {}, "id": "call_l"}]),
               Reply(status=400, error=parser_error),
               Reply(text='[CALL] read_file {"file_path": "notes.txt"}'),
               Reply(text="Three lines."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Three lines.\n"
    assert "the server's tool-call parser failed; tools are now taught as text" in result.stderr
    requests = fake.chat_requests()
    assert tool_names(requests[1]) and not tool_names(requests[2])  # the same request, now without tools
    assert "[CALL]" in requests[2]["body"]["messages"][0]["content"]
    assert "second line" in messages(requests[3])[-1]["content"]


def test_a_parser_failure_is_not_retried_as_text_when_native_tools_are_required(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"native_tools": "on"})
    fake.queue(Reply(status=400, error="Failed to parse tool call arguments as JSON"))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 1
    assert "Failed to parse tool call" in result.stderr
    assert len(fake.chat_requests()) == 1


def test_a_refusal_is_remembered_so_the_next_run_starts_with_text_tools(fake, run_ayder, protocol, notes):
    fake.queue(*refusals(protocol), Reply(text="first run"))
    first = run_ayder(*server_args(fake, protocol), "q")
    assert "refused native tool calling" in first.stderr
    fake.queue(Reply(text="second run"))
    second = run_ayder(*server_args(fake, protocol), "-v", "q")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "second run\n"
    assert "tools are now taught as text" not in second.stderr  # not refused again: it was not asked
    assert "tools go as text: the server refused native tool calling (learned" in second.stderr
    last = fake.chat_requests()[-1]
    assert not tool_names(last) and "[CALL]" in messages(last)[0]["content"]


def test_native_tools_on_ignores_what_was_remembered(fake, run_ayder, project):
    fake.queue(*refusals("openai"), Reply(text="learned"))
    run_ayder(*server_args(fake, "openai"), "q")
    write_json(project / ".ayder" / "config.json", {"native_tools": "on"})
    fake.queue(Reply(text="native again"))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.stdout == "native again\n"
    assert tool_names(fake.chat_requests()[-1])


def test_server_refusing_tools_is_taught_the_call_format(fake, run_ayder, protocol, notes):
    fake.queue(*refusals(protocol), Reply(text='[CALL] read_file {"file_path": "notes.txt"}'),
               Reply(text="Three lines."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Three lines.\n"
    assert "refused native tool calling" in result.stderr
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']
    *refused, retry, third = fake.chat_requests()
    assert len(refused) == len(refusals(protocol))
    for request in refused:
        assert tool_names(request)[:2] == ["read_file", "list_files"]
    refused = refused[0]
    for request in (retry, third):
        assert "tools" not in request["body"]
        system = messages(request)[0]
        assert system["role"] == "system"
        assert "[CALL]" in system["content"] and "read_file" in system["content"]
        assert "list_files" in system["content"]
    assert messages(retry)[1:] == messages(refused)[1:]  # the same conversation, asked again
    assert "Tool results:" in messages(third)[-1]["content"] and "second line" in messages(third)[-1]["content"]


def test_native_tools_off_in_the_project_config(fake, run_ayder, protocol, project, notes):
    write_json(project / ".ayder" / "config.json", {"native_tools": "off"})
    fake.queue(Reply(text="[CALL] list_files {}"), Reply(text="Listed."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Listed.\n"
    assert "refused" not in result.stderr
    for request in fake.chat_requests():
        assert "tools" not in request["body"]
        system = messages(request)[0]["content"]
        assert "[CALL]" in system and "read_file" in system and "list_files" in system
    assert "notes.txt" in messages(fake.chat_requests()[1])[-1]["content"]


def test_native_tools_on_does_not_fall_back(fake, run_ayder, project, protocol):
    write_json(project / ".ayder" / "config.json", {"native_tools": "on"})
    fake.queue(*refusals(protocol), Reply(text="asked again without tools"))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 1
    assert "tools are not supported" in result.stderr
    assert "asked again without tools" not in result.stdout
    assert all(tool_names(request) for request in fake.chat_requests())


# --- a reply cut at max_tokens after a tool round trip


def test_length_cut_after_a_tool_round_trip_continues_and_joins(fake, run_ayder, protocol, notes):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "list_files", "arguments": {}, "id": "call_l"}]),
        Reply(text="The project holds", finish_reason="length"),
        Reply(text=" one file."),
    )
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The project holds one file.\n"
    third = fake.chat_requests()[2]
    assert messages(third)[-2] == {"role": "assistant", "content": "The project holds"}
    assert messages(third)[-1]["role"] == "user" and "Continue" in messages(third)[-1]["content"]
    assert [m["tool_call_id"] for m in of_role(third, "tool")] == [
        of_role(third, "assistant")[0]["tool_calls"][0]["id"]]


@pytest.mark.parametrize("cut", [
    "Saving it.\n<tool_call>\n<function=write_file>\n<parameter=file_path>\nnotes.txt\n</parameter>\n"
    "<parameter=content>\nonly the first\n",
    "Saving it.\n[CALL] write_file {\"file_path\": \"notes.txt\", \"content\": \"only the first",
    "Saving it.\n<tool_call>write_file<arg_key>file_path</arg_key><arg_value>notes.txt</arg_value>"
    "<arg_key>content</arg_key><arg_value>only the first\n",
], ids=["qwen3-xml", "call-line", "glm"])
def test_a_call_cut_off_by_max_tokens_is_not_run_and_the_file_is_kept(fake, run_ayder, notes, cut):
    fake.queue(Reply(text=cut, finish_reason="length"), Reply(text="I will write it again later."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "q")
    assert result.returncode == 0, result.stderr
    assert notes.read_text(encoding="utf-8") == NOTES
    assert activity_lines(result.stderr) == []
    told = messages(fake.chat_requests()[1])[-1]["content"]
    assert "could not be run" in told and "cut off" in told


def test_a_spent_budget_writes_a_checkpoint_and_goes_on_from_it(fake, run_ayder, protocol, notes, project):
    write_json(project / ".ayder" / "config.json", {"max_checkpoints": 1})
    summary = "Goal: tidy notes.txt. Done: listed the files. Next step: read notes.txt."
    fake.queue(*endless_calls(3), Reply(text=summary), *endless_calls(3))
    result = run_ayder(*server_args(fake, protocol), "-I", "2", "tidy up")
    requests = fake.chat_requests()
    assert len(requests) == 7  # 2 rounds, the refused 3rd, the summary, 2 rounds, the refused 3rd
    summary_request = requests[3]["body"]
    assert "tools" not in summary_request  # the summary is asked for without tools
    assert "checkpoint summary" in summary_request["messages"][-1]["content"]
    memory = (project / ".ayder" / "memory" / "current_memory.md").read_text()
    assert memory.startswith("# Checkpoint 1") and summary in memory
    fresh = messages(requests[4])
    assert [m["role"] for m in fresh] == ["system", "user"]  # no old turns
    assert summary in fresh[1]["content"] and "checkpoint 1" in fresh[1]["content"]
    assert "writing checkpoint 1" in result.stderr
    assert "stopped after 1 checkpoint" in result.stderr and result.returncode == 1
    assert result.stdout == ""  # the summary is not the answer
