"""Confirmation on a terminal: ayder on a pseudo-terminal (pexpect), the fake server.

The model asks to write a file; the user sees the diff and answers on the
terminal, also when stdin is a pipe. With no terminal at all the write is
denied and the model is told how it could be allowed. ayder runs in-process on the
terminal, except where a process is needed: Ctrl-C as a signal, /dev/tty as the
controlling terminal, and no controlling terminal at all.
"""

from __future__ import annotations

import subprocess

import pytest
from support.fakellm import Reply
from support.harness import ayder_command
from support.pty_harness import expect_prompt, finish

pexpect = pytest.importorskip("pexpect")

QUESTION = "Allow? y yes, n no, a always for this tool, d deny with a reason [y/N/a/d] "
FINAL = "Final answer."


def write_call(content: str = "new\n", path: str = "a.txt", call_id: str = "call_1") -> dict:
    return {"name": "write_file", "arguments": {"file_path": path, "content": content}, "id": call_id}


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


@pytest.fixture
def target(project):
    path = project / "a.txt"
    path.write_text("old\n", encoding="utf-8")
    return path


@pytest.fixture
def oneshot(fake, ayder_on_pty):
    """`ayder "write it"` at a terminal: stdin, stdout and stderr are the pty; no colour unless asked."""

    def start(*args: str, color: bool = False):
        return ayder_on_pty("--base-url", fake.url, *args, "write it", color=color)

    return start


def test_yes_shows_the_diff_and_writes(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact('ayder wants to write: write_file(file_path="a.txt"')
    child.expect_exact("--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1 +1 @@\r\n-old\r\n+new\r\n")
    child.expect_exact(QUESTION)
    assert target.read_text() == "old\n"  # nothing written before the answer
    child.send("y")  # one key, no Enter
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert target.read_text() == "new\n"
    assert "denied" not in tool_messages(fake.chat_requests()[1])[0]


def test_the_diff_is_coloured_on_a_colour_terminal(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot(color=True)
    child.expect_exact("\033[31m-old\033[0m\r\n\033[32m+new\033[0m\r\n")
    child.expect_exact("[y/N/a/d]")
    child.send("n")  # one key, no Enter
    assert finish(child) == 0


def test_no_leaves_the_file_and_tells_the_model(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact(QUESTION)
    child.send("n")  # one key, no Enter
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert target.read_text() == "old\n"
    assert tool_messages(fake.chat_requests()[1]) == ["error: denied by the user"]


def test_always_writes_and_does_not_ask_again_for_the_tool(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]),
               Reply(text="", tool_calls=[write_call("second\n", path="b.txt", call_id="call_2")]),
               Reply(text=FINAL))
    child = oneshot()
    child.expect_exact(QUESTION)
    child.send("a")  # one key, no Enter
    child.expect_exact(FINAL)
    before_final = child.before
    assert finish(child) == 0
    assert target.read_text() == "new\n"
    assert (target.parent / "b.txt").read_text() == "second\n"
    assert QUESTION not in before_final and "b.txt" in before_final  # the second write ran unasked


def test_deny_with_a_reason_reaches_the_model(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact(QUESTION)
    child.send("d")  # one key, no Enter
    child.expect_exact("Reason for the model: ")
    child.sendline("keep the old content, edit b.txt instead")
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert target.read_text() == "old\n"
    [result] = tool_messages(fake.chat_requests()[1])
    assert "keep the old content, edit b.txt instead" in result


def test_ctrl_c_at_the_question_writes_nothing(fake, ayder_on_pty_process, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = ayder_on_pty_process("--base-url", fake.url, "write it", color=False)  # SIGINT: a process
    child.expect_exact(QUESTION)
    child.sendintr()
    child.expect_exact("\r\n  ✗ interrupted by the user\r\n")  # on a line of its own, after the ^C
    assert finish(child) == 130  # a one-shot run stops: the model is not asked again
    assert target.read_text() == "old\n"
    assert len(fake.chat_requests()) == 1


def test_a_new_file_shows_its_whole_content(fake, oneshot, project):
    fake.queue(Reply(text="", tool_calls=[write_call("one\ntwo\n", path="fresh.txt")]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact("--- /dev/null\r\n+++ b/fresh.txt\r\n@@ -0,0 +1,2 @@\r\n+one\r\n+two\r\n")
    child.expect_exact(QUESTION)
    child.send("y")  # one key, no Enter
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert (project / "fresh.txt").read_text() == "one\ntwo\n"


def test_with_w_the_write_runs_without_asking(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot("-w")
    child.expect_exact(FINAL)
    shown = child.before
    assert finish(child) == 0
    assert QUESTION not in shown
    assert target.read_text() == "new\n"


def test_piped_stdin_asks_on_the_terminal(fake, ayder_on_pty_process, target):
    """A piped script: the question is asked and answered on the terminal, never read from the pipe.

    The script's second line is "n": read as the answer, it would deny the write.
    """
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    # A process: the question goes to /dev/tty, its controlling terminal.
    child = ayder_on_pty_process("--base-url", fake.url, shell="printf 'write it\\nn\\n' | {ayder}", color=False)
    child.expect_exact("+new")
    child.expect_exact(QUESTION)
    child.send("y")  # one key, no Enter
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert target.read_text() == "new\n"


def test_no_terminal_denies_and_says_how_to_allow(fake, project, target):
    """No controlling terminal (a new session, every stream a pipe): nobody to ask, so no write."""
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    done = subprocess.run([*ayder_command(), "--base-url", fake.url, "write it"], cwd=project,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          start_new_session=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FINAL + "\n"
    assert target.read_text() == "old\n"
    assert QUESTION not in done.stderr
    warning = [line for line in done.stderr.splitlines() if "no terminal" in line]
    assert warning and "-w" in warning[0]
    [result] = tool_messages(fake.chat_requests()[1])
    assert result.startswith("error: denied") and "-w" in result


def test_the_repl_asks_and_goes_on(fake, ayder_on_pty, target):
    """In the interactive REPL the answer is typed at the same terminal as the prompts."""
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL), Reply(text="Second answer."))
    child = ayder_on_pty("--base-url", fake.url, color=False)
    expect_prompt(child)
    child.send("write it\r")
    child.expect_exact(QUESTION)
    child.send("y")  # one key, no Enter
    child.expect_exact(FINAL)
    assert target.read_text() == "new\n"
    expect_prompt(child)
    child.send("and now?\r")
    child.expect_exact("Second answer.")
    expect_prompt(child)
    child.sendcontrol("d")
    assert finish(child) == 0


def test_enter_alone_takes_the_default_no_and_the_denial_is_shown_once(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact(QUESTION)
    child.send("\r")
    child.expect_exact(FINAL)
    screen = child.before
    assert finish(child) == 0
    assert target.read_text() == "old\n"
    assert screen.count("denied") == 1 and "✗ denied" in screen
    assert "denied by the user" not in screen  # the wording for the model is not echoed
    assert tool_messages(fake.chat_requests()[1])[0].endswith("denied by the user")


def test_a_key_that_is_no_answer_asks_again_without_enter(fake, oneshot, target):
    fake.queue(Reply(text="", tool_calls=[write_call()]), Reply(text=FINAL))
    child = oneshot()
    child.expect_exact(QUESTION)
    child.send("x")
    child.expect_exact("Please answer y, n, a or d.")
    child.expect_exact(QUESTION)
    child.send("y")
    child.expect_exact(FINAL)
    assert finish(child) == 0
    assert target.read_text() == "new\n"
