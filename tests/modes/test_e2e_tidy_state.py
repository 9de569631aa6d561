"""Tidy state (issue 13): .ayder/ stays out of git, failed runs leave no transcript, old sessions
are pruned, short ids everywhere, token usage survives --continue; and the tool arguments models
really send (one alias table, `name` on tool results, ids streamed in pieces)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import sent_messages, server_args, write_json
from support.fakellm import Reply

from ayder_cli.storage.transcript import load


def session_files(project: Path) -> list[Path]:
    return sorted((project / ".ayder" / "sessions").glob("*.jsonl"))


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}).stdout


# --- .ayder/ and git


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_status_shows_nothing_of_ayder_state_after_a_run(fake, run_ayder, project):
    git(project, "init", "-q")
    fake.queue(Reply(tool_calls=[{"name": "save_memory", "arguments": {"content": "a note"}}]),
               Reply(text="done"))
    result = run_ayder(*server_args(fake, "ollama"), "--tools", "memory", "-w", "remember this")
    assert result.returncode == 0, result.stderr
    assert session_files(project) and (project / ".ayder" / "memory" / "memories.jsonl").exists()
    assert (project / ".ayder" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""


def test_an_existing_ayder_folder_is_left_as_the_user_made_it(fake, run_ayder, project):
    write_json(project / ".ayder" / "config.json", {"max_sessions": 5})
    fake.queue(Reply(text="hi"))
    assert run_ayder(*server_args(fake, "ollama"), "hello").returncode == 0
    assert not (project / ".ayder" / ".gitignore").exists()  # not made by ayder: the user's to manage
    assert session_files(project)


# --- no transcript without a reply


def test_a_run_against_a_closed_port_leaves_no_session_file(run_ayder, project, closed_url):
    result = run_ayder("--base-url", closed_url, "hello")
    assert result.returncode == 1
    assert session_files(project) == []
    assert list(project.rglob("*.lock")) == []


def test_a_rejected_key_leaves_no_session_file_but_a_later_answer_keeps_one(fake, run_ayder, project):
    fake.queue(Reply(status=401, error="invalid api key"))
    result = run_ayder(*server_args(fake, "openai"), "hello")
    assert result.returncode == 1
    assert session_files(project) == []
    fake.queue(Reply(status=401, error="invalid api key"), Reply(text="answer"))
    result = run_ayder(*server_args(fake, "openai"), input="first\nsecond\n")
    [kept] = session_files(project)
    assert [m["role"] for m in load(kept)[0]][-2:] == ["user", "assistant"]


# --- pruning and short ids


def old_sessions(project: Path, count: int) -> list[Path]:
    """count sessions of earlier runs, oldest first, each a minute older than the next."""
    directory = project / ".ayder" / "sessions"
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = directory / f"20260101T00{number:02d}00Z-{number:06x}.jsonl"
        path.write_text(json.dumps({"type": "session", "version": 1}) + "\n"
                        + json.dumps({"role": "user", "content": f"question {number}"}) + "\n"
                        + json.dumps({"role": "assistant", "content": "answer"}) + "\n")
        when = 1_700_000_000 + 60 * number  # 2023: before this run
        os.utime(path, (when, when))
        paths.append(path)
    return paths


def test_sessions_are_pruned_to_the_newest_max_sessions(fake, run_ayder, project):
    keep = 4
    write_json(project / ".ayder" / "config.json", {"max_sessions": keep})
    old = old_sessions(project, keep + 3)
    (old[0].with_suffix(".undo")).mkdir()  # an old session's undo journal goes with it
    fake.queue(Reply(text="hi"))
    result = run_ayder(*server_args(fake, "ollama"), "hello")
    assert result.returncode == 0, result.stderr
    left = session_files(project)
    assert len(left) == keep
    assert set(old[-(keep - 1):]) <= set(left)  # the newest earlier ones, and this run's
    assert not old[0].with_suffix(".undo").exists()


def test_the_default_keeps_a_hundred_sessions(fake, run_ayder, project):
    old_sessions(project, 3)
    fake.queue(Reply(text="hi"))
    assert run_ayder(*server_args(fake, "ollama"), "hello").returncode == 0
    assert len(session_files(project)) == 4


def test_sessions_and_resume_errors_show_short_ids(fake, run_ayder, project):
    old = old_sessions(project, 2)
    fake.queue(Reply(text="hi"))
    listing = run_ayder(*server_args(fake, "ollama"), input="/sessions\n")
    assert listing.returncode == 0, listing.stderr
    assert ".jsonl" not in listing.stderr
    assert any(line.lstrip().startswith(f"{1:06x}") for line in listing.stderr.splitlines())

    missing = run_ayder(*server_args(fake, "ollama"), "--resume", "nosuch", "hello")
    assert missing.returncode == 2
    assert f"{0:06x}" in missing.stderr and f"{1:06x}" in missing.stderr
    assert old[0].name not in missing.stderr

    ambiguous = run_ayder(*server_args(fake, "ollama"), "--resume", "2026", "hello")
    assert ambiguous.returncode == 2
    assert f"{0:06x}" in ambiguous.stderr and ".jsonl" not in ambiguous.stderr


# --- usage across runs


def test_usage_goes_on_after_continue(fake, run_ayder, project, protocol):
    fake.queue(Reply(text="first answer", usage=(100, 20)))
    assert run_ayder(*server_args(fake, protocol), "first").returncode == 0
    fake.queue(Reply(text="second answer", usage=(150, 30)))
    result = run_ayder(*server_args(fake, protocol), "--continue", input="second\n/usage\n")
    assert result.returncode == 0, result.stderr
    assert "2 requests · prompt 250 · completion 50 · total 300" in result.stderr
    [path] = session_files(project)
    assert [m["role"] for m in load(path)[0]] == ["user", "assistant", "user", "assistant"]  # usage lines skipped


# --- tool arguments


@pytest.mark.parametrize("tool, arguments", [
    ("read_file", {"path": "notes.txt"}),
    ("read_file", {"file": "notes.txt"}),
    ("read_file", {"filename": "notes.txt"}),
    ("read_file", {"file_path": "notes.txt"}),
    ("list_files", {"path": "docs"}),
    ("list_files", {"dir": "docs"}),
    ("list_files", {"directory": "docs"}),
])
def test_file_and_directory_aliases_in_native_calls(fake, run_ayder, project, protocol, tool, arguments):
    (project / "notes.txt").write_text("the zebra line\n")
    (project / "docs").mkdir()
    (project / "docs" / "guide.md").write_text("guide\n")
    fake.queue(Reply(tool_calls=[{"name": tool, "arguments": arguments}]), Reply(text="done"))
    result = run_ayder(*server_args(fake, protocol), "look")
    assert result.returncode == 0, result.stderr
    [tool_message] = [m for m in sent_messages(fake.chat_requests()[-1]) if m["role"] == "tool"]
    assert tool_message["content"].startswith("ok"), tool_message
    assert ("zebra" if tool == "read_file" else "guide.md") in tool_message["content"]


def test_tool_results_carry_the_tool_name_and_a_split_id_is_joined(fake, run_ayder, project):
    (project / "notes.txt").write_text("zebra\n")
    fake.queue(Reply(tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"},
                                  "id": "call_9f3ab27c41"}], id_pieces=3),
               Reply(text="done"))
    result = run_ayder(*server_args(fake, "openai"), "look")
    assert result.returncode == 0, result.stderr
    sent = sent_messages(fake.chat_requests()[-1])
    [assistant] = [m for m in sent if m["role"] == "assistant"]
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_9f3ab27c41"]
    [tool_message] = [m for m in sent if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_9f3ab27c41"
    assert tool_message["name"] == "read_file"
    assert "zebra" in tool_message["content"]


def test_an_id_repeated_in_every_fragment_is_not_doubled(fake, run_ayder, project):
    (project / "notes.txt").write_text("zebra\n")
    fake.queue(Reply(tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"},
                                  "id": "call_7"}], repeat_id=True),
               Reply(text="done"))
    assert run_ayder(*server_args(fake, "openai"), "look").returncode == 0
    [tool_message] = [m for m in sent_messages(fake.chat_requests()[-1]) if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_7"
