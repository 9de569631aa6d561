"""Project instructions (AGENTS.md) and the environment note, end to end: real files in a temp dir,
the real `ayder` process against the fake server, assertions on what the server received."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from datetime import date, timedelta
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import server_args
from support.requests_seen import without_environment

from ayder_cli.repl.commands.info_commands import INIT_REQUEST
from ayder_cli.config.instructions import git_state, load_instructions
from ayder_cli.config.prompts import bundled_prompts_dir

SYSTEM_TXT = (bundled_prompts_dir() / "system.txt").read_text().strip("\n")
HAS_GIT = shutil.which("git") is not None


def system_of(request: dict) -> str:
    first = request["body"]["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def users_of(request: dict) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_wide(home: Path) -> Path:
    return home / ".config" / "ayder" / "AGENTS.md"  # conftest sets XDG_CONFIG_HOME to HOME/.config


# --- which files, in which order


def test_root_then_subdirectory_after_the_prompt_parts(fake, run_ayder, project):
    write(project / "AGENTS.md", "ROOT-RULE: run make test.\n")
    write(project / "src" / "AGENTS.md", "SRC-RULE: src code is typed.\n")
    write(project / "src" / "api" / "AGENTS.md", "API-RULE: handlers stay small.\n")
    write(project / "other" / "AGENTS.md", "OTHER-RULE: not on the way.\n")
    result = run_ayder(*server_args(fake, "ollama"), "--root", str(project), "q", cwd=project / "src" / "api")
    assert result.returncode == 0, result.stderr
    system = system_of(fake.chat_requests()[0])
    assert system.startswith(SYSTEM_TXT + "\n\n")
    positions = [system.index(rule) for rule in ("ROOT-RULE", "SRC-RULE", "API-RULE")]
    assert positions == sorted(positions), system
    assert "--- AGENTS.md ---" in system and "--- src/api/AGENTS.md ---" in system
    assert "OTHER-RULE" not in system


def test_started_in_the_root_reads_only_the_roots_file(fake, run_ayder, project):
    write(project / "AGENTS.md", "ROOT-RULE\n")
    write(project / "src" / "AGENTS.md", "SRC-RULE\n")
    result = run_ayder(*server_args(fake, "openai"), "q")
    assert result.returncode == 0, result.stderr
    system = system_of(fake.chat_requests()[0])
    assert "ROOT-RULE" in system and "SRC-RULE" not in system


def test_user_wide_file_comes_first(fake, run_ayder, project, isolated_env):
    write(user_wide(isolated_env), "USER-RULE: answer in English.\n")
    write(project / "AGENTS.md", "ROOT-RULE\n")
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    system = system_of(fake.chat_requests()[0])
    assert system.index("USER-RULE") < system.index("ROOT-RULE")
    assert "--- AGENTS.md (user-wide) ---" in system
    assert str(isolated_env) not in system  # no home directory path in the cached prefix


def test_user_wide_file_alone_outside_any_project_file(fake, run_ayder, isolated_env):
    write(user_wide(isolated_env), "USER-RULE\n")
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    assert "USER-RULE" in system_of(fake.chat_requests()[0])


def test_the_instructions_key_names_more_files(fake, run_ayder, project, isolated_env):
    write(project / "CLAUDE.md", "CLAUDE-RULE\n")
    write(project / "CONVENTIONS.md", "CONVENTIONS-RULE\n")
    write(project / "AGENTS.md", "AGENTS-RULE\n")
    write(isolated_env / ".config" / "ayder" / "CONVENTIONS.md", "USER-CONVENTIONS\n")
    before = run_ayder(*server_args(fake, "ollama"), "q")
    assert before.returncode == 0, before.stderr
    assert "CLAUDE-RULE" not in system_of(fake.chat_requests()[0])  # not named: not read

    write_json(project / ".ayder" / "config.json", {"instructions": ["CLAUDE.md", "CONVENTIONS.md"]})
    after = run_ayder(*server_args(fake, "ollama"), "q")
    assert after.returncode == 0, after.stderr
    system = system_of(fake.chat_requests()[1])
    order = [system.index(text) for text in ("USER-CONVENTIONS", "AGENTS-RULE", "CLAUDE-RULE", "CONVENTIONS-RULE")]
    assert order == sorted(order), system


def test_a_file_reached_twice_is_read_once(fake, run_ayder, project):
    write(project / "AGENTS.md", "ONLY-ONCE\n")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    write_json(project / ".ayder" / "config.json", {"instructions": ["CLAUDE.md"]})
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    assert system_of(fake.chat_requests()[0]).count("ONLY-ONCE") == 1


def test_a_bad_instructions_value_is_a_config_error(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"instructions": ["../secret.md"]})
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 2
    assert '"instructions" must be a list of file names' in result.stderr
    assert fake.chat_requests() == []


def test_no_instructions_flag_leaves_them_out(fake, run_ayder, project, isolated_env):
    write(user_wide(isolated_env), "USER-RULE\n")
    write(project / "AGENTS.md", "ROOT-RULE\n")
    result = run_ayder(*server_args(fake, "ollama"), "--no-instructions", "-v", "q")
    assert result.returncode == 0, result.stderr
    assert system_of(fake.chat_requests()[0]) == SYSTEM_TXT
    assert "instructions: off (--no-instructions)" in result.stderr


# --- the size cap


def test_the_32_kb_cap_keeps_whole_files_first_and_cuts_the_last(fake, run_ayder, project):
    root_text = "\n".join(f"root line {n:05d}" for n in range(1200))  # 19,199 bytes
    sub_text = "\n".join(f"sub line {n:05d}" for n in range(1200))  # 17,999 bytes: crosses 32 KB
    write(project / "AGENTS.md", root_text + "\n")
    write(project / "sub" / "AGENTS.md", sub_text + "\n")
    write(project / "sub" / "CONVENTIONS.md", "CONVENTIONS-RULE\n")
    write_json(project / ".ayder" / "config.json", {"instructions": ["CONVENTIONS.md"]})
    # 32 KB of instructions is about 8,000 tokens: a window that holds them, or they are cut to fit it
    result = run_ayder(*server_args(fake, "ollama"), "--num-ctx", "16384", "--root", str(project), "q",
                       cwd=project / "sub")
    assert result.returncode == 0, result.stderr
    notice = "project instructions are capped at 32 KB: sub/AGENTS.md cut short; sub/CONVENTIONS.md left out"
    assert notice in result.stderr.splitlines()
    system = system_of(fake.chat_requests()[0])
    assert root_text in system  # the whole first file
    assert "sub line 00000" in system and sub_text not in system  # the second one cut ...
    kept = system.split("--- sub/AGENTS.md ---\n", 1)[1].split("\n\n[", 1)[0]
    assert all(re.fullmatch(r"sub line \d{5}", line) for line in kept.splitlines())  # ... at a line end
    assert len(root_text.encode()) + len(kept.encode()) <= 32 * 1024
    assert "CONVENTIONS-RULE" not in system
    assert system.rstrip().endswith(f"[{notice}]")  # the model is told too


def test_the_cap_counts_bytes_and_never_splits_a_character(project, isolated_env):
    write(project / "AGENTS.md", "ü" * 20000)  # 40,000 bytes on one line
    instructions = load_instructions(project, project, {"HOME": str(isolated_env)})
    [cut] = instructions.files
    assert cut.cut and set(cut.text) == {"ü"} and len(cut.text.encode()) == 32 * 1024


# --- -v and /status, /init


def test_verbose_lists_what_was_loaded(fake, run_ayder, project):
    write(project / "AGENTS.md", "x" * 2048)
    result = run_ayder(*server_args(fake, "ollama"), "-v", "q")
    assert result.returncode == 0, result.stderr
    assert "· instructions: AGENTS.md (2 KB)" in result.stderr
    quiet = run_ayder(*server_args(fake, "ollama"), "q")
    assert "instructions:" not in quiet.stderr


def test_status_in_a_piped_script(fake, run_ayder, project, isolated_env):
    write(user_wide(isolated_env), "USER-RULE\n")
    write(project / "AGENTS.md", "ROOT-RULE\n")
    result = run_ayder(*server_args(fake, "openai"), "-m", "tiny-model", input="/status\n")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "model:        tiny-model" in lines
    assert "provider:     openai" in lines
    assert f"server:       {fake.openai_url}" in lines
    assert "instructions: AGENTS.md (user-wide) (9 B)" in lines
    assert "              AGENTS.md (9 B)" in lines
    assert result.stdout == "" and fake.chat_requests() == []


def test_status_without_instruction_files(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="/status\n")
    assert result.returncode == 0, result.stderr
    assert "instructions: none found" in result.stderr.splitlines()


def test_init_asks_the_model_to_write_agents_md(fake, run_ayder, project):
    content = "# Project\n\nBuild: make. Test: make test.\n"
    fake.queue(
        Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": "AGENTS.md", "content": content},
                                    "id": "call_w"}]),
        Reply(text="Wrote AGENTS.md."),
    )
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="/init\n/status\n")
    assert result.returncode == 0, result.stderr
    first = fake.chat_requests()[0]
    assert without_environment(users_of(first)[-1]) == INIT_REQUEST
    assert "AGENTS.md" in INIT_REQUEST and "test" in INIT_REQUEST
    assert (project / "AGENTS.md").read_text() == content
    assert result.stdout == "Wrote AGENTS.md.\n"
    assert "/reload" in result.stderr
    assert "instructions: none found" in result.stderr.splitlines()  # read at start, not yet reloaded


def test_init_then_reload_puts_the_new_file_into_the_system_prompt(fake, run_ayder, project):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "write_file", "id": "call_w",
                                    "arguments": {"file_path": "AGENTS.md", "content": "NEW-RULE\n"}}]),
        Reply(text="Done."),
        Reply(text="Next."),
    )
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="/init\n/reload\nnext question\n")
    assert result.returncode == 0, result.stderr
    requests = fake.chat_requests()
    assert "NEW-RULE" not in system_of(requests[0])
    assert "NEW-RULE" in system_of(requests[-1])


# --- the environment note


def test_environment_note_in_the_first_user_message_not_in_the_system_prompt(fake, run_ayder, project):
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), input="Q1\nQ2\n")
    assert result.returncode == 0, result.stderr
    second = fake.chat_requests()[1]
    first_user, later_user = users_of(second)
    assert first_user.startswith("<environment>\n") and first_user.endswith("</environment>\n\nQ1")
    assert later_user == "Q2"
    note = first_user.split("\n</environment>", 1)[0]
    assert f"Project root: {project}" in note
    assert "OS: " in note and "Shell: " in note and "Git: not a git repository" in note
    assert any(f"Date: {day.isoformat()}" in note for day in (date.today(), date.today() - timedelta(days=1)))
    assert "<environment>" not in system_of(second) and "Date: " not in system_of(second)
    # The same note on every request of the conversation (the server's cache keeps working).
    assert users_of(fake.chat_requests()[0])[0] == first_user


def test_environment_note_is_not_in_the_transcript(fake, run_ayder, project):
    result = run_ayder(*server_args(fake, "ollama"), "q")
    assert result.returncode == 0, result.stderr
    [transcript] = (project / ".ayder" / "sessions").glob("*.jsonl")
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert {"role": "user", "content": "q"} in lines
    assert "<environment>" not in transcript.read_text()


def test_a_resumed_conversation_gets_the_note_once(fake, run_ayder, project):
    assert run_ayder(*server_args(fake, "ollama"), "Q1").returncode == 0
    result = run_ayder(*server_args(fake, "ollama"), "--continue", "Q2")
    assert result.returncode == 0, result.stderr
    users = users_of(fake.chat_requests()[-1])
    assert without_environment(users[0]) == "Q1" and users[0] != "Q1"
    assert users[1] == "Q2"


def test_reset_starts_the_new_conversation_with_a_note(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="Q1\n/reset\nQ2\n")
    assert result.returncode == 0, result.stderr
    [q2] = users_of(fake.chat_requests()[1])
    assert q2.startswith("<environment>\n") and without_environment(q2) == "Q2"


def test_working_directory_below_the_root_is_named(fake, run_ayder, project):
    (project / "src").mkdir()
    result = run_ayder(*server_args(fake, "ollama"), "--root", str(project), "q", cwd=project / "src")
    assert result.returncode == 0, result.stderr
    assert "Working directory: src" in users_of(fake.chat_requests()[0])[0]


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_git_branch_and_dirty_state_change_the_note_but_not_the_system_prompt(fake, run_ayder, project):
    git(project, "init", "-q", "-b", "trunk")
    write(project / "AGENTS.md", "ROOT-RULE\n")
    git(project, "add", "AGENTS.md")
    git(project, "commit", "-q", "-m", "first")
    clean = run_ayder(*server_args(fake, "ollama"), "q")
    write(project / "AGENTS.md", "ROOT-RULE\n")  # unchanged content, so the prompt is the same
    write(project / "new.txt", "untracked\n")
    dirty = run_ayder(*server_args(fake, "ollama"), "q")
    assert clean.returncode == dirty.returncode == 0, clean.stderr + dirty.stderr
    first, second = fake.chat_requests()
    assert "Git: branch trunk, clean" in users_of(first)[0]
    assert "Git: branch trunk, uncommitted changes" in users_of(second)[0]
    assert system_of(first) == system_of(second)
    assert first["body"].get("tools") == second["body"].get("tools")


def test_without_git_the_run_goes_on(fake, run_ayder, project, tmp_path):
    empty_path = tmp_path / "no-git-here"
    empty_path.mkdir()
    (project / ".git").mkdir()  # a repository, as far as ayder can tell without git
    result = run_ayder(*server_args(fake, "ollama"), "q", env={"PATH": str(empty_path)})
    assert result.returncode == 0, result.stderr
    assert "Git: unknown (git is not installed)" in users_of(fake.chat_requests()[0])[0]


def test_outside_any_repository_git_is_not_started(fake, run_ayder, project, tmp_path):
    # A `git` first on PATH that notes each start: outside a repository there is nothing to ask it.
    spy = tmp_path / "spy"
    spy.mkdir()
    started = tmp_path / "git-started"
    (spy / "git").write_text(f"#!/bin/sh\necho \"$@\" >> {started}\nexit 128\n")
    (spy / "git").chmod(0o755)
    result = run_ayder(*server_args(fake, "ollama"), "q", env={"PATH": f"{spy}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stderr
    assert "Git: not a git repository" in users_of(fake.chat_requests()[0])[0]
    assert not started.exists()


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
@pytest.mark.parametrize("where", ["below a .git", "a bare repository", "GIT_DIR"])
def test_git_is_asked_wherever_git_would_find_a_repository(project, tmp_path, where):
    env = dict(os.environ)
    if where == "below a .git":
        git(project, "init", "-q", "-b", "main")
        (project / "src").mkdir()
        assert git_state(project / "src", env=env) == "branch main, clean"
    elif where == "a bare repository":
        git(project, "init", "-q", "--bare")
        assert git_state(project, env=env).startswith("unknown (git status failed: fatal: this operation must be run")
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        git(elsewhere, "init", "-q", "-b", "side")
        env.update(GIT_DIR=str(elsewhere / ".git"), GIT_WORK_TREE=str(project))
        assert git_state(project, env=env) == "branch side, clean"


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_git_state_of_a_detached_head_and_a_repository_without_commits(project):
    git(project, "init", "-q", "-b", "main")
    assert git_state(project) == "branch main, clean"
    write(project / "a.txt", "a\n")
    git(project, "add", "a.txt")
    assert git_state(project) == "branch main, uncommitted changes"
    git(project, "commit", "-q", "-m", "a")
    git(project, "checkout", "-q", "--detach")
    assert git_state(project) == "detached HEAD, clean"


# --- the cached prefix


def test_system_prompt_and_tools_are_byte_identical_between_runs(fake, run_ayder, project, isolated_env):
    write(user_wide(isolated_env), "USER-RULE\n")
    write(project / "AGENTS.md", "ROOT-RULE\n")
    write(project / "sub" / "AGENTS.md", "SUB-RULE\n")
    for _ in range(2):
        result = run_ayder(*server_args(fake, "openai"), "--root", str(project), "q", cwd=project / "sub")
        assert result.returncode == 0, result.stderr
    first, second = (request["body"] for request in fake.chat_requests())
    assert json.dumps(first["messages"][0]) == json.dumps(second["messages"][0])  # order and all
    assert json.dumps(first.get("tools")) == json.dumps(second.get("tools"))
    assert "SUB-RULE" in first["messages"][0]["content"]


def test_the_note_goes_before_the_first_user_text_only_when_sent():
    from ayder_cli.agent.conversation import Conversation

    conversation = Conversation("system")
    conversation.preamble = "<environment>\nDate: x\n</environment>"
    conversation.add_user("first")
    conversation.messages.append({"role": "assistant", "content": "a"})
    conversation.add_user("second")
    sent = conversation.for_request()
    assert sent[1] == {"role": "user", "content": "<environment>\nDate: x\n</environment>\n\nfirst"}
    assert sent[3] == {"role": "user", "content": "second"}
    assert conversation.messages[0] == {"role": "user", "content": "first"}  # stored as the user wrote it
    assert conversation.for_request() == sent  # the same on every request
