"""The tool allowlist end to end through the real `ayder` and the fake server: `tools.enabled` in a
config and `--tools` naming tools offer exactly those tools, a call to any other is refused in one
line, and a name that is no tool is a usage error saying the nearest."""

from __future__ import annotations

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import messages, of_role, tool_names

from ayder_cli.tool_groups import TOOLS
from ayder_cli.tools import default_registry


def test_the_names_checked_before_the_tools_load_are_the_tools_and_their_groups():
    assert TOOLS == {spec.name: spec.group for spec in default_registry().specs()}


def test_tools_naming_tools_offers_exactly_those_and_refuses_a_call_to_another(fake, run_ayder, project):
    fake.queue(Reply.calling("write_file", {"file_path": "a.txt", "content": "x"}, id="c1"), Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--tools", "read_file,search_codebase", "write a.txt")
    assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests()
    assert tool_names(first) == ["read_file", "search_codebase"]
    [refusal] = of_role(second, "tool")
    assert refusal["content"].count("\n") == 0
    assert "'write_file' is not among the tools enabled" in refusal["content"]
    assert "tools: read_file, search_codebase" in refusal["content"]
    assert not (project / "a.txt").exists()


def test_tools_enabled_in_a_config_with_a_group_standing_for_its_tools(fake, run_ayder, project):
    write_json(project / "tools.json", {"tools": {"enabled": ["read_file", "files"], "disabled": ["delete_line"]}})
    fake.queue(Reply(text="Hello."))
    assert run_ayder(*server_args(fake, "openai"), "-c", "tools.json", "hi").returncode == 0
    assert tool_names(fake.chat_requests()[0]) == ["read_file", "get_project_structure", "get_file_info",
                                                   "insert_line"]


def test_a_group_asked_for_joins_the_allowlist_and_the_text_format_teaches_only_the_enabled(fake, run_ayder, project):
    write_json(project / "tools.json", {"native_tools": "off", "tools": {"enabled": ["read_file"]}})
    fake.queue(Reply(text='[CALL] run_shell_command {"command": "touch made"}'), Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "ollama"), "-x", "-c", "tools.json", "--tools", "memory", "hi")
    assert result.returncode == 0, result.stderr
    first, second = fake.chat_requests()
    taught = messages(first)[0]["content"].split("[CALL] tool_name", 1)[1]
    assert [line[2:].split("(")[0] for line in taught.splitlines() if line.startswith("- ")] == [
        "read_file", "save_memory", "load_memory"]
    # written as text, a call to a tool not taught is read as no tool at all (intents/found.py)
    assert "- unknown tool 'run_shell_command'; tools: read_file, save_memory, load_memory\n" in messages(
        second)[-1]["content"]
    assert not (project / "made").exists()


@pytest.mark.parametrize("listed, said", [
    ("read_file,red_file", "unknown tool 'red_file' (did you mean 'read_file'?)"),
    ("read_file,memmory", "unknown tool group 'memmory' (did you mean 'memory'?)"),
])
def test_an_unknown_name_in_tools_is_a_usage_error_saying_the_nearest(fake, run_ayder, listed, said):
    result = run_ayder(*server_args(fake, "openai"), "--tools", listed, "hi")
    assert result.returncode == 2
    assert f"--tools: {said}" in result.stderr
    assert "Traceback" not in result.stderr and fake.chat_requests() == []


def test_an_unknown_name_in_tools_enabled_is_a_usage_error_naming_the_file(fake, run_ayder, project):
    write_json(project / "tools.json", {"tools": {"enabled": ["read_file", "list_file"]}})
    result = run_ayder(*server_args(fake, "openai"), "-c", "tools.json", "hi")
    assert result.returncode == 2
    assert "tools.json" in result.stderr
    assert "\"tools\" .enabled has an unknown tool 'list_file' (did you mean 'list_files'?)" in result.stderr
    assert fake.chat_requests() == []


def test_tools_group_in_the_repl_adds_that_group_and_not_core_to_the_list(fake, run_ayder):
    fake.queue(Reply(text="Hello."))
    result = run_ayder(*server_args(fake, "openai"), "--tools", "read_file", input="/tools files\nhi\n")
    assert result.returncode == 0, result.stderr
    assert tool_names(fake.chat_requests()[0]) == ["read_file", "get_project_structure", "get_file_info",
                                                   "insert_line", "delete_line"]
    assert "write_file(file_path, content)" in result.stderr and "[not enabled, asks first]" in result.stderr
