"""The tool arguments models really send, end to end: the file and directory aliases in native
calls, the tool's name on each result, and call ids streamed in pieces or repeated in every piece."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import sent_messages


@pytest.mark.parametrize("tool, arguments", [
    ("read_file", {"path": "notes.txt"}),
    ("read_file", {"file": "notes.txt"}),
    ("read_file", {"filename": "notes.txt"}),
    ("read_file", {"file_path": "notes.txt"}),
    ("list_files", {"path": "docs"}),
    ("list_files", {"dir": "docs"}),
    ("list_files", {"directory": "docs"}),
])
def test_file_and_directory_aliases_in_native_calls(fake, run_ayder, project, protocol, tool, arguments):
    (project / "notes.txt").write_text("the zebra line\n")
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_text("guide\n")
    fake.queue(Reply(tool_calls=[{"name": tool, "arguments": arguments}]), Reply(text="done"))
    result = run_ayder(*server_args(fake, protocol), "look")
    assert result.returncode == 0, result.stderr
    [tool_message] = [m for m in sent_messages(fake.chat_requests()[-1]) if m["role"] == "tool"]
    assert tool_message["content"].startswith("ok"), tool_message
    assert ("zebra" if tool == "read_file" else "guide.md") in tool_message["content"]


def test_tool_results_carry_the_tool_name_and_a_split_id_is_joined(fake, run_ayder, project):
    (project / "notes.txt").write_text("zebra\n")
    fake.queue(Reply(tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"},
                                  "id": "call_9f3ab27c41"}], id_pieces=3),
               Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "look")
    assert result.returncode == 0, result.stderr
    sent = sent_messages(fake.chat_requests()[-1])
    [assistant] = [m for m in sent if m["role"] == "assistant"]
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_9f3ab27c41"]
    [tool_message] = [m for m in sent if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_9f3ab27c41"
    assert tool_message["name"] == "read_file"
    assert "zebra" in tool_message["content"]


def test_an_id_repeated_in_every_fragment_is_not_doubled(fake, run_ayder, project):
    (project / "notes.txt").write_text("zebra\n")
    fake.queue(Reply(tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"},
                                  "id": "call_7"}], repeat_id=True),
               Reply(text="done"))
    assert run_ayder(*server_args(fake, "openai"), "look").returncode == 0
    [tool_message] = [m for m in sent_messages(fake.chat_requests()[-1]) if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_7"
