"""One-shot mode end to end: the real `ayder` process against the fake server, both protocols."""

from __future__ import annotations

import io
import os
import shlex
import signal
import subprocess
import sys
import threading
from dataclasses import replace

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import ayder_command, read_until, server_args
from support.requests_seen import sent_messages

from ayder_cli import __version__
from ayder_cli.cli import main, run_in
from ayder_cli.terminal.environment import Environment
from ayder_cli.config.prompts import bundled_prompts_dir

USAGE = (812, 7)  # what the fake server reports, plausible for the request
USAGE_LINE = "tokens: in 812 · out 7"


def user_message(request: dict) -> str:
    messages = sent_messages(request)
    assert messages[-1]["role"] == "user"
    return messages[-1]["content"]


def system_message(request: dict) -> str:
    first = request["body"]["messages"][0]
    assert first["role"] == "system"
    return first["content"]


# --- the answer on stdout, everything else on stderr


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_answer_on_stdout_only_and_usage_on_stderr(fake, run_ayder, protocol, stream):
    fake.queue(Reply(text="Hello from the model.", usage=USAGE))
    flags = [] if stream else ["--no-stream"]
    result = run_ayder(*server_args(fake, protocol), *flags, "say hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the model.\n"
    assert USAGE_LINE in result.stderr
    assert "Hello from the model." not in result.stderr
    body = fake.chat_requests()[0]["body"]
    assert body["stream"] is stream
    assert sent_messages(fake.chat_requests()[0])[-1] == {"role": "user", "content": "say hi"}


def test_redirected_stdout_gives_a_clean_file(fake, project, protocol):
    """`ayder "q" > out` through a real shell: the file holds the answer and nothing else."""
    fake.queue(Reply(text="Just the answer.", thinking="hidden musing", usage=USAGE))
    command = shlex.join([*ayder_command(), *server_args(fake, protocol), "q"])
    result = subprocess.run(f"{command} > out.txt 2> err.txt < /dev/null", shell=True, cwd=project,
                            timeout=60)
    assert result.returncode == 0
    assert (project / "out.txt").read_text() == "Just the answer.\n"
    assert USAGE_LINE in (project / "err.txt").read_text()


# --- thinking


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_native_thinking_hidden_by_default_and_shown_on_stderr_on_request(fake, run_ayder, protocol, stream):
    """reasoning_content (OpenAI) and message.thinking (Ollama)."""
    flags = [*server_args(fake, protocol), *([] if stream else ["--no-stream"])]
    fake.queue(Reply(text="The answer.", thinking="weighing the options"))
    hidden = run_ayder(*flags, "q")
    fake.queue(Reply(text="The answer.", thinking="weighing the options"))
    shown = run_ayder(*flags, "--show-thinking", "q")
    assert hidden.returncode == shown.returncode == 0, hidden.stderr + shown.stderr
    assert hidden.stdout == shown.stdout == "The answer.\n"
    assert "weighing" not in hidden.stderr
    assert "weighing the options" in shown.stderr


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_think_block_in_content_hidden_by_default_and_shown_on_stderr_on_request(fake, run_ayder, protocol, stream):
    flags = [*server_args(fake, protocol), *([] if stream else ["--no-stream"])]
    text = "<think>inner musing here</think>Final text."  # split in 4-character deltas: tags span them
    fake.queue(Reply(text=text))
    hidden = run_ayder(*flags, "q")
    fake.queue(Reply(text=text))
    shown = run_ayder(*flags, "--show-thinking", "q")
    assert hidden.returncode == shown.returncode == 0, hidden.stderr + shown.stderr
    assert hidden.stdout == shown.stdout == "Final text.\n"
    assert "musing" not in hidden.stderr
    assert "inner musing here" in shown.stderr
    assert "<think>" not in shown.stderr + shown.stdout


def test_showing_thinking_in_the_middle_of_the_text_does_not_change_stdout(fake, run_ayder, protocol):
    """A think block between two pieces of text: stdout is the same with and without --show-thinking."""
    text = "Before <think>pondering</think>after."
    fake.queue(Reply(text=text), Reply(text=text))
    hidden = run_ayder(*server_args(fake, protocol), "q")
    shown = run_ayder(*server_args(fake, protocol), "--show-thinking", "q")
    assert hidden.stdout == "Before after.\n"
    assert shown.stdout == hidden.stdout
    assert "pondering" in shown.stderr


# --- where the prompt comes from


def test_prompt_from_file(fake, run_ayder, project, protocol):
    (project / "question.md").write_text("Explain this:\n\ndef f(): pass\n")
    result = run_ayder(*server_args(fake, protocol), "-f", "question.md")
    assert result.returncode == 0, result.stderr
    assert user_message(fake.chat_requests()[0]) == "Explain this:\n\ndef f(): pass"


def test_prompt_words_and_file_are_joined(fake, run_ayder, project):
    (project / "code.py").write_text("print('hi')\n")
    result = run_ayder("--base-url", fake.url, "-f", "code.py", "review", "this")
    assert result.returncode == 0, result.stderr
    assert user_message(fake.chat_requests()[0]) == "review this\n\nprint('hi')"


def test_missing_prompt_file_is_a_usage_error(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "-f", "nope.txt")
    assert result.returncode == 2
    assert "nope.txt" in result.stderr
    assert "Traceback" not in result.stderr
    assert fake.chat_requests() == []


def test_an_empty_prompt_argument_is_a_usage_error_not_script_mode(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "  ", input="/model\n")
    assert result.returncode == 2
    assert "the prompt is empty" in result.stderr
    assert fake.requests == []


def test_prompt_from_stdin(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "--stdin", input="line one\nline two\n")
    assert result.returncode == 0, result.stderr
    assert user_message(fake.chat_requests()[0]) == "line one\nline two"


def test_piped_stdin_is_attached_to_the_prompt(fake, run_ayder, protocol):
    """`git diff | ayder "review"`: the diff goes along in a fence after the prompt."""
    diff = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n"
    result = run_ayder(*server_args(fake, protocol), "review", input=diff)
    assert result.returncode == 0, result.stderr
    assert user_message(fake.chat_requests()[0]) == f"review\n\n```\n{diff.rstrip()}\n```"
    assert result.stdout == "ok\n"


def test_piped_stdin_holding_a_fence_gets_a_longer_fence(fake, run_ayder):
    readme = "Use it like this:\n```sh\nayder 'q'\n```\n"
    result = run_ayder("--base-url", fake.url, "summarize", input=readme)
    assert result.returncode == 0, result.stderr
    assert user_message(fake.chat_requests()[0]) == f"summarize\n\n````\n{readme.rstrip()}\n````"


def test_open_pipe_that_nobody_writes_to_does_not_hang(fake, project, protocol):
    read_fd, write_fd = os.pipe()
    stdout, stderr, ended = io.StringIO(), io.StringIO(), {}
    with open(read_fd, "rb") as stdin, open(write_fd, "wb"):  # stdin stays open and empty all along
        environment = replace(Environment.of(stdin, stdout, stderr, os.environ, project),
                              piped_stdin_wait_s=0.2)  # the wait for a first byte, shortened
        run = threading.Thread(target=lambda: ended.update(code=run_in(environment, [*server_args(fake, protocol), "q"])),
                               daemon=True)
        run.start()
        run.join(timeout=30)
    assert ended.get("code") == 0, stderr.getvalue()
    assert stdout.getvalue() == "ok\n"
    assert "stdin sent nothing" in stderr.getvalue()
    assert user_message(fake.chat_requests()[0]) == "q"


# --- system prompts


def test_prompts_are_joined_in_order_by_a_newline(fake, run_ayder, protocol):
    plain = (bundled_prompts_dir() / "plain.txt").read_text().strip("\n")
    system = (bundled_prompts_dir() / "system.txt").read_text().strip("\n")
    result = run_ayder(*server_args(fake, protocol), "--prompts", "plain,system", "q")
    assert result.returncode == 0, result.stderr
    assert system_message(fake.chat_requests()[0]) == f"{plain}\n{system}"


def test_default_system_prompt_is_system_txt(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 0, result.stderr
    assert system_message(fake.chat_requests()[0]) == (bundled_prompts_dir() / "system.txt").read_text().strip("\n")


def test_unknown_prompt_name_lists_the_available_ones(fake, run_ayder):
    result = run_ayder("--base-url", fake.url, "--prompts", "plain,nosuch", "q")
    assert result.returncode == 2
    assert "nosuch" in result.stderr
    assert "plain" in result.stderr and "system" in result.stderr
    assert "Traceback" not in result.stderr
    assert fake.chat_requests() == []


def test_project_prompt_files_add_and_override(fake, run_ayder, project):
    prompts = project / ".ayder" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "system.txt").write_text("Project system prompt.\n")
    (prompts / "style.txt").write_text("Answer in haiku.\n")
    result = run_ayder("--base-url", fake.url, "--prompts", "system,style", "q")
    assert result.returncode == 0, result.stderr
    assert system_message(fake.chat_requests()[0]) == "Project system prompt.\nAnswer in haiku."


# --- configuration reaches the request


def test_defaults_reach_the_ollama_request(fake, run_ayder):
    run_ayder("--base-url", fake.url, "q")
    body = fake.chat_requests()[0]["body"]
    assert body["model"] == "qwen2.5-coder:7b"
    assert body["options"] == {"num_ctx": 8192, "num_predict": 4096}


def test_config_file_values_reach_the_ollama_request(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"num_ctx": 2048, "max_tokens": 300, "temperature": 0.2})
    result = run_ayder("--base-url", fake.url, "q")
    assert result.returncode == 0, result.stderr
    assert fake.chat_requests()[0]["body"]["options"] == {"num_ctx": 2048, "num_predict": 300, "temperature": 0.2}


def test_config_file_values_reach_the_openai_request(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"max_tokens": 300, "temperature": 0.2})
    run_ayder(*server_args(fake, "openai"), "q")
    run_ayder(*server_args(fake, "openai"), "--no-stream", "q")
    streamed, whole = (r["body"] for r in fake.chat_requests())
    assert streamed["max_tokens"] == whole["max_tokens"] == 300
    assert streamed["temperature"] == whole["temperature"] == 0.2
    assert streamed["stream_options"] == {"include_usage": True}
    assert whole["stream"] is False and "stream_options" not in whole
    assert "options" not in streamed and "num_ctx" not in streamed


def test_config_layers_later_wins(fake, run_ayder, project, isolated_env):
    """XDG < project .ayder/config.json < -c FILE < AYDER_MODEL < -m."""
    write_json(isolated_env / ".config" / "ayder" / "config.json", {"model": "xdg-model", "num_ctx": 1111})
    args = ["--base-url", fake.url]

    def model_and_ctx(*extra: str, env: dict | None = None) -> tuple[str, int]:
        result = run_ayder(*args, *extra, "q", env=env)
        assert result.returncode == 0, result.stderr
        body = fake.chat_requests()[-1]["body"]
        return body["model"], body["options"]["num_ctx"]

    assert model_and_ctx() == ("xdg-model", 1111)
    write_json(project / ".ayder" / "config.json", {"model": "project-model"})
    assert model_and_ctx() == ("project-model", 1111)
    write_json(project / "extra.json", {"model": "file-model", "num_ctx": 3333})
    assert model_and_ctx("-c", "extra.json") == ("file-model", 3333)
    assert model_and_ctx("-c", "extra.json", env={"AYDER_MODEL": "env-model"}) == ("env-model", 3333)
    assert model_and_ctx("-c", "extra.json", "-m", "flag-model", env={"AYDER_MODEL": "env-model"}) == (
        "flag-model", 3333)


def test_model_flag_and_env_reach_the_openai_request(fake, run_ayder):
    run_ayder(*server_args(fake, "openai"), "q", env={"AYDER_MODEL": "env-model"})
    run_ayder(*server_args(fake, "openai"), "-m", "flag-model", "q", env={"AYDER_MODEL": "env-model"})
    assert [r["body"]["model"] for r in fake.chat_requests()] == ["env-model", "flag-model"]


def test_ollama_host_and_openai_base_url_env(fake, run_ayder):
    host = fake.url.removeprefix("http://")
    assert run_ayder("q", env={"OLLAMA_HOST": host}).returncode == 0
    assert run_ayder("-p", "openai", "q", env={"OPENAI_BASE_URL": fake.openai_url}).returncode == 0
    assert [r["path"] for r in fake.chat_requests()] == ["/api/chat", "/v1/chat/completions"]


# --- truncation, version


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "no-stream"])
def test_length_finish_reason_continues_the_reply(fake, run_ayder, protocol, stream):
    fake.queue(Reply(text="The first half of", finish_reason="length"), Reply(text=" the answer."))
    result = run_ayder(*server_args(fake, protocol), *([] if stream else ["--no-stream"]), "q")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The first half of the answer.\n"  # one answer, not two lines
    assert "max_tokens" in result.stderr and "continue" in result.stderr
    second = fake.chat_requests()[1]["body"]["messages"]
    assert second[-2] == {"role": "assistant", "content": "The first half of"}
    assert second[-1]["role"] == "user" and "Continue" in second[-1]["content"]


def test_truncation_notice_after_the_continuations_run_out(fake, run_ayder, protocol):
    fake.queue(*[Reply(text=f"part {n} ", finish_reason="length") for n in range(4)])
    result = run_ayder(*server_args(fake, protocol), "q")
    assert result.returncode == 0, result.stderr
    assert len(fake.chat_requests()) == 4  # the reply and three continuations
    assert "truncated" in result.stderr and "max_tokens" in result.stderr


def test_no_truncation_notice_on_a_normal_stop(fake, run_ayder, protocol):
    result = run_ayder(*server_args(fake, protocol), "q")
    assert "truncated" not in result.stderr


def test_version(run_ayder):
    result = run_ayder("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"ayder {__version__}"


def test_main_in_process_leaves_the_process_as_it_was(fake, project, monkeypatch):
    """main() with its own streams, environment and directory changes nothing of the process it runs in:
    not the environment (the key stays in it), not the working directory, not a signal handler."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-stays-here")
    handlers = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    before = dict(os.environ), os.getcwd(), [signal.getsignal(signum) for signum in handlers]
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": "pwd"}}]),
               Reply(text="Done."))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([*server_args(fake, "openai"), "-x", "where am I"], stdin=io.StringIO("piped notes\n"),
                stdout=stdout, stderr=stderr, env={**os.environ, "COLUMNS": "60"}, cwd=project)
    assert code == 0, stderr.getvalue()
    assert stdout.getvalue() == "Done.\n"
    assert (dict(os.environ), os.getcwd(), [signal.getsignal(signum) for signum in handlers]) == before
    assert "piped notes" in user_message(fake.chat_requests()[0])  # a stream with no file descriptor is read
    tool_result = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]["content"]
    assert str(project.resolve()) in tool_result  # the command ran in the run's directory


def test_python_dash_m_version(project):
    result = subprocess.run([sys.executable, "-m", "ayder_cli", "--version"], capture_output=True, text=True,
                            cwd=project, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ayder {__version__}"


# --- time to first token: a delta is shown while the server is still holding the rest


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
def test_first_delta_arrives_while_the_server_holds(fake, start_ayder, protocol, chunked):
    release = threading.Event()
    fake.queue(Reply(chunks=["first-delta ", "and the rest"], hold_after=1, release=release, chunked=chunked))
    process = start_ayder(*server_args(fake, protocol), "q")
    try:
        # Only this test releases the hold, and only after the first delta was on stdout.
        seen = read_until(process.stdout, b"first-delta", timeout_s=20)
    finally:
        release.set()
    rest, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert (seen + rest).decode() == "first-delta and the rest\n"


def test_a_reader_that_goes_away_stops_ayder_quietly(fake, spawn_ayder):
    """`ayder "q" | head -c 5`: the reader closes the pipe mid-answer; ayder stops, status 1, no traceback
    (a process: Python's own flush of stdout at exit is part of what is checked)."""
    release = threading.Event()
    fake.queue(Reply(chunks=["first ", *["more words "] * 5000], hold_after=1, release=release))
    process = spawn_ayder("--base-url", fake.url, "q")
    try:
        read_until(process.stdout, b"first")
        process.stdout.close()
    finally:
        release.set()
    err = process.stderr.read().decode()
    assert process.wait(timeout=30) == 1, err
    assert "Traceback" not in err and "Exception ignored" not in err
