"""A REPL line on a terminal: @path completed from the project's files, !command's output shown
as it runs, stopped by Ctrl-C (a real process: Ctrl-C as a signal), and /diff in colour."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish, wait_for_raw_mode
from support.requests_seen import sent_messages

from ayder_cli.repl.path_completion import AtPathCompleter

pexpect = pytest.importorskip("pexpect")


def offered(root, text: str) -> list[str]:
    return [c.text for c in AtPathCompleter(root).get_completions(Document(text), CompleteEvent())]


def test_an_at_completes_the_projects_paths_at_a_words_start_only(project):
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("")
    (project / "setup.cfg").write_text("")
    (project / ".git").mkdir()
    assert offered(project, "look at @s") == ["setup.cfg", "src/"]
    assert offered(project, "look at @src/") == ["src/app.py"]
    assert offered(project, "@") == ["setup.cfg", "src/"]  # hidden ones only when asked for with a dot
    assert offered(project, "@.g") == [".git/"]
    assert offered(project, "mail a@s") == [] and offered(project, "@@s") == []  # not at a word's start
    assert offered(project, "@../") == []  # outside the project: nothing to attach there


def test_at_path_is_completed_at_the_prompt_and_attached(fake, ayder_on_pty, project):
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    fake.queue(Reply(text="It sets x."))
    child = ayder_on_pty(*server_args(fake, "ollama"), term="xterm")
    child.expect_exact("/help for commands")
    wait_for_raw_mode(child)
    child.send("what is in @sr")
    child.expect_exact("src/")  # the menu, as the @ is typed
    child.send("\t")
    child.expect_exact("src/")  # taken into the line
    child.send("a")
    child.expect_exact("app.py")  # the menu again, for what is in src/
    child.send("\t\r")
    child.expect_exact("It sets x.")
    wait_for_raw_mode(child)
    child.sendcontrol("d")
    assert finish(child) == 0
    sent = sent_messages(fake.chat_requests()[0])[-1]["content"]
    assert "what is in @src/app.py\n\n[src/app.py, attached by the user]\n     1\tx = 1" in sent


def test_a_bang_command_shows_its_output_as_it_runs_and_ctrl_c_stops_it(fake, ayder_on_pty_process, project):
    import os

    fake.default = Reply(text="It was stopped.")
    child = ayder_on_pty_process(*server_args(fake, "ollama"))
    expect_prompt(child)
    child.sendline("!!echo $$ > shell.pid; echo started; sleep 30; echo never")
    child.expect_exact("started\r\n")  # its output (not the line typed), shown while it still runs
    child.sendintr()
    child.expect_exact("stopped (Ctrl-C)")
    expect_prompt(child)
    with pytest.raises(ProcessLookupError):
        os.kill(int((project / "shell.pid").read_text()), 0)  # its shell is gone, not left behind
    child.sendline("what happened?")
    child.expect_exact("It was stopped.")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    shared = sent_messages(fake.chat_requests()[0])[-2]["content"]
    assert shared.endswith("$ echo $$ > shell.pid; echo started; sleep 30; echo never\n"
                           "It ended: stopped (Ctrl-C). Its output:\nstarted")


def test_diff_is_coloured_on_a_colour_terminal(fake, ayder_on_pty, project):
    (project / "app.py").write_text("a = 1\n")
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file",
                                           "arguments": {"file_path": "app.py", "content": "a = 2\n"}}]),
               Reply(text="Changed it."))
    child = ayder_on_pty(*server_args(fake, "ollama"), "-w")
    expect_prompt(child)
    child.sendline("change it")
    child.expect_exact("Changed it.")
    expect_prompt(child)
    child.sendline("/diff")
    child.expect_exact("\033[31m-a = 1")
    child.expect_exact("\033[32m+a = 2")
    child.expect_exact("1 file changed in this session")
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
