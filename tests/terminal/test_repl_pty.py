"""The interactive REPL on a terminal (a pseudo-terminal, pexpect), and Ctrl-C in one-shot mode.

ayder runs in-process on the terminal (support/pty_harness.py); the tests of Ctrl-C as a signal
(SIGINT) start the real process.
"""

from __future__ import annotations

import io
import signal
import threading

import pytest
from support.fakellm import Reply
from support.harness import server_args, sigint_mid_reply
from support.pty_harness import (expect_prompt, finish, wait_for_raw_mode)
from support.requests_seen import sent_messages

pexpect = pytest.importorskip("pexpect")

DEFAULT_REPLY = "Default fake reply."
INTERRUPTED_NOTE = "[reply interrupted by the user]"


@pytest.fixture
def repl(fake, ayder_on_pty):
    """Start ayder on a dumb terminal (in-process); the fake's default reply is easy to wait for."""
    fake.default = Reply(text=DEFAULT_REPLY)
    return ayder_on_pty


@pytest.fixture
def repl_process(fake, ayder_on_pty_process):
    """The same with the real ayder process: Ctrl-C as a signal reaches only a process."""
    fake.default = Reply(text=DEFAULT_REPLY)
    return ayder_on_pty_process


def test_typed_prompt_streams_the_reply(fake, repl, protocol):
    fake.queue(Reply(text="Streamed reply text.", usage=(812, 7)))
    child = repl(*server_args(fake, protocol))
    expect_prompt(child)
    child.sendline("hello there")
    child.expect_exact("Streamed reply text.")
    child.expect_exact("tokens: in 812")
    expect_prompt(child)
    assert sent_messages(fake.chat_requests()[0])[-1] == {"role": "user", "content": "hello there"}
    child.sendline("/exit")
    assert finish(child) == 0


def test_xterm_prompt_streams_the_reply(fake, repl):
    """The full-screen-capable renderer (TERM=xterm), not only the dumb-terminal one."""
    fake.queue(Reply(text="Rendered on xterm."))
    child = repl("--base-url", fake.url, term="xterm")
    child.expect_exact("/help for commands")
    wait_for_raw_mode(child)
    child.send("question\r")
    child.expect_exact("Rendered on xterm.")
    child.expect_exact("tokens: in")
    wait_for_raw_mode(child)  # the next prompt is up
    child.sendcontrol("d")
    assert finish(child) == 0
    assert sent_messages(fake.chat_requests()[0])[-1]["content"] == "question"


def test_repl_with_stdout_redirected_keeps_the_file_clean(fake, repl, project):
    """`ayder > answers.txt` at a terminal: prompt and notes on the screen, only answers in the file."""
    fake.queue(Reply(text="Only this goes to the file.", usage=(812, 7)))
    child = repl("--base-url", fake.url, stdout=project / "answers.txt")
    child.expect_exact("/help for commands")
    wait_for_raw_mode(child)
    child.send("question\r")
    child.expect_exact("tokens: in 812")
    wait_for_raw_mode(child)
    child.sendcontrol("d")
    assert finish(child) == 0
    assert (project / "answers.txt").read_text() == "Only this goes to the file.\n"


def test_ctrl_c_mid_reply_keeps_the_partial_reply_marked_interrupted(fake, repl_process, protocol):
    release = threading.Event()
    fake.queue(Reply(chunks=["Partial ", "reply ", "so far", " and never this"], hold_after=3, release=release),
               Reply(text="Second answer."))
    child = repl_process(*server_args(fake, protocol))
    expect_prompt(child)
    child.sendline("first question")
    child.expect_exact("Partial reply so far")
    child.sendintr()
    child.expect_exact("interrupted")
    expect_prompt(child)
    release.set()
    child.sendline("second question")
    child.expect_exact("Second answer.")
    expect_prompt(child)
    messages = sent_messages(fake.chat_requests()[1])
    assert messages[-3:] == [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": f"Partial reply so far\n\n{INTERRUPTED_NOTE}"},
        {"role": "user", "content": "second question"},
    ]
    child.sendline("/exit")
    assert finish(child) == 0


def test_ctrl_c_while_waiting_for_the_first_token_returns_to_the_prompt(fake, repl_process):
    fake.queue(Reply(text="never shown", hold_after=0, release=threading.Event()))
    child = repl_process("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("slow question")
    fake.wait_for_chat(1)  # the request is out; no token has come back
    child.sendintr()
    child.expect_exact("interrupted")
    expect_prompt(child)
    child.sendline("next question")
    child.expect_exact(DEFAULT_REPLY)
    assert sent_messages(fake.chat_requests()[1])[-3:] == [
        {"role": "user", "content": "slow question"},
        {"role": "assistant", "content": INTERRUPTED_NOTE},
        {"role": "user", "content": "next question"},
    ]
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0


def test_ctrl_c_at_the_prompt_clears_the_line(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.send("half typed")
    child.expect_exact("half typed")
    child.sendcontrol("c")
    expect_prompt(child)
    child.sendline("fresh line")
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    assert sent_messages(fake.chat_requests()[0])[-1]["content"] == "fresh line"
    assert child.isalive()
    child.sendline("/exit")
    assert finish(child) == 0


def test_triple_quote_block_typed_at_the_prompt(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline('"""')
    expect_prompt(child, "... ")
    child.sendline("def f():")
    expect_prompt(child, "... ")
    child.sendline("    return 1")
    expect_prompt(child, "... ")
    child.sendline('"""')
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    assert sent_messages(fake.chat_requests()[0])[-1]["content"] == "def f():\n    return 1"
    child.sendline("/exit")
    assert finish(child) == 0


def test_ctrl_c_inside_a_block_discards_it(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline('"""')
    expect_prompt(child, "... ")
    child.sendline("never sent")
    expect_prompt(child, "... ")
    child.sendcontrol("c")
    child.expect_exact("block discarded")
    expect_prompt(child)
    child.sendline("sent")
    child.expect_exact(DEFAULT_REPLY)
    assert [sent_messages(r)[-1]["content"] for r in fake.chat_requests()] == ["sent"]
    expect_prompt(child)
    child.sendcontrol("d")
    assert finish(child) == 0


def test_exit_command_exits_0(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    assert fake.chat_requests() == []


def test_ctrl_d_exits_0(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendeof()
    assert finish(child) == 0


def test_failed_prompt_reports_and_the_repl_goes_on(repl, fake):
    rejected = Reply(status=400, error="that was a bad request")
    fake.queue(rejected, Reply(text="fine now"))
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("bad")
    child.expect_exact("that was a bad request")
    expect_prompt(child)
    child.sendline("good")
    child.expect_exact("fine now")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0  # leaving the REPL is not a failure


def test_history_file_is_written_under_xdg_state_home(fake, repl, isolated_env):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("remember this line")
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    history = isolated_env / ".local" / "state" / "ayder" / "history"
    assert "remember this line" in history.read_text()


def test_history_is_recalled_with_the_up_arrow(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendline("from an earlier session")
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    child.sendeof()  # not /exit: that would be the newest history entry
    finish(child)
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.send("\x1b[A")  # up arrow
    child.send("\r")
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    assert sent_messages(fake.chat_requests()[1])[-1]["content"] == "from an earlier session"
    child.sendline("/exit")
    assert finish(child) == 0


def test_one_shot_ctrl_c_mid_reply_exits_130_keeping_the_partial_text(fake, spawn_ayder, protocol):
    code, out, err = sigint_mid_reply(fake, spawn_ayder, *server_args(fake, protocol), "q")
    assert code == 130, err
    assert out == "kept part \n", err
    assert "interrupted" in err
    assert "Traceback" not in err


def test_one_shot_ctrl_c_before_the_first_token_exits_130(fake, spawn_ayder):
    fake.queue(Reply(text="never shown", hold_after=0, release=threading.Event()))
    process = spawn_ayder("--base-url", fake.url, "q")
    fake.wait_for_chat(1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert out == b""
    assert "interrupted" in err.decode() and "Traceback" not in err.decode()


# --- one-shot on a terminal: colours and the spinner are for people, NO_COLOR turns them off


def test_one_shot_on_a_terminal_shows_a_spinner_until_the_first_token(fake, ayder_on_pty):
    release = threading.Event()
    fake.queue(Reply(text="after the wait", hold_after=0, release=release, usage=(812, 7)))
    child = ayder_on_pty("--base-url", fake.url, "q", term="xterm")
    try:
        child.expect_exact("waiting for the model")
        release.set()
        child.expect_exact("after the wait")
        child.expect_exact("\x1b[2mtokens: in 812")  # dimmed
        assert finish(child) == 0
    finally:
        release.set()
        child.close(force=True)


@pytest.mark.parametrize("no_color", [False, "NO_COLOR", "--no-color"])
def test_error_is_red_on_a_terminal_unless_no_color(fake, ayder_on_pty, no_color):
    fake.queue(Reply(status=400, error="plain failure"))
    flags = ["--no-color"] if no_color == "--no-color" else []
    child = ayder_on_pty("--base-url", fake.url, *flags, "q", term="xterm", color=no_color != "NO_COLOR")
    child.logfile_read = seen = io.StringIO()
    try:
        child.expect_exact("plain failure")
        assert finish(child) == 1
    finally:
        child.close(force=True)
    if no_color:
        assert seen.getvalue().startswith("error: ")
        assert "\x1b[" not in seen.getvalue()
    else:
        assert "\x1b[31merror: " in seen.getvalue()


@pytest.mark.parametrize("answer, restored", [("y", True), ("", False)])
def test_the_repl_offers_to_restore_a_checkpoint(fake, repl, project, answer, restored):
    memory = project / ".ayder" / "memory"
    memory.mkdir(parents=True)
    (memory / "current_memory.md").write_text("# Checkpoint 1\n\nGoal: finish the parser.\n")
    child = repl(*server_args(fake, "ollama"))
    expect_prompt(child, "Restore it? [y/N] ")
    child.sendline(answer)
    expect_prompt(child)
    child.sendline("go on")
    child.expect_exact(DEFAULT_REPLY)
    sent = str(fake.chat_requests()[0]["body"]["messages"])
    assert ("Goal: finish the parser." in sent) is restored
    child.sendline("/exit")
    assert finish(child) == 0


@pytest.mark.parametrize("typed, then", [("fix the bug\r", ""), ("fix the", " bug\r")], ids=["line", "unended"])
def test_a_message_typed_while_ayder_starts_is_not_the_checkpoints_answer_and_is_sent(fake, repl, project, typed,
                                                                                     then):
    memory = project / ".ayder" / "memory"
    memory.mkdir(parents=True)
    (memory / "current_memory.md").write_text("# Checkpoint 1\n\nGoal: finish the parser.\n")
    fake.starting = threading.Event()  # the server answers nothing until the test has typed ahead
    child = repl(*server_args(fake, "ollama"), term="xterm")  # a terminal that shows a prompt's text
    try:
        child.expect_exact("/help for commands")  # the banner: ayder is starting, asking the server
        child.send(typed)  # typed before any question, the terminal still in line mode
    finally:
        fake.starting.set()
    expect_prompt(child, "Restore it? [y/N]")
    child.send("y\r")  # the answer is the key pressed after the question, not the line typed before it
    if then:
        expect_prompt(child, "fix the")  # the line not ended waits at the prompt, to be finished
        child.send(then)
    child.expect_exact(DEFAULT_REPLY)
    first = fake.chat_requests()[0]
    assert sent_messages(first)[-1]["content"] == "fix the bug"
    assert "Goal: finish the parser." in str(first["body"]["messages"])  # the answer was y: restored
    expect_prompt(child, ">")  # drawn with xterm's codes after it, not a space
    child.sendline("/exit")
    assert finish(child) == 0
    assert len(fake.chat_requests()) == 1  # nothing else was sent: "y" was not taken for a message


# --- Ctrl-C twice at an empty prompt leaves

LEAVE_HINT = "Ctrl-C again within a second leaves"


def test_ctrl_c_twice_at_an_empty_prompt_leaves_after_one_hint(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.sendcontrol("c")
    child.expect_exact(LEAVE_HINT)
    expect_prompt(child)
    child.sendcontrol("c")
    assert finish(child) == 0
    assert LEAVE_HINT not in child.before  # said once
    assert fake.chat_requests() == []


def test_ctrl_c_twice_far_apart_stays_and_hints_once(fake, repl, seams):
    now = [100.0]
    seams["clock"] = lambda: now[0]  # the REPL's clock, moved by the test instead of waited for
    child = repl("--base-url", fake.url)
    try:
        expect_prompt(child)
        child.sendcontrol("c")
        child.expect_exact(LEAVE_HINT)
        expect_prompt(child)
        now[0] += 1.3  # past the second in which a second Ctrl-C leaves
        child.sendcontrol("c")
        expect_prompt(child)
        child.sendline("still here?")
        child.expect_exact(DEFAULT_REPLY)
        expect_prompt(child)
        assert LEAVE_HINT not in child.before
        child.sendcontrol("d")
        assert finish(child) == 0
    finally:
        child.close()


def test_ctrl_c_that_clears_a_line_does_not_count_towards_leaving(fake, repl):
    child = repl("--base-url", fake.url)
    expect_prompt(child)
    child.send("half typed")
    child.expect_exact("half typed")
    child.sendcontrol("c")  # clears the line
    expect_prompt(child)
    child.sendcontrol("c")  # the first at an empty prompt: the hint, not the exit
    child.expect_exact(LEAVE_HINT)
    expect_prompt(child)
    assert child.isalive()
    child.sendline("/exit")
    assert finish(child) == 0


def test_ctrl_c_counter_with_a_clock():
    from ayder_cli.modes.repl import CtrlCToLeave

    now, hints = [100.0], []
    leave = CtrlCToLeave(lambda: hints.append(1), clock=lambda: now[0])
    assert not leave.pressed(empty=True) and hints == [1]
    now[0] += 0.5
    assert leave.pressed(empty=True)
    leave.reset()
    assert not leave.pressed(empty=True)
    now[0] += 2
    assert not leave.pressed(empty=True) and hints == [1]  # too late: counts as a first press, no new hint
    assert not leave.pressed(empty=False)  # a line cleared
    now[0] += 0.1
    assert not leave.pressed(empty=True)


@pytest.mark.parametrize("no_color", ["NO_COLOR", "--no-color"])
def test_a_usage_error_on_a_terminal_is_plain_with_no_color(ayder_on_pty, no_color):
    flags = ["--no-color"] if no_color == "--no-color" else []
    child = ayder_on_pty(*flags, "--temperature", "9", "q", term="xterm", color=no_color != "NO_COLOR")
    child.logfile_read = seen = io.StringIO()
    assert finish(child) == 2
    assert seen.getvalue().startswith("error: ") and "\x1b[" not in seen.getvalue()


# --- the prompt first: the services are built at the first entry


def test_the_prompt_is_up_before_the_server_is_asked_anything(fake, repl, protocol):
    """The prompt never waits on the server: the window is asked with the first message."""
    child = repl(*server_args(fake, protocol))
    expect_prompt(child)
    assert fake.requests == []
    child.sendline("hello")
    child.expect_exact(DEFAULT_REPLY)
    expect_prompt(child)
    paths = [request["path"] for request in fake.requests]
    assert len(fake.chat_requests()) == 1
    assert paths.index(fake.chat_requests()[0]["path"]) > 0  # the window was asked first, as before
    child.sendline("/exit")
    assert finish(child) == 0


def test_a_slash_command_first_builds_what_it_needs(fake, repl):
    child = repl("--base-url", fake.url, "-m", "the-model")
    expect_prompt(child)
    child.sendline("/status")
    child.expect_exact("the-model")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0


def test_the_http_stack_parser_and_tools_load_after_the_first_prompt(fake, ayder_on_pty_process):
    """-X importtime lists every import on the terminal as it happens: none of these before the prompt."""
    import sys

    child = ayder_on_pty_process(shell=f"{sys.executable} -X importtime -m ayder_cli --base-url {fake.url}")
    child.logfile_read = seen = io.StringIO()
    child.expect_exact("/help for commands")
    expect_prompt(child)
    # "import time:   self |   cumulative |     name", indented by how deep the import was
    imported = {line.rsplit("|", 1)[1].strip() for line in seen.getvalue().splitlines()
                if line.startswith("import time:")}
    assert {"prompt_toolkit", "click", "ayder_cli.modes.repl"} <= imported  # the check sees imports
    for module in ("requests", "urllib3", "ayder_cli.agent.loop", "ayder_cli.intents", "ayder_cli.tools",
                   "ayder_cli.session.services", "ayder_cli.llm.http"):
        assert module not in imported, module
    child.sendcontrol("d")
    assert finish(child) == 0


def test_a_resumed_session_is_said_before_the_prompt(fake, repl, run_ayder):
    assert run_ayder("--base-url", fake.url, "first question").returncode == 0
    child = repl("--base-url", fake.url, "--continue")
    child.expect_exact("resumed session")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
