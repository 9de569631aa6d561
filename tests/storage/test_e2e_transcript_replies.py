"""The transcript names each reply's model and finish reason, beside the token totals, through the
real ayder against the fake server; the messages sent back to the server stay as they were."""

from __future__ import annotations

import json
from pathlib import Path

from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import sent_messages

from ayder_cli.storage.transcript import load


def transcript(project: Path) -> Path:
    [path] = sorted((project / ".ayder" / "sessions").glob("*.jsonl"))
    return path


def records(project: Path) -> list[dict]:
    return [json.loads(line) for line in transcript(project).read_text(encoding="utf-8").splitlines()]


def test_each_reply_is_recorded_with_its_model_and_finish_reason(fake, run_ayder, project, protocol, notes):
    fake.queue(
        Reply(text="", tool_calls=[{"name": "read_file", "arguments": {"file_path": "notes.txt"}}], usage=(90, 12)),
        Reply(text="Three lines.", usage=(140, 5)),
    )
    result = run_ayder(*server_args(fake, protocol), "-m", "coder-7b", "read notes.txt")
    assert result.returncode == 0, result.stderr
    lines = records(project)
    replies = [line["reply"] for line in lines if line.get("type") == "usage"]
    first_finish = "tool_calls" if protocol == "openai" else "stop"  # what each server says
    assert replies == [
        {"model": "coder-7b", "finish_reason": first_finish, "prompt_tokens": 90, "completion_tokens": 12},
        {"model": "coder-7b", "finish_reason": "stop", "prompt_tokens": 140, "completion_tokens": 5},
    ]
    # Each record follows its reply; the messages themselves carry nothing the server did not send.
    roles = [line.get("role") or line["type"] for line in lines]
    assert roles == ["session", "user", "assistant", "usage", "tool", "assistant", "usage"]
    assert all("model" not in message and "finish_reason" not in message for message in load(transcript(project))[0])


def test_a_reply_cut_at_max_tokens_and_a_model_switched_midway_are_recorded(fake, run_ayder, project):
    fake.queue(Reply(text="cut short", finish_reason="length"), Reply(text="second"), Reply(text="other model"))
    result = run_ayder(*server_args(fake, "openai"), "-m", "first-model", "--max-tokens", "8",
                       input="one\n/model second-model\ntwo\n")
    assert result.returncode == 0, result.stderr
    replies = [line["reply"] for line in records(project) if line.get("type") == "usage"]
    assert [(r["model"], r["finish_reason"]) for r in replies] == [
        ("first-model", "length"), ("first-model", "stop"), ("second-model", "stop")]
    # the continuation asked after the cut reply, and nothing of the records, went to the server
    assert [m["role"] for m in sent_messages(fake.chat_requests()[-1])][1:] == [
        "user", "assistant", "user", "assistant", "user"]
