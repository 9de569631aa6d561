"""edit_format end to end: each value changes the write tools sent and what the system prompt teaches,
auto picks by the model's name (or what its server profile learned), --doctor names the choice, and a
bad value is one clear line. Read off the first request the real ayder sends the fake server.
"""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.harness import server_args

READS = ["read_file", "list_files", "search_codebase"]
WRITES = {
    "replace": ["write_file", "replace_string"],
    "lines": ["write_file", "replace_lines"],
    "search-replace": ["write_file"],
    "whole": ["write_file"],
}
TAUGHT = {  # a phrase of each format's teaching in the system prompt
    "lines": "Edit files with replace_lines, by the line numbers read_file shows",
    "search-replace": "<<<<<<< SEARCH\nthe exact lines now in the file\n=======\nthe new lines\n>>>>>>> REPLACE",
    "whole": "then the whole new file in a ``` fence",
}


def first_body(fake, run_ayder, *args: str) -> dict:
    before = len(fake.chat_requests())
    fake.queue(Reply(text="Hello."))
    result = run_ayder(*server_args(fake, "openai"), *args, "Say hello.")
    assert result.returncode == 0, result.stderr
    return fake.chat_requests()[before]["body"]


def tools_and_system(body: dict) -> tuple[list[str], str]:
    return [tool["function"]["name"] for tool in body.get("tools") or ()], body["messages"][0]["content"]


@pytest.mark.parametrize("edit_format", sorted(WRITES))
def test_each_format_sends_its_own_write_tools_and_teaches_only_itself(fake, run_ayder, project, edit_format):
    names, system = tools_and_system(first_body(fake, run_ayder, "--edit-format", edit_format))
    assert names == [*READS, *WRITES[edit_format], "run_shell_command"]
    for other, phrase in TAUGHT.items():
        assert (phrase in system) == (other == edit_format), other
    if edit_format in ("search-replace", "whole"):
        assert "replace_string" not in json.dumps(fake.chat_requests()[-1]["body"])


def test_the_config_key_chooses_it_too_and_lines_replaces_insert_and_delete(fake, run_ayder, project):
    (project / ".ayder").mkdir()
    (project / ".ayder" / "config.json").write_text(json.dumps({"edit_format": "lines"}))
    names, _ = tools_and_system(first_body(fake, run_ayder, "--tools", "files"))
    assert "replace_lines" in names and not {"replace_string", "insert_line", "delete_line"} & set(names)
    everything, _ = tools_and_system(first_body(fake, run_ayder, "--tools", "files", "--edit-format", "replace"))
    assert {"replace_string", "insert_line", "delete_line"} <= set(everything) and "replace_lines" not in everything


def test_a_tool_the_format_does_not_offer_is_refused_by_name(fake, run_ayder, project):
    (project / "a.txt").write_text("old\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "replace_string", "id": "c1", "arguments": {
        "file_path": "a.txt", "old_string": "old", "new_string": "new"}}]), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "whole", "-w", "edit it")
    assert result.returncode == 0, result.stderr
    [answer] = [m["content"] for m in fake.chat_requests()[1]["body"]["messages"] if m["role"] == "tool"]
    assert answer.startswith("error: unknown tool 'replace_string': not offered with edit_format 'whole'")
    assert (project / "a.txt").read_text() == "old\n"


@pytest.mark.parametrize("model, picked", [
    ("qwen2.5-coder:7b", "whole"),
    ("qwen3-coder:30b", "whole"),
    ("llama3.2:3b", "lines"),
    ("devstral:24b", "replace"),
    ("some-hosted-model", "replace"),
])
def test_auto_picks_by_the_models_name(fake, run_ayder, project, model, picked):
    names, _ = tools_and_system(first_body(fake, run_ayder, "--edit-format", "auto", "-m", model))
    assert names == [*READS, *WRITES[picked], "run_shell_command"]


def test_what_the_server_profile_learned_overrides_the_table(fake, run_ayder, project, isolated_env):
    state = isolated_env / ".local" / "state" / "ayder"
    state.mkdir(parents=True)
    (state / "servers.json").write_text(json.dumps({f"{fake.openai_url} qwen2.5-coder:7b": {"edit_format": "lines"}}))
    before = len(fake.chat_requests())
    fake.queue(Reply(text="Hello."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "auto", "-m", "qwen2.5-coder:7b", "-v",
                       "Say hello.")
    assert result.returncode == 0, result.stderr
    names, _ = tools_and_system(fake.chat_requests()[before]["body"])
    assert "replace_lines" in names
    assert "edit format: lines (learned for this server and model)" in result.stderr


@pytest.mark.parametrize("args, source", [
    (("--edit-format", "diff"), "error: --edit-format: "),
    (("-c", "{config}"), "{config}"),
])
def test_a_bad_value_is_one_clear_line(fake, run_ayder, project, tmp_path, args, source):
    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"edit_format": "udiff"}))
    args = tuple(arg.format(config=config) for arg in args)
    result = run_ayder(*server_args(fake, "openai"), *args, "Say hello.")
    assert result.returncode == 2
    error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and '"edit_format" must be one of replace, lines, search-replace, whole, auto' in error[0]
    assert source.format(config=config) in error[0]
    assert fake.chat_requests() == []


def test_the_doctor_says_what_auto_would_pick(fake, run_ayder, project):
    fake.queue(*[Reply(text="ok")] * 8)
    result = run_ayder(*server_args(fake, "openai"), "-m", "qwen2.5-coder:7b", "--doctor")
    assert ('edit format: replace; auto would pick whole for qwen2.5-coder:7b (set edit_format to "auto" or '
            '"whole")') in result.stderr
    assert "reachable" in result.stderr and "first request" in result.stderr  # the doctor's checks are all there


def test_auto_follows_a_model_change_and_tools_says_what_the_format_leaves_out(fake, run_ayder, project):
    fake.queue(Reply(text="Hello."), Reply(text="Hello again."))
    result = run_ayder(*server_args(fake, "openai"), "--edit-format", "auto", "-m", "gpt-4o",
                       input="Say hello.\n/model qwen2.5-coder:7b\nSay hello.\n/tools\n",
                       env={"COLUMNS": "300"})  # /tools wraps its rows to the terminal: one row on one line
    assert result.returncode == 0, result.stderr
    first, second = (tools_and_system(request["body"]) for request in fake.chat_requests()[-2:])
    assert "replace_string" in first[0] and TAUGHT["whole"] not in first[1]
    assert "replace_string" not in second[0] and TAUGHT["whole"] in second[1]
    listed = next(line for line in result.stderr.splitlines() if "replace_string(" in line)
    assert "not offered with edit_format whole" in listed
