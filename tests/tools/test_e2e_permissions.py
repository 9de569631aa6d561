"""Permissions and the project root, end to end with the real ayder process."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.harness import server_args


def test_permissions_command_shows_and_toggles(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), "-x", input="/permissions\n/permissions w\n/permissions r\n")
    assert result.returncode == 0, result.stderr
    first, second, third = result.stderr.split("  r  read")[1:4]
    assert "x  execute  runs without asking" in first and "w  write    asks first" in first
    assert "write: runs without asking" in first  # the toggle's answer comes before the second table
    assert "w  write    runs without asking" in second
    assert "runs without asking" not in third.split("\n")[0]  # read was toggled off


def test_unknown_permission_letter_is_an_error(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="/permissions q\n")
    assert result.returncode == 1
    assert "unknown permission 'q'" in result.stderr


def test_root_flag_moves_the_project(fake, run_ayder, project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "here.txt").write_text("inside the other root\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "here.txt"}}]),
               Reply(text="Read it."))
    result = run_ayder(*server_args(fake, "openai"), "--root", str(elsewhere), "read here.txt")
    assert result.returncode == 0, result.stderr
    tool_message = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]
    assert "inside the other root" in tool_message["content"]


def test_root_that_is_not_a_directory_is_a_usage_error(run_ayder, tmp_path):
    result = run_ayder("--root", str(tmp_path / "missing"), "hi")
    assert result.returncode == 2
    assert "not a directory" in result.stderr


@pytest.mark.parametrize("tool", ["run_shell_command", "run_background_process"])
def test_commands_the_model_runs_do_not_inherit_the_api_key(fake, run_ayder, tool):
    secret = "sk-test-DO-NOT-LEAK-123"
    fake.queue(Reply(text="", tool_calls=[{"name": tool, "arguments": {"command": "env"}}]),
               Reply(text="Listed."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "--tools", "processes", "show env",
                       env={"OPENAI_API_KEY": secret, "AYDER_TEST_MARK": "seen"})
    assert result.returncode == 0, result.stderr
    assert fake.requests[0]["headers"]["Authorization"] == f"Bearer {secret}"  # the client still has it
    tool_message = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"][0]
    assert "AYDER_TEST_MARK=seen" in tool_message["content"]  # the command ran with this run's environment
    assert secret not in tool_message["content"] and "OPENAI_API_KEY=" not in tool_message["content"]


def test_background_processes_end_when_ayder_exits(fake, run_ayder, project):
    import os
    import time

    command = "echo $$ > bg.pid; sleep 300"
    fake.queue(Reply(text="", tool_calls=[{"name": "run_background_process", "arguments": {"command": command}}]),
               Reply(text="Started."))
    result = run_ayder(*server_args(fake, "ollama"), "--tools", "processes", "-x", "start it")
    assert result.returncode == 0, result.stderr
    pid = int((project / "bg.pid").read_text())
    for _ in range(300):  # the group was killed at exit; give the kernel a moment (a busy machine: seconds)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if open(f"/proc/{pid}/stat").read().split(") ", 1)[1].startswith("Z"):
            break  # a zombie: dead, waiting for init to reap it
        time.sleep(0.1)
    else:
        raise AssertionError(f"background process {pid} outlived ayder")
