"""Links planted in a project (a cloned repository, an unpacked archive) lead nowhere outside it:
an AGENTS.md linked out of the root is not read, and nothing under .ayder/ -- the folder itself,
sessions/, memory/, a lock, a transcript, an undo journal -- is written or deleted through a link.
Each is the real ayder with a private HOME against the fake server; each refusal names the link."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import OUTSIDE_SECRET
from support.harness import server_args

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="needs POSIX symlinks")


def everything_sent(fake) -> str:
    return json.dumps([request["body"] for request in fake.chat_requests()])


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under directory and its bytes: what 'untouched' is checked against."""
    return {path.relative_to(directory).as_posix(): path.read_bytes()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def first_session(fake, run_ayder, project: Path, *args: str) -> Path:
    """A session written by an ordinary run; its transcript's path."""
    fake.queue(Reply(text="A1"))
    result = run_ayder(*server_args(fake, "ollama"), *args, "Q1")
    assert result.returncode == 0, result.stderr
    [transcript] = (project / ".ayder" / "sessions").glob("*.jsonl")
    return transcript


# --- project instructions


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_agents_md_linked_out_of_the_root_is_not_sent(fake, run_ayder, project, how):
    secret = project.parent / "secret"
    secret.write_text(OUTSIDE_SECRET + "\n")
    (project / "AGENTS.md").symlink_to("../secret" if how == "relative" else secret)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 0, result.stderr
    assert OUTSIDE_SECRET not in everything_sent(fake)
    notices = [line for line in result.stderr.splitlines() if "AGENTS.md" in line]
    assert len(notices) == 1 and "outside the project" in notices[0] and "not read" in notices[0]


def test_agents_md_linked_inside_the_root_is_still_read(fake, run_ayder, project):
    (project / "docs").mkdir()
    (project / "docs" / "rules.md").write_text("INSIDE-RULE: tabs.\n")
    (project / "AGENTS.md").symlink_to("docs/rules.md")
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 0, result.stderr
    assert "INSIDE-RULE" in everything_sent(fake)
    assert "AGENTS.md" not in result.stderr


def test_user_wide_agents_md_may_be_a_link_anywhere(fake, run_ayder, project, isolated_env):
    elsewhere = isolated_env / "dotfiles" / "agents.md"
    elsewhere.parent.mkdir()
    elsewhere.write_text("USER-RULE: be brief.\n")
    (isolated_env / ".config" / "ayder").mkdir(parents=True)
    (isolated_env / ".config" / "ayder" / "AGENTS.md").symlink_to(elsewhere)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 0, result.stderr
    assert "USER-RULE" in everything_sent(fake)


# --- .ayder/sessions: the lock, the transcript, the undo journal


def test_continue_never_truncates_a_planted_lock_link(fake, run_ayder_process, project, isolated_env):
    transcript = first_session(fake, run_ayder_process, project)
    bashrc = isolated_env / ".bashrc"
    bashrc.write_text("export KEEP=me\n")
    lock = transcript.with_suffix(".lock")
    lock.symlink_to(bashrc)
    fake.queue(Reply(text="A2"))
    result = run_ayder_process(*server_args(fake, "ollama"), "--continue", "Q2")
    assert bashrc.read_text() == "export KEEP=me\n"
    assert result.returncode == 1
    assert f"{lock.name} is a symbolic link" in result.stderr
    assert "remove the link" in result.stderr


def test_continue_never_appends_to_a_planted_transcript_link(fake, run_ayder, project, isolated_env):
    transcript = first_session(fake, run_ayder, project)
    outside = isolated_env / "diary.jsonl"
    outside.write_text('{"role": "user", "content": "' + OUTSIDE_SECRET + '"}\n')
    transcript.unlink()
    transcript.symlink_to(outside)
    before = outside.read_bytes()
    fake.queue(Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), "--continue", "Q2")
    assert outside.read_bytes() == before
    assert OUTSIDE_SECRET not in everything_sent(fake)
    assert result.returncode == 1
    assert f"{transcript.name} is a symbolic link" in result.stderr


def test_a_planted_undo_link_is_neither_written_nor_emptied(fake, run_ayder, project, isolated_env):
    (project / "notes.txt").write_text("old\n")
    write = Reply(text="", tool_calls=[{"name": "write_file",
                                        "arguments": {"file_path": "notes.txt", "content": "new\n"}}])
    fake.queue(write, Reply(text="Done."))
    first = run_ayder(*server_args(fake, "ollama"), "-w", "rewrite notes.txt")
    assert first.returncode == 0, first.stderr
    [undo] = (project / ".ayder" / "sessions").glob("*.undo")
    outside = isolated_env / "work"
    outside.mkdir()
    (outside / "000007.old").write_text("someone's file\n")  # an "orphan" load() would delete
    (outside / "index.json").write_text('{"version": 1, "next": 1, "entries": []}\n')
    before = snapshot(outside)
    for path in undo.iterdir():
        path.unlink()
    undo.rmdir()
    undo.symlink_to(outside, target_is_directory=True)

    fake.queue(write, Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--continue", "again")
    assert snapshot(outside) == before
    assert result.returncode == 1
    assert f"{undo.name} is a symbolic link" in result.stderr


# --- .ayder itself, or its folders, as a link out of the root


@pytest.mark.parametrize("linked", [".ayder", ".ayder/sessions"])
def test_a_linked_state_folder_gets_no_sessions_outside(fake, run_ayder, project, isolated_env, linked):
    outside = isolated_env / "elsewhere"
    outside.mkdir()
    (project / linked).parent.mkdir(exist_ok=True)
    (project / linked).symlink_to(outside, target_is_directory=True)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert list(outside.iterdir()) == []
    assert result.returncode == 1
    assert f"{linked.split('/')[-1]} is a symbolic link" in result.stderr
    assert "remove the link" in result.stderr


@pytest.mark.parametrize("linked", [".ayder/memory", ".ayder/tasks"])
def test_notes_checkpoint_and_tasks_are_not_written_through_a_link(fake, run_ayder, project, isolated_env, linked):
    outside = isolated_env / "elsewhere"
    outside.mkdir()
    (project / ".ayder").mkdir()
    (project / linked).symlink_to(outside, target_is_directory=True)
    calls = [{"name": "save_memory", "arguments": {"content": "a note"}},
             {"name": "create_task", "arguments": {"title": "A task", "description": "do it"}}]
    fake.queue(Reply(text="", tool_calls=calls), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", "--tools", "memory,tasks", "remember and plan")
    assert result.returncode == 0, result.stderr
    assert list(outside.iterdir()) == []
    assert f"{linked.split('/')[-1]} is a symbolic link" in everything_sent(fake)


def test_a_planted_checkpoint_link_is_not_restored(fake, run_ayder, project, isolated_env):
    secret = isolated_env / "secret.md"
    secret.write_text(f"# Checkpoint 1\n\n{OUTSIDE_SECRET}\n")
    (project / ".ayder" / "memory").mkdir(parents=True)
    (project / ".ayder" / "memory" / "current_memory.md").symlink_to(secret)
    fake.queue(Reply(text="hello"))
    result = run_ayder(*server_args(fake, "ollama"), "--restore", "hi")
    assert OUTSIDE_SECRET not in everything_sent(fake)
    assert result.returncode == 1
    assert f"current_memory.md is a symbolic link (to {secret})" in result.stderr


def test_a_planted_notes_link_is_not_read_to_the_model(fake, run_ayder, project, isolated_env):
    secret = isolated_env / "notes.jsonl"
    secret.write_text(json.dumps({"content": OUTSIDE_SECRET}) + "\n")
    (project / ".ayder" / "memory").mkdir(parents=True)
    (project / ".ayder" / "memory" / "memories.jsonl").symlink_to(secret)
    fake.queue(Reply(text="", tool_calls=[{"name": "load_memory", "arguments": {}}]), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "--tools", "memory", "what do you remember?")
    assert result.returncode == 0, result.stderr
    assert OUTSIDE_SECRET not in everything_sent(fake)
    assert "memories.jsonl is a symbolic link" in everything_sent(fake)
