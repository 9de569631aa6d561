"""The loop guard end to end: a model that makes the same calls reply after reply.

The second time in a row a call is not run: the model gets the earlier result
again with a note. The third time the turn stops, with a notice on stderr.
Counts are per user message, and a reply with any other call starts them again.
"""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.files import NOTES
from support.harness import server_args
from support.requests_seen import activity_lines, messages, numbered, of_role

from ayder_cli.agent.repeats import REPEAT_NOTE

READ_NOTES = {"name": "read_file", "arguments": {"file_path": "notes.txt"}}
STOP_NOTICE = 'the model repeated read_file(file_path="notes.txt") 3 times; stopped'


def call_reply(form: str, name: str, arguments: dict, n: int = 0) -> Reply:
    """One reply making one call, as a native tool call or written as a [CALL] line."""
    if form == "native":
        return Reply(text="", tool_calls=[{"name": name, "arguments": arguments, "id": f"call_{name}_{n}"}])
    return Reply(text=f"[CALL] {name} {json.dumps(arguments)}")


def last_result(request: dict, form: str) -> str:
    """What the model was told about the calls of its last reply."""
    if form == "native":
        return of_role(request, "tool")[-1]["content"]
    content = messages(request)[-1]["content"]
    assert content.startswith("Tool results:")
    return content


@pytest.mark.parametrize("form", ["native", "text"])
def test_the_same_call_three_times_runs_once_is_answered_again_then_stops(fake, run_ayder, protocol, notes, form):
    fake.queue(*[call_reply(form, "read_file", {"file_path": "notes.txt"}, n) for n in range(3)],
               Reply(text="never requested"))
    result = run_ayder(*server_args(fake, protocol), "what is in notes.txt?")

    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']  # ran once
    requests = fake.chat_requests()
    assert len(requests) == 3
    first_result, repeated = last_result(requests[1], form), last_result(requests[2], form)
    assert REPEAT_NOTE not in first_result
    assert REPEAT_NOTE in repeated
    for line in numbered(NOTES):
        assert line in first_result and line in repeated  # the earlier result, sent again
    assert 'the model repeated read_file(file_path="notes.txt"); not run again' in result.stderr
    assert STOP_NOTICE in result.stderr.splitlines()
    assert result.returncode == 1  # like every stop of the loop
    assert "never requested" not in result.stdout
    assert "Traceback" not in result.stderr


def test_a_repeated_failing_call_gets_its_error_again_with_the_note(fake, run_ayder):
    fake.queue(*[call_reply("native", "read_file", {"file_path": "missing.txt"}, n) for n in range(2)],
               Reply(text="It does not exist."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It does not exist.\n"
    assert len(activity_lines(result.stderr)) == 1
    first, repeated = (of_role(r, "tool")[-1]["content"] for r in fake.chat_requests()[1:])
    assert first.startswith("error:") and "missing.txt" in first
    assert repeated.startswith("error:") and REPEAT_NOTE in repeated and first[len("error: "):] in repeated


def test_after_the_stop_the_conversation_is_valid_for_the_next_message(fake, run_ayder, notes):
    fake.queue(*[call_reply("native", "read_file", {"file_path": "notes.txt"}, n) for n in range(3)],
               Reply(text="Sorry, here is the answer."))
    result = run_ayder(*server_args(fake, "openai"), input="read the notes\nand now?\n")
    assert STOP_NOTICE in result.stderr
    assert "Sorry, here is the answer." in result.stdout  # the script goes on
    assert result.returncode == 1  # the stopped entry counts as failed
    last = fake.chat_requests()[-1]
    call_ids = [call["id"] for m in of_role(last, "assistant") for call in m.get("tool_calls", ())]
    assert [m["tool_call_id"] for m in of_role(last, "tool")] == call_ids  # every call answered
    assert of_role(last, "tool")[-1]["content"].startswith("error: not run: the same call came 3 times")


@pytest.mark.parametrize("form", ["native", "text"])
def test_alternating_calls_are_not_repeats(fake, run_ayder, protocol, notes, project, form):
    (project / "b.txt").write_text("bee\n", encoding="utf-8")
    a, b = {"file_path": "notes.txt"}, {"file_path": "b.txt"}
    fake.queue(*[call_reply(form, "read_file", args, n) for n, args in enumerate([a, b, a, b])], Reply(text="Done."))
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    assert len(activity_lines(result.stderr)) == 4
    assert "repeated" not in result.stderr
    assert all(REPEAT_NOTE not in json.dumps(r["body"]) for r in fake.chat_requests())


def test_a_repeated_call_beside_a_new_one_runs_again(fake, run_ayder, project):
    """Edit, then test, reply after reply: the test call repeats, but what it sees has changed."""
    def edit_and_read(n: int) -> Reply:
        return Reply(text="", tool_calls=[
            {"name": "write_file", "arguments": {"file_path": "a.txt", "content": f"version {n}\n"}, "id": f"w{n}"},
            {"name": "read_file", "arguments": {"file_path": "a.txt"}, "id": f"r{n}"},
        ])

    fake.queue(edit_and_read(1), edit_and_read(2), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "q")
    assert result.returncode == 0, result.stderr
    assert len(activity_lines(result.stderr)) == 4
    assert "version 2" in of_role(fake.chat_requests()[2], "tool")[-1]["content"]
    assert "repeated" not in result.stderr


def test_polling_a_background_listing_is_not_repeating(fake, run_ayder):
    fake.queue(*[call_reply("native", "list_background_processes", {}, n) for n in range(3)], Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert len(activity_lines(result.stderr)) == 3
    assert "repeated" not in result.stderr


def test_counts_start_again_with_each_user_message(fake, run_ayder, protocol, notes):
    fake.queue(
        call_reply("native", "read_file", {"file_path": "notes.txt"}, 1),
        call_reply("native", "read_file", {"file_path": "notes.txt"}, 2),  # a repeat: answered, not run
        Reply(text="First."),
        call_reply("native", "read_file", {"file_path": "notes.txt"}, 3),  # a new message: runs
        call_reply("native", "read_file", {"file_path": "notes.txt"}, 4),  # a repeat again, not yet a stop
        Reply(text="Second."),
    )
    result = run_ayder(*server_args(fake, protocol), input="read the notes\nread them again\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "First.\nSecond.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines'] * 2
    assert result.stderr.count("not run again") == 2
    assert "stopped" not in result.stderr
    requests = fake.chat_requests()
    assert len(requests) == 6
    assert REPEAT_NOTE not in of_role(requests[4], "tool")[-1]["content"]  # the first call of message two ran
