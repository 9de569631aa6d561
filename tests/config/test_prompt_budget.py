"""The first request of a session stays small and the same from run to run
(README, "Tool groups": under 1,200 tokens with native tools, 600 as text).

The first request is read off the wire: the real ayder asks the fake server "Say hello." in
an empty project, and the body it sent is measured with the estimate of
benchmarks/prompt_size.py (calibrated on llama.cpp's own token counts, a few per cent over them).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.harness import server_args

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import prompt_size  # noqa: E402
from prompt_size import BUDGETS, estimate_tokens  # noqa: E402

CORE = ["read_file", "list_files", "search_codebase", "write_file", "replace_string", "run_shell_command"]


@pytest.fixture
def text_format(tmp_path) -> Path:
    path = tmp_path / "text-format.json"
    path.write_text(json.dumps({"native_tools": "off"}))
    return path


def first_body(fake, run_ayder, *args: str, cwd: Path | None = None) -> dict:
    """The body of the first chat request `ayder [args] "Say hello."` sends (OpenAI protocol)."""
    before = len(fake.chat_requests())
    fake.queue(Reply(text="Hello."))
    result = run_ayder(*server_args(fake, "openai"), *args, "Say hello.", cwd=cwd)
    assert result.returncode == 0, result.stderr
    return fake.chat_requests()[before]["body"]


def names(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or ()]


def test_native_first_request_fits_the_budget(fake, run_ayder, project):
    body = first_body(fake, run_ayder)
    assert names(body) == CORE
    tokens = estimate_tokens(body["messages"], body["tools"])
    assert tokens <= BUDGETS["native"], tokens


def test_text_format_first_request_fits_the_budget(fake, run_ayder, project, text_format):
    body = first_body(fake, run_ayder, "-c", str(text_format))
    system = body["messages"][0]["content"]
    assert "tools" not in body and "[CALL] tool_name {" in system
    taught = system.split("[CALL] tool_name", 1)[1]
    assert [line[2:].split("(")[0] for line in taught.splitlines() if line.startswith("- ")] == CORE
    tokens = estimate_tokens(body["messages"], None)
    assert tokens <= BUDGETS["text"], tokens


def test_more_groups_are_offered_when_asked_for(fake, run_ayder, project):
    everything = names(first_body(fake, run_ayder, "--tools", "all"))
    assert everything[:2] == ["read_file", "list_files"] and len(everything) == 20
    tasks = names(first_body(fake, run_ayder, "--tools", "tasks"))
    assert tasks == [*CORE, "create_task", "list_tasks", "show_task", "update_task_status"]
    (project / ".ayder").mkdir(exist_ok=True)
    (project / ".ayder" / "config.json").write_text(json.dumps({"tool_groups": ["memory", "processes"]}))
    configured = names(first_body(fake, run_ayder))
    assert set(configured) - set(CORE) == {"save_memory", "load_memory", "run_background_process",
                                           "get_background_output", "list_background_processes",
                                           "kill_background_process"}


def test_implement_offers_the_task_tools(fake, run_ayder, project):
    folder = project / ".ayder" / "tasks"
    folder.mkdir(parents=True)
    (folder / "TASK-001-greet.md").write_text("# greet\n\n- **Status:** pending\n\nSay hello.\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "update_task_status", "id": "c1",
                                           "arguments": {"identifier": "TASK-001", "status": "done"}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "--implement", "1")
    assert result.returncode == 0, result.stderr
    assert names(fake.chat_requests()[0]["body"]) == [*CORE, "create_task", "list_tasks", "show_task",
                                                      "update_task_status"]
    assert "**Status:** done" in (folder / "TASK-001-greet.md").read_text()


def test_plan_offers_the_task_tools(fake, run_ayder, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "create_task", "id": "c1",
                                           "arguments": {"title": "add login", "description": "a form"}}]),
               Reply(text="Planned."))
    result = run_ayder(*server_args(fake, "openai"), "-w", input="/plan add login\n")
    assert result.returncode == 0, result.stderr
    assert "create_task" in names(fake.chat_requests()[0]["body"])
    assert [path.name for path in (project / ".ayder" / "tasks").iterdir()] == ["TASK-001-add-login.md"]


def test_an_unknown_tool_group_is_a_usage_error_naming_the_groups(fake, run_ayder):
    result = run_ayder(*server_args(fake, "openai"), "--tools", "core,taks", "Say hello.")
    assert result.returncode == 2
    assert "--tools" in result.stderr and "'taks' (did you mean 'tasks'?)" in result.stderr
    assert "core, files, processes, tasks, memory, or all" in result.stderr
    assert "Traceback" not in result.stderr and fake.chat_requests() == []


def test_a_text_call_to_a_tool_not_offered_gets_a_clear_error_and_does_not_run(fake, run_ayder, project, text_format):
    fake.queue(Reply(text='[CALL] create_task {"title": "a", "description": "b"}'), Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "openai"), "-c", str(text_format), "-w", "plan it")
    assert result.returncode == 0, result.stderr
    second = fake.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert "unknown tool 'create_task'" in second and "read_file" in second
    assert not (project / ".ayder" / "tasks").exists()


def test_a_native_call_to_a_tool_not_offered_says_how_to_offer_it(fake, run_ayder, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "create_task", "id": "c1",
                                           "arguments": {"title": "a", "description": "b"}}]),
               Reply(text="Sorry."))
    result = run_ayder(*server_args(fake, "openai"), "-w", "plan it")
    assert result.returncode == 0, result.stderr
    [tool] = [m for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"]
    assert "unknown tool 'create_task': not offered in this session" in tool["content"]
    assert "--tools tasks" in tool["content"]
    assert not (project / ".ayder" / "tasks").exists()


def test_first_request_is_identical_across_runs(fake, run_ayder, project, tmp_path, text_format):
    """The prefix the server caches -- system prompt and tools -- is byte-identical, wherever ayder runs."""
    other = tmp_path / "elsewhere"
    other.mkdir()
    for args in ((), ("-c", str(text_format))):
        bodies = [first_body(fake, run_ayder, *args), first_body(fake, run_ayder, *args),
                  first_body(fake, run_ayder, *args, cwd=other)]
        prefixes = [json.dumps([body["messages"][0], body.get("tools")]) for body in bodies]
        assert prefixes[0] == prefixes[1] == prefixes[2]
        assert str(project) not in prefixes[0]  # what changes (paths, date, git state) comes after the prefix


def test_the_prompt_size_benchmark_prints_both_modes_within_budget(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["prompt_size.py", "--strict"])  # no server: sizes estimated
    assert prompt_size.main() == 0
    table = capsys.readouterr().out
    assert [line.split()[0] for line in table.splitlines() if line.endswith("PASS")] == ["native", "text"]
    assert "tool run_shell_command" in table


@pytest.mark.parametrize("edit_format", ["replace", "lines", "search-replace", "whole"])
def test_every_edit_format_first_request_fits_the_budget(fake, run_ayder, project, text_format, edit_format):
    """Each format's tools and its teaching in the system prompt, natively and as text."""
    native = first_body(fake, run_ayder, "--edit-format", edit_format)
    assert estimate_tokens(native["messages"], native["tools"]) <= BUDGETS["native"]
    as_text = first_body(fake, run_ayder, "--edit-format", edit_format, "-c", str(text_format))
    assert estimate_tokens(as_text["messages"], None) <= BUDGETS["text"]
