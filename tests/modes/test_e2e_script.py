"""Piped script mode end to end: `printf '...' | ayder`, each line handled as if typed at the REPL."""

from __future__ import annotations

import subprocess

from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import sent_messages

from ayder_cli.config.prompts import bundled_prompts_dir

SYSTEM_TXT = (bundled_prompts_dir() / "system.txt").read_text().strip("\n")
PLAIN_TXT = (bundled_prompts_dir() / "plain.txt").read_text().strip("\n")


def conversation(request: dict) -> list[tuple[str, str]]:
    """(role, content) of every message the server received in one request."""
    return [(m["role"], m["content"]) for m in sent_messages(request)]


def test_each_line_is_a_prompt_and_stdout_holds_only_the_answers(fake, run_ayder, protocol):
    fake.queue(Reply(text="First answer."), Reply(text="Second answer."))
    result = run_ayder(*server_args(fake, protocol), input="first question\nsecond question\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "First answer.\nSecond answer.\n"
    assert [m[-1]["content"] for m in map(sent_messages, fake.chat_requests())] == [
        "first question", "second question"]


def test_history_accumulates_across_prompts(fake, run_ayder, protocol):
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, protocol), input="Q1\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert conversation(fake.chat_requests()[1]) == [
        ("system", SYSTEM_TXT), ("user", "Q1"), ("assistant", "A1"), ("user", "Q2")]


def test_blank_lines_are_skipped(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="\n   \nonly one\n\n")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 1


def test_model_switch_applies_to_the_next_request(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), input="before\n/model llama3.2:3b\nafter\n")
    assert result.returncode == 0, result.stderr
    assert "model: llama3.2:3b" in result.stderr
    default = "qwen2.5-coder:7b" if protocol == "ollama" else "gpt-4.1-mini"
    assert [r["body"]["model"] for r in fake.chat_requests()] == [default, "llama3.2:3b"]


def test_model_without_a_name_lists_the_servers_models(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "-m", "llama3.2:3b", input="/model\n")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "* llama3.2:3b" in lines
    assert "  qwen2.5-coder:7b" in lines
    assert result.stdout == ""
    assert fake.chat_requests() == []


def test_model_list_failure_is_reported_and_the_script_goes_on(run_ayder, closed_url, project):
    (project / ".ayder").mkdir()
    (project / ".ayder" / "config.json").write_text('{"max_retries": 0}')
    result = run_ayder("--base-url", closed_url, input="/model\n/provider\n")
    assert result.returncode == 1
    assert "cannot reach Ollama" in result.stderr
    assert f"ollama at {closed_url}" in result.stderr  # /provider still ran
    assert "Traceback" not in result.stderr


def test_triple_quote_block_is_one_message_with_its_newlines(fake, run_ayder, protocol):
    script = 'before\n"""\ndef f():\n    return 1\n\nprint(f())\n"""\nafter\n'
    result = run_ayder(*server_args(fake, protocol), input=script)
    assert result.returncode == 0, result.stderr
    users = [sent_messages(r)[-1]["content"] for r in fake.chat_requests()]
    assert users == ["before", "def f():\n    return 1\n\nprint(f())", "after"]


def test_unclosed_block_at_end_of_input_is_sent_with_a_notice(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input='"""\nline one\nline two\n')
    assert result.returncode == 0, result.stderr
    assert '"""' in result.stderr and "block" in result.stderr
    assert sent_messages(fake.chat_requests()[0])[-1]["content"] == "line one\nline two"


def test_a_failed_prompt_does_not_stop_the_script_but_sets_exit_1(fake, run_ayder, protocol):
    fake.queue(Reply(status=400, error="bad request for Q1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, protocol), input="Q1\nQ2\n")
    assert result.returncode == 1
    assert "bad request for Q1" in result.stderr
    assert result.stdout == "A2\n"
    # The failed prompt got no answer, so it is not in the conversation either.
    assert conversation(fake.chat_requests()[-1]) == [("system", SYSTEM_TXT), ("user", "Q2")]


def test_openai_usage_still_reported_after_an_unrelated_400(fake, run_ayder):
    fake.queue(Reply(status=400, error="temperature must be between 0 and 2"),
               Reply(text="A2", usage=(812, 7)))
    result = run_ayder(*server_args(fake, "openai"), input="Q1\nQ2\n")
    assert result.returncode == 1
    assert fake.chat_requests()[-1]["body"].get("stream_options") == {"include_usage": True}
    assert "tokens: in 812" in result.stderr


def test_a_cut_reply_is_kept_and_the_script_goes_on(fake, run_ayder, protocol):
    fake.queue(Reply(chunks=["partial ", "text ", "lost"], cut_after=2), Reply(text="A2"))
    result = run_ayder(*server_args(fake, protocol), input="Q1\nQ2\n")
    assert result.returncode == 1
    assert result.stdout == "partial text \nA2\n"
    messages = conversation(fake.chat_requests()[1])
    assert messages[1] == ("user", "Q1")
    assert messages[2][0] == "assistant" and messages[2][1].startswith("partial text")
    assert "cut off" in messages[2][1]


def test_exit_stops_the_script(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="Q1\n/exit\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 1


def test_quit_is_an_alias_of_exit(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/quit\nQ\n")
    assert result.returncode == 0
    assert fake.chat_requests() == []


def test_exit_after_a_failure_still_exits_1(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/nope\n/exit\n")
    assert result.returncode == 1


def test_unknown_command_suggests_the_nearest_and_sets_exit_1(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/modle llama3.2:3b\nQ\n")
    assert result.returncode == 1
    assert "unknown command /modle" in result.stderr
    assert "did you mean /model?" in result.stderr
    assert len(fake.chat_requests()) == 1  # the script went on


def test_system_replaces_the_system_prompt(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), input="/system You answer in French.\nQ\n")
    assert result.returncode == 0, result.stderr
    assert conversation(fake.chat_requests()[0])[0] == ("system", "You answer in French.")


def test_system_without_text_shows_the_current_prompt(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "--prompts", "plain", input="/system\n")
    assert result.returncode == 0, result.stderr
    assert PLAIN_TXT in result.stdout + result.stderr


def test_reset_clears_the_history(fake, run_ayder, protocol):
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, protocol), input="Q1\n/reset\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert conversation(fake.chat_requests()[1]) == [("system", SYSTEM_TXT), ("user", "Q2")]


def test_reset_keeps_a_replaced_system_prompt(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/system Be terse.\nQ1\n/reset\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert conversation(fake.chat_requests()[1]) == [("system", "Be terse."), ("user", "Q2")]


def test_usage_reports_the_sessions_tokens(fake, run_ayder, protocol):
    fake.queue(Reply(text="A1", usage=(100, 20)), Reply(text="A2", usage=(150, 30)))
    result = run_ayder(*server_args(fake, protocol), input="Q1\nQ2\n/usage\n")
    assert result.returncode == 0, result.stderr
    assert "2 requests · prompt 250 · completion 50 · total 300" in result.stderr
    assert "conversation: 4 messages" in result.stderr


def test_prompts_lists_the_names_and_marks_the_selected_ones(fake, run_ayder, project):
    (project / ".ayder" / "prompts").mkdir(parents=True)
    (project / ".ayder" / "prompts" / "mine.txt").write_text("Mine.\n")
    result = run_ayder("--base-url", fake.url, "--prompts", "plain,mine", input="/prompts\n")
    assert result.returncode == 0, result.stderr
    # "<position in the selection or blank> <name> <file>", one line per prompt
    listed = {line[2:].split()[0]: line[0] for line in result.stderr.splitlines()}
    assert listed == {"mine": "2", "plain": "1", "system": " "}
    assert str(project / ".ayder" / "prompts" / "mine.txt") in result.stderr


def test_prompts_with_names_selects_the_system_prompt(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/prompts plain\nQ\n")
    assert result.returncode == 0, result.stderr
    assert conversation(fake.chat_requests()[0])[0] == ("system", PLAIN_TXT)


def test_prompts_with_an_unknown_name_is_an_error_and_keeps_the_old_prompt(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/prompts nosuch\nQ\n")
    assert result.returncode == 1
    assert "nosuch" in result.stderr and "plain" in result.stderr
    assert conversation(fake.chat_requests()[0])[0] == ("system", SYSTEM_TXT)


def test_reload_rereads_the_prompt_files(fake, start_ayder, project):
    prompt = project / ".ayder" / "prompts" / "mine.txt"
    prompt.parent.mkdir(parents=True)
    prompt.write_text("Version one.\n")
    process = start_ayder("--base-url", fake.url, "--prompts", "mine", stdin=subprocess.PIPE)
    process.stdin.write(b"Q1\n")
    process.stdin.flush()
    fake.wait_for_chat(1)
    prompt.write_text("Version two.\n")
    out, err = process.communicate(b"/reload\nQ2\n", timeout=30)
    assert process.returncode == 0, err
    assert "reloaded mine" in err.decode()
    first, second = fake.chat_requests()
    assert conversation(first)[0] == ("system", "Version one.")
    assert conversation(second)[0] == ("system", "Version two.")


def test_provider_shows_the_current_one(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "-m", "llama3.2:3b", input="/provider\n")
    assert result.returncode == 0, result.stderr
    assert f"ollama at {fake.url}, model llama3.2:3b" in result.stderr


def test_provider_switch_sends_the_next_prompt_to_the_other_protocol(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="Q1\n/provider openai\nQ2\n",
                       env={"OPENAI_BASE_URL": fake.openai_url})
    assert result.returncode == 0, result.stderr
    assert f"openai at {fake.openai_url}" in result.stderr
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat", "/v1/chat/completions"]
    assert fake.chat_requests()[1]["body"]["model"] == "gpt-4.1-mini"


def test_provider_with_a_bad_name_is_an_error(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/provider anthropic\nQ\n")
    assert result.returncode == 1
    assert "provider" in result.stderr and "ollama, openai" in result.stderr
    assert fake.chat_requests()[0]["path"] == "/api/chat"


def test_thinking_toggles_showing_the_thinking(fake, run_ayder, protocol):
    fake.queue(Reply(text="A1", thinking="first musing"), Reply(text="A2", thinking="second musing"))
    result = run_ayder(*server_args(fake, protocol), input="Q1\n/thinking\nQ2\n")
    assert result.returncode == 0, result.stderr
    assert "thinking shown" in result.stderr
    assert "first musing" not in result.stderr
    assert "second musing" in result.stderr
    assert result.stdout == "A1\nA2\n"


def test_verbose_toggles_request_details(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="Q1\n/verbose\nQ2\n/verbose\nQ3\n")
    assert result.returncode == 0, result.stderr
    assert "verbose on" in result.stderr and "verbose off" in result.stderr
    assert result.stderr.count(f"POST {fake.url}/api/chat") == 1


def test_help_lists_the_commands(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="/help\n")
    assert result.returncode == 0, result.stderr
    for name in ("/model", "/reset", "/system", "/exit", "/usage", "/prompts", "/reload", "/provider",
                 "/thinking", "/verbose", '"""'):
        assert name in result.stderr
    assert result.stdout == ""


def test_no_prompt_and_empty_stdin_is_not_an_error(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests() == []


def test_the_lines_that_failed_are_named_in_one_line_at_the_end(fake, run_ayder, protocol):
    fake.queue(Reply(text="A1"), Reply(status=400, error="bad request for the block"))
    script = '/nope\nQ1\n"""\nblock\n"""\n/exit\n'
    result = run_ayder(*server_args(fake, protocol), input=script)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == "error: script lines 1 and 3 failed"  # a block by its opening line
    assert result.stdout == "A1\n"


def test_a_script_that_succeeded_names_no_lines(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, input="Q\n")
    assert result.returncode == 0, result.stderr
    assert "failed" not in result.stderr


def test_a_plan_whose_task_files_were_denied_fails_its_line(fake, run_ayder, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "create_task",
                                           "arguments": {"title": "add login", "description": "a form"}}]),
               Reply(text="I could not write the task."), Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), input="/plan a login page\nQ2\n")
    assert result.returncode == 1
    assert "/plan: a call it needed was denied" in result.stderr
    assert result.stderr.splitlines()[-1] == "error: script line 1 failed"
    assert not (project / ".ayder" / "tasks").exists()


def test_a_prompt_whose_write_was_denied_fails_its_line(fake, run_ayder, project, protocol):
    fake.queue(Reply.calling("write_file", {"file_path": "out.txt", "content": "made\n"}),
               Reply(text="I could not write it."), Reply(text="A2"))
    result = run_ayder(*server_args(fake, protocol), input="write out.txt\nQ2\n")
    assert result.returncode == 1, result.stderr
    assert "denied by policy" in result.stderr
    assert result.stderr.splitlines()[-1] == "error: script line 1 failed"  # Q2 went on and passed
    assert result.stdout == "I could not write it.\nA2\n"
    assert not (project / "out.txt").exists()
