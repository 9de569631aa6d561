"""Sessions end to end: the transcript is written as the conversation happens and comes back."""

from __future__ import annotations

import signal
import subprocess
import threading

from support.harness import read_until, server_args
from support.requests_seen import sent_messages
from support.fakellm import Reply


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
