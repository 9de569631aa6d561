"""Sessions end to end: the transcript is written as the conversation happens and comes back;
.ayder/ stays out of git, a run without a reply leaves no transcript, old sessions are pruned,
ids are shown short, and token usage goes on after --continue."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.files import write_json
from support.harness import read_until, server_args
from support.requests_seen import sent_messages

from ayder_cli.storage.transcript import load


def conversation_of(request: dict) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in sent_messages(request) if m["role"] != "system"]


def test_continue_after_sigkill_restores_every_completed_message(fake, spawn_ayder, run_ayder):
    release = threading.Event()
    fake.queue(Reply(text="A1"), Reply(chunks=["half of A2"], hold_after=1, release=release))
    process = spawn_ayder(*server_args(fake, "ollama"), stdin=subprocess.PIPE)
    process.stdin.write(b"Q1\nQ2\n")
    process.stdin.flush()
    read_until(process.stdout, b"half of A2")  # Q2's reply is streaming when ayder is killed
    process.send_signal(signal.SIGKILL)
    process.wait()
    release.set()

    fake.queue(Reply(text="A3"))
    result = run_ayder(*server_args(fake, "ollama"), "--continue", "Q3")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "A3\n"
    assert conversation_of(fake.chat_requests()[-1]) == [("user", "Q1"), ("assistant", "A1"), ("user", "Q2"),
                                                         ("user", "Q3")]
    assert "resumed" in result.stderr


def test_resume_by_saved_name_and_the_session_list(fake, run_ayder):
    fake.queue(Reply(text="A1"))
    first = run_ayder(*server_args(fake, "ollama"), input="remember the word zebra\n/save zoo\n/sessions\n")
    assert first.returncode == 0, first.stderr
    assert "saved as zoo" in first.stderr and "remember the word zebra" in first.stderr
    fake.queue(Reply(text="zebra"))
    second = run_ayder(*server_args(fake, "ollama"), "--resume", "zoo", "which word?")
    assert second.returncode == 0, second.stderr
    assert conversation_of(fake.chat_requests()[-1])[:2] == [("user", "remember the word zebra"),
                                                             ("assistant", "A1")]


def test_resume_of_an_unknown_session_is_a_usage_error(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), "--resume", "nope", "hi")
    assert result.returncode == 2
    assert "nope" in result.stderr


def test_the_api_key_never_reaches_the_transcript(fake, run_ayder, project):
    secret = "sk-live-TRANSCRIPT-9"
    fake.queue(Reply(text=f"I saw {secret} somewhere"))
    result = run_ayder(*server_args(fake, "openai"), f"my key is {secret}", env={"OPENAI_API_KEY": secret})
    assert result.returncode == 0, result.stderr
    transcripts = list((project / ".ayder" / "sessions").glob("*.jsonl"))
    assert transcripts
    text = "".join(path.read_text() for path in transcripts)
    assert "my key is ***" in text and secret not in text


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
