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


def write_call(path: str, content: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": path, "content": content}}])


def test_diff_shows_each_changed_file_against_how_it_was_before_the_session(fake, run_ayder, project):
    (project / "app.py").write_text("a = 1\nb = 2\n")
    fake.queue(write_call("app.py", "a = 1\nb = 3\n"), write_call("app.py", "a = 1\nb = 4\n"),
               write_call("new.txt", "hello\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="change things\n/diff\n")
    assert result.returncode == 0, result.stderr
    shown = result.stderr[result.stderr.index("--- a/app.py"):].splitlines()
    # against the file before the session's first change, not before the last one; plain when not a tty
    assert shown[:5] == ["--- a/app.py", "+++ b/app.py", "@@ -1,2 +1,2 @@", " a = 1", "-b = 2"]
    assert shown[5:10] == ["+b = 4", "--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1 @@", "+hello"]
    assert shown[10] == "2 files changed in this session (/undo takes changes back)"
    assert "\033[" not in result.stderr


def test_diff_says_no_changes_when_there_are_none(fake, run_ayder, project):
    (project / "app.py").write_text("a = 1\n")
    fake.queue(write_call("app.py", "a = 2\n"), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="/diff\nchange it\n/undo\n/diff\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("no changes: no file ayder changed in this session differs from before it") == 2


def test_a_long_diff_is_cut_in_its_middle(fake, run_ayder, project):
    fake.queue(write_call("big.txt", "".join(f"line {n}\n" for n in range(500))), Reply(text="Done."))
    result = run_ayder(*server_args(fake, "ollama"), "-w", input="write it\n/diff\n")
    assert result.returncode == 0, result.stderr
    assert "+line 30\n" in result.stderr and "+line 499\n" in result.stderr and "+line 250\n" not in result.stderr
    assert "lines of the diff not shown ...]" in result.stderr
