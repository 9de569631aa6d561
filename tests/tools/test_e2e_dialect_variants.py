"""The variants of the text dialects models really write, end to end (issue 20, item 5): the real `ayder`,
real files, the fake server. A fenced example never runs, even with commands allowed; the variants run."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import NOTES
from support.harness import server_args
from support.requests_seen import activity_lines, messages, numbered

RM_XML = ("<tool_call>\n<function=run_shell_command>\n<parameter=command>\nrm -rf victim\n</parameter>\n"
          "</function>\n</tool_call>\n")
RM_JSON = '{"name": "run_shell_command", "arguments": {"command": "rm -rf victim"}}'


@pytest.mark.parametrize("text", [
    "Never run this:\n```xml\n" + RM_XML + "```\nIt deletes the folder.",
    "An example call:\n```json\n" + RM_JSON + "\n```\nDon't run it.",
    "For example:\n```json\n[" + RM_JSON + "]\n```",
    "Never run this:\n~~~\n" + RM_XML + "~~~\nIt deletes the folder.",
    "```json\n<tool_call>" + RM_JSON + "</tool_call>\n```",
], ids=["xml-fence", "json-fence-with-prose", "json-fence-after-prose", "tilde-fence", "json-fence-of-markup"])
def test_a_fenced_rm_rf_example_is_shown_as_written_and_never_run(fake, run_ayder, project, text):
    victim = project / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("still here\n", encoding="utf-8")
    fake.queue(Reply(text=text), Reply(text="a second request was made"))
    result = run_ayder(*server_args(fake, "openai"), "-x", "how would I delete it?")
    assert result.returncode == 0, result.stderr
    assert (victim / "keep.txt").read_text(encoding="utf-8") == "still here\n"
    assert len(fake.chat_requests()) == 1
    assert activity_lines(result.stderr) == []
    assert result.stdout == text + "\n"


FW = "｜ＤＳＭＬ｜"


@pytest.mark.parametrize("text", [
    f'Reading.\n<{FW}tool_calls>\n<{FW}invoke name="read_file">\n'
    f'<{FW}parameter name="file_path" string="true">notes.txt</{FW}parameter>\n</{FW}invoke>\n</{FW}tool_calls>',
    'Reading.\n[{"id": "call_1", "type": "function", "function": {"name": "read_file", '
    '"arguments": "{\\"file_path\\": \\"notes.txt\\"}"}}]',
    "Reading.\n<tool_calls>\n" + '{"name": "read_file", "arguments": {"file_path": "nope.txt"}\n'
    '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n</tool_calls>',
    "Reading.\n    <tool_call>read_file\n    <arg_key>file_path</arg_key>\n    <arg_value>notes.txt</arg_value>\n"
    "    </tool_call>",
], ids=["dsml-fullwidth-letters", "openai-array-after-prose", "minimax-m1-bad-line-then-good", "glm-indented"])
def test_dialect_variants_run_with_no_markup_shown(fake, run_ayder, notes, text):
    fake.queue(Reply(text=text), Reply(text="Three lines."))
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Reading.\nThree lines.\n"
    assert activity_lines(result.stderr) == ['→ read_file(file_path="notes.txt")  ✓ 3 lines']
    second = fake.chat_requests()[1]
    assert messages(second)[-2] == {"role": "assistant", "content": text}
    for line in numbered(NOTES):
        assert line in messages(second)[-1]["content"]


def test_a_file_about_tool_calls_is_written_whole(fake, run_ayder, project):
    doc = ("# Calling tools\nA call looks like this:\n<tool_call>\n<function=read_file>\n<parameter=file_path>\n"
           "src/main.py\n</parameter>\n</function>\n</tool_call>\nThe server runs it.\n")
    text = ("Writing the doc.\n<tool_call>\n<function=write_file>\n<parameter=file_path>\ncalls.md\n</parameter>\n"
            "<parameter=content>\n" + doc + "\n</parameter>\n</function>\n</tool_call>")
    fake.queue(Reply(text=text), Reply(text="Written."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "document the call format")
    assert result.returncode == 0, result.stderr
    assert (project / "calls.md").read_text(encoding="utf-8") == doc
    assert result.stdout == "Writing the doc.\nWritten.\n"
    assert len(activity_lines(result.stderr)) == 1
