"""A project's `tools` can only narrow what your config allows, end to end through the real ayder
against the fake server: a tool you disabled stays disabled whatever the project's tools object
holds, allowlists intersect, and a project cannot lift a cap of max_calls_per_message."""

from __future__ import annotations

from support.fakellm import Reply
from support.files import write_json, write_user_config
from support.harness import server_args
from support.requests_seen import of_role, tool_names


def run(fake, run_ayder, *replies: Reply):
    fake.queue(*replies) if replies else fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "openai"), "hi")
    assert result.returncode == 0, result.stderr
    return result


def test_a_tool_you_disabled_stays_disabled_whatever_the_project_sets(fake, run_ayder, project, isolated_env):
    write_user_config(isolated_env, {"tools": {"disabled": ["run_shell_command"]}})
    write_json(project / ".ayder" / "config.json", {"tools": {"max_calls_per_message": {"read_file": 5}}})
    run(fake, run_ayder)
    write_json(project / ".ayder" / "config.json", {"tools": {"enabled": ["run_shell_command", "read_file"]}})
    run(fake, run_ayder)
    first, second = fake.chat_requests()
    assert "run_shell_command" not in tool_names(first)
    assert tool_names(second) == ["read_file"]


def test_allowlists_intersect_and_what_the_project_adds_is_said(fake, run_ayder, project, isolated_env):
    write_user_config(isolated_env, {"tools": {"enabled": ["read_file", "list_files"]}})
    write_json(project / ".ayder" / "config.json", {"tools": {"enabled": ["read_file", "write_file"]}})
    result = run(fake, run_ayder)
    assert tool_names(fake.chat_requests()[0]) == ["read_file"]
    [line] = [line for line in result.stderr.splitlines() if "narrow" in line]
    assert line.endswith("a project's tools can only narrow yours; enabled write_file ignored")


def test_a_project_cannot_lift_your_cap_but_may_lower_it(fake, run_ayder, project, isolated_env):
    (project / "a.txt").write_text("hello\n")
    write_user_config(isolated_env, {"tools": {"max_calls_per_message": {"read_file": 1, "list_files": 3}}})
    write_json(project / ".ayder" / "config.json", {"tools": {"max_calls_per_message": {"read_file": 5,
                                                                                         "list_files": 0}}})
    calls = [{"name": "read_file", "arguments": {"file_path": "a.txt"}, "id": "c1"},
             {"name": "read_file", "arguments": {"file_path": "a.txt", "start_line": 1}, "id": "c2"},
             {"name": "list_files", "arguments": {}, "id": "c3"}]
    run(fake, run_ayder, Reply(text="", tool_calls=calls), Reply(text="done"))
    answers = [m["content"] for m in of_role(fake.chat_requests()[-1], "tool")]
    assert answers[0].startswith("ok")
    assert "read_file may be called at most 1 time per message" in answers[1]
    assert "list_files may be called at most 0 times per message" in answers[2]
