"""Gemma 4, Kimi K3 and DeepSeek V4.1 calls end to end (issue 28): the real `ayder` in text mode (tools taught as
text, `native_tools: "off"`), real files, the fake server speaking OpenAI SSE and Ollama NDJSON. The call
runs, its result goes back, and the user sees the answer only: no markup, no thinking on stdout."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import NOTES, write_json
from support.harness import server_args
from support.requests_seen import activity_lines, messages, numbered

Q = '<|"|>'
O, C, S = "<|open|>", "<|close|>", "<|sep|>"
D = "｜DSML｜ "

REPLIES = {
    "gemma4": ("<|channel>thought\nThe user wants the notes, all of them.<channel|>Reading.\n"
               f"<|tool_call>call:read_file{{file_path:{Q}notes.txt{Q},start_line:{Q}2{Q}}}<tool_call|>"),
    "kimi-k3": (f"{O}think{S}The user wants the notes, all of them.{C}think{S}{O}response{S}Reading.\n{C}response{S}"
                f'{O}tools{S}{O}call tool="read_file" index="1"{S}'
                f'{O}argument key="file_path" type="string"{S}notes.txt{C}argument{S}'
                f'{O}argument key="start_line" type="number"{S}2{C}argument{S}{C}call{S}{C}tools{S}{C}message{S}'),
    "deepseek-v4.1": ("<think>The user wants the notes, all of them.</think>Reading.\n\n"
                      f'<{D}calls>\n<{D}invoke name="read_file">\n'
                      f'<{D}parameter name="file_path" string="true">notes.txt</{D}parameter>\n'
                      f'<{D}parameter name="start_line" string="false">2</{D}parameter>\n'
                      f"</{D}invoke>\n</{D}calls>"),
}


@pytest.mark.parametrize("family", REPLIES)
def test_a_call_runs_in_text_mode_with_only_the_answer_shown(fake, run_ayder, project, protocol, notes, family):
    write_json(project / ".ayder" / "config.json", {"native_tools": "off"})
    text = REPLIES[family]
    fake.queue(Reply(text=text), Reply(text="Two more lines."))
    result = run_ayder(*server_args(fake, protocol), "what is in notes.txt?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Reading.\nTwo more lines.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt", start_line=2)  ✓ 2 lines']
    first, second = fake.chat_requests()
    assert "tools" not in first["body"]  # taught as text: the model wrote the call in its own markup
    assert messages(second)[-2] == {"role": "assistant", "content": text}
    results = messages(second)[-1]
    assert results["role"] == "user" and results["content"].startswith("Tool results:")
    for line in numbered(NOTES)[1:]:
        assert line in results["content"]
    assert numbered(NOTES)[0] not in results["content"]
    assert "all of them" not in result.stdout  # the thinking is never the answer
