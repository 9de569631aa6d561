"""Slash commands as a terminal user meets them: /model's marks and warning, the completion menu's
help, /tools wrapped at word boundaries, counts that agree in number."""

from __future__ import annotations

from support.fakellm import Reply
from support.harness import server_args
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from ayder_cli.repl.commands import COMMANDS
from ayder_cli.terminal.safe_text import wrap_row
from ayder_cli.repl.line_input import command_completer
from ayder_cli.wording import counted


def test_model_list_warns_when_the_configured_model_is_not_served(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "-m", "not-here:1b", input="/model\n")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "  qwen2.5-coder:7b" in lines and "  llama3.2:3b" in lines
    assert not any(line.startswith("* ") for line in lines)
    assert "the configured model not-here:1b is not among the server's models" in result.stderr
    assert "/model NAME" in result.stderr


def test_model_list_marks_the_current_model_and_does_not_warn(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "-m", "llama3.2:3b", input="/model\n")
    assert "* llama3.2:3b" in result.stderr.splitlines()
    assert "not among" not in result.stderr


def test_completion_menu_shows_each_commands_short_help():
    completions = list(command_completer().get_completions(Document("/mo"), CompleteEvent()))
    assert [c.text for c in completions] == ["/model"]
    assert completions[0].display_meta_text == COMMANDS["model"].help
    names = {c.text: c.display_meta_text for c in command_completer().get_completions(Document("/"), CompleteEvent())}
    assert names["/exit"] == "leave ayder (Ctrl-D too)" and names["/quit"] == names["/exit"]


def test_the_completer_offers_checkpoint_and_not_its_old_name():
    offered = [c.text for c in command_completer().get_completions(Document("/"), CompleteEvent())]
    assert "/checkpoint" in offered and "/memory" not in offered
    assert COMMANDS["memory"] is COMMANDS["checkpoint"]  # still typed, and /help names it


def test_tools_wraps_at_word_boundaries_to_the_terminal_width(fake, run_ayder):
    wide = run_ayder("--base-url", fake.url, input="/tools\n", env={"COLUMNS": "400"})
    narrow = run_ayder("--base-url", fake.url, input="/tools\n", env={"COLUMNS": "70"})
    assert narrow.returncode == 0, narrow.stderr
    wide_lines, narrow_lines = wide.stderr.splitlines(), narrow.stderr.splitlines()
    assert len(narrow_lines) > len(wide_lines)
    assert all(len(line) < 70 for line in narrow_lines if line.startswith("  "))
    # the same words, none split: joining the wrapped lines gives the wide listing back
    assert " ".join(" ".join(narrow_lines).split()) == " ".join(" ".join(wide_lines).split())


def test_wrap_row_keeps_continuation_lines_under_the_text():
    text = wrap_row("  r  read_file(path)  ", "one two three four five six seven eight nine ten", 60)
    first, *rest = text.splitlines()
    assert first.startswith("  r  read_file(path)  one")
    assert rest and all(line.startswith(" " * 22) and not line[22].isspace() for line in rest)
    assert all(len(line) < 60 for line in text.splitlines())


def test_wrap_row_on_a_narrow_terminal_puts_the_text_below():
    text = wrap_row("  r  read_file(path)  ", "one two three four five six seven eight nine ten", 40)
    first, *rest = text.splitlines()
    assert first == "  r  read_file(path)"
    assert rest and all(line.startswith("       one"[:7]) and len(line) < 40 for line in rest)
    assert " ".join(line.strip() for line in rest) == "one two three four five six seven eight nine ten"


def test_counts_agree_in_number():
    assert counted(1, "message") == "1 message"
    assert counted(0, "message") == "0 messages"
    assert counted(2, "change") == "2 changes"


def test_usage_after_one_request_says_1_request(fake, run_ayder):
    fake.queue(Reply(text="hi"))
    result = run_ayder("--base-url", fake.url, input="hello\n/usage\n")
    assert result.returncode == 0, result.stderr
    assert "1 request ·" in result.stderr
    assert "1 requests" not in result.stderr and " 1 messages" not in result.stderr


def test_sessions_count_agrees_in_number(fake, run_ayder):
    fake.queue(Reply(text="hi"))
    result = run_ayder("--base-url", fake.url, input="hello\n/sessions\n")
    assert "1 session;" in result.stderr


def test_tools_piped_without_a_width_keeps_one_line_per_tool(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/tools\n", env={"COLUMNS": ""})  # no width known
    lines = [line for line in result.stderr.splitlines() if line.startswith("  ")]
    assert lines and all(line[2] in "rwx" for line in lines)  # no continuation lines
