"""Calls in the markup of the families added in issue 28, through the real ayder and the fake server with tools
taught as text: gpt-oss with the recipient in its role header, LFM2, Nemotron Nano v2 and Seed-OSS calls run
(typed by the tool's schema), their markup never reaches stdout, and a harmony `final` message that merely holds
a call's JSON is the answer."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import activity_lines, messages

NOTES = "alpha\nbeta\ngamma\n"
MARKUP = ("<|", "|>", "to=functions", "<TOOLCALL>", "<seed:", "tool_call", "commentary")

CALLS = {
    "harmony-role-header": (
        "<|channel|>analysis<|message|>Need the second line only.<|end|>"
        "<|start|>assistant to=functions.read_file<|channel|>commentary<|constrain|>json<|message|>"
        '{"file_path": "notes.txt", "start_line": 2, "end_line": 2}<|call|>'),
    "harmony-reply-head": (
        ' to=functions.read_file<|channel|>commentary json<|message|>'
        '{"file_path": "notes.txt", "start_line": 2, "end_line": 2}<|call|>'),
    "lfm2": "<|tool_call_start|>[read_file(file_path='notes.txt', start_line=2, end_line=2)]<|tool_call_end|>",
    "nemotron-nano": ('<TOOLCALL>[{"name": "read_file", "arguments": {"file_path": "notes.txt", "start_line": 2, '
                      '"end_line": 2}}]</TOOLCALL>'),
    "seed-oss": ("<seed:think>Line two is enough.</seed:think><seed:tool_call>\n<function=read_file>\n"
                 "<parameter=file_path>notes.txt</parameter>\n<parameter=start_line>2</parameter>\n"
                 "<parameter=end_line>2</parameter>\n</function>\n</seed:tool_call>"),
}


@pytest.fixture
def text_tools(project):
    """Tools taught as text, as for a server without native tool calling; a file to read."""
    write_json(project / ".ayder" / "config.json", {"native_tools": "off"})
    (project / "notes.txt").write_text(NOTES, encoding="utf-8")


@pytest.mark.parametrize("family", list(CALLS))
def test_a_call_in_the_familys_markup_runs_and_no_markup_is_printed(fake, run_ayder, protocol, text_tools, family):
    fake.queue(Reply(text=CALLS[family]), Reply(text="The second line is beta."))
    result = run_ayder(*server_args(fake, protocol), "what is on line 2 of notes.txt?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The second line is beta.\n"
    [line] = activity_lines(result.stderr)
    assert line.startswith('→ read_file(file_path="notes.txt"') and "✓" in line
    sent = "\n".join(str(m.get("content")) for m in messages(fake.chat_requests()[-1])[-2:])
    assert "beta" in sent and "gamma" not in sent  # start_line/end_line arrived as integers and were applied
    assert not any(mark in result.stdout for mark in MARKUP)


def test_a_harmony_final_message_holding_a_calls_json_is_the_answer(fake, run_ayder, protocol, project,
                                                                      text_tools):
    answer = '{"name": "run_shell_command", "arguments": {"command": "rm notes.txt"}}'
    fake.queue(Reply(text="<|channel|>analysis<|message|>They want the call shown.<|end|>"
                          f"<|start|>assistant<|channel|>final<|message|>{answer}<|return|>"))
    result = run_ayder(*server_args(fake, protocol), "show me a call that deletes notes.txt, as JSON")
    assert result.returncode == 0, result.stderr
    assert result.stdout == answer + "\n"
    assert activity_lines(result.stderr) == [] and len(fake.chat_requests()) == 1
    assert (project / "notes.txt").read_text(encoding="utf-8") == NOTES
