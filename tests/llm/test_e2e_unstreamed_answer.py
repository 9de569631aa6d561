"""A streamed request answered with the whole reply as one JSON body (a server or proxy that ignores
"stream": OpenAI's chat.completion object, Ollama's single object): read as the complete answer it
is, text and tool calls, never called a cut stream."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args

BODIES = pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "indented"])


@BODIES
def test_a_whole_json_answer_to_a_streamed_request_is_the_answer(fake, run_ayder, protocol, indent):
    fake.queue(Reply(text="The answer is 42.", usage=(120, 6), unstreamed=True, unstreamed_indent=indent))
    result = run_ayder(*server_args(fake, protocol), "-m", "m", "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The answer is 42.\n"
    assert "cut" not in result.stderr and "ended before" not in result.stderr
    assert len(fake.chat_requests()) == 1 and fake.chat_requests()[0]["body"]["stream"] is True  # not asked again


@BODIES
def test_a_tool_call_in_a_whole_json_answer_runs(fake, run_ayder, protocol, indent, notes):
    fake.queue(Reply.calling("read_file", {"file_path": "notes.txt"}, unstreamed=True, unstreamed_indent=indent),
               Reply(text="Read it.", unstreamed=True, unstreamed_indent=indent))
    result = run_ayder(*server_args(fake, protocol), "-m", "m", "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Read it.\n"
    second = fake.chat_requests()[1]["body"]["messages"]
    assert any(notes.read_text().splitlines()[0] in str(m.get("content")) for m in second if m["role"] == "tool")
