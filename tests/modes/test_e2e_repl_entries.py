"""What a REPL line can be besides a prompt and a slash command, and the REPL's session commands:
/clear, /diff, `!command`, `!!command` and `@path` (a piped script's lines are handled as typed ones)."""

from __future__ import annotations

from support.fakellm import Reply
from support.harness import server_args
from support.requests_seen import messages


def test_clear_starts_a_fresh_conversation_and_session_keeping_the_system_prompt(fake, run_ayder, project):
    fake.queue(Reply(text="A1"), Reply(text="A2"))
    result = run_ayder(*server_args(fake, "ollama"), "--system", "Be terse.", input="Q1\n/clear\nQ2\n")
    assert result.returncode == 0, result.stderr
    second = messages(fake.chat_requests()[1])
    assert second[0] == {"role": "system", "content": "Be terse."}
    assert [m["role"] for m in second] == ["system", "user"] and second[1]["content"].endswith("Q2")
    line = next(line for line in result.stderr.splitlines() if line.startswith("new conversation"))
    assert "the last one is kept: ayder --resume " in line
    assert len(list((project / ".ayder" / "sessions").glob("*.jsonl"))) == 2  # the first one stays


def test_clear_on_a_fresh_conversation_says_so_in_one_line(fake, run_ayder):
    result = run_ayder(*server_args(fake, "ollama"), input="/clear\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "new conversation"
