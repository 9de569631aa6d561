"""Nothing ayder prints from outside drives the terminal: a clipboard write (OSC 52), a window title
(OSC 0), a cursor report that would type into the prompt (CSI 6n) and a bare ESC are removed from
the model's answer and thinking, a tool's name, a path, a server's message, a model's name, a task's
title and an MCP tool's description; the visible text around them stays, and ayder's own styling too.

Where the terminal is the point (the answer streamed, the REPL) ayder runs on a pseudo-terminal;
the rest in-process, where nothing is a terminal and so any ESC at all is the payload's.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from support.fakellm import FakeLLM, Reply
from support.files import write_user_config
from support.harness import server_args
from support.pty_harness import expect_prompt, finish

from ayder_cli.terminal.style import BOLD, NO_BOLD

pexpect = pytest.importorskip("pexpect")

# Each sequence between visible letters: what a terminal acts on is gone, the letters stay.
PAYLOAD = "A\x1b]52;c;Y2xpcGJvYXJk\x07B\x1b]0;window-title\x07C\x1b[6nD\x1b E"
VISIBLE = "ABCD E"
# The sequences' own text, which shows in a streamed answer only if a sequence was cut in the wrong place.
HIDDEN = ("Y2xpcGJvYXJk", "window-title", "52;", "6n")
# ayder's own: the colours it paints with, the spinner taken off its line, prompt_toolkit's cursor shown
# (a dumb terminal: nothing else); and the pty's \r before each \n.
OURS = re.compile(r"\x1b\[[0-9;]*m|\r\x1b\[K|\x1b\[\?\d+[hl]|\r+(?=\n)")

TOY_MCP = str(Path(__file__).parents[1] / "mcp_servers" / "toy_stdlib_server.py")


def assert_clean(output: str, *visible: str, hidden: tuple[str, ...] = ()) -> None:
    """No escape, BEL or other control of the payload in output; each visible text is there, no hidden one."""
    foreign = OURS.sub("", output)
    leftover = sorted({char for char in foreign if char == "\x1b" or (ord(char) < 0x20 and char not in "\n\t")})
    assert leftover == [], f"control characters reached the terminal: {leftover}: {foreign!r}"
    for text in hidden:
        assert text not in foreign, foreign
    words = " ".join(foreign.split())  # a line wrapped at the terminal's width reads the same
    for text in visible:
        assert text in words, foreign


def split_everywhere(text: str) -> list[str]:
    """The text in deltas of three characters: every sequence of the payload is cut across two or more."""
    return [text[index:index + 3] for index in range(0, len(text), 3)]


def test_a_streamed_answer_on_a_terminal_keeps_the_text_only(fake, ayder_on_pty, protocol):
    answer = f"Before {PAYLOAD}\n**after.**"
    fake.queue(Reply(text=answer, chunks=split_everywhere(answer)))
    child = ayder_on_pty(*server_args(fake, protocol), "hi")
    assert finish(child) == 0
    assert_clean(child.before, f"Before {VISIBLE}", "after.", hidden=HIDDEN)
    assert f"{BOLD}after.{NO_BOLD}" in child.before  # the Markdown view's own styling stays


def test_shown_thinking_on_a_terminal_keeps_the_text_only(fake, ayder_on_pty):
    fake.queue(Reply(text="Answer.", thinking=f"Thinking {PAYLOAD} done."))
    child = ayder_on_pty(*server_args(fake, "openai"), "--show-thinking", "hi")
    assert finish(child) == 0
    assert_clean(child.before, f"Thinking {VISIBLE} done.", "Answer.", hidden=HIDDEN)


def test_a_piped_answer_keeps_the_text_only(fake, run_ayder):
    """`ayder q | less -R` or `> out.txt; cat out.txt`: a pipe often ends on a terminal too."""
    answer = f"Piped {PAYLOAD} answer."
    fake.queue(Reply(text=answer, chunks=split_everywhere(answer)))
    result = run_ayder(*server_args(fake, "ollama"), "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Piped {VISIBLE} answer.\n"


def test_the_repl_shows_names_paths_and_server_messages_without_their_escapes(fake, ayder_on_pty, project):
    """In one REPL session: an answer, an unknown tool's name on the activity line, a missing path
    and the file it may have meant (a name a project may hold), a server's 400 message."""
    (project / f"notes{PAYLOAD}.txt").write_text("three lines\n")
    fake.queue(
        Reply(text=f"Answer {PAYLOAD} end."),
        Reply.calling(f"tool{PAYLOAD}", {}), Reply(text="After the unknown tool."),
        Reply.calling("read_file", {"file_path": f"notes{PAYLOAD}.tx"}), Reply(text="After the missing file."),
        Reply.failing(400, f"rejected {PAYLOAD} here"),
    )
    child = ayder_on_pty(*server_args(fake, "openai"))
    child.logfile_read = screen = io.StringIO()  # all the session shows, not only what the last expect left
    for entry, last in (("first", "end."), ("second", "After the unknown tool."),
                        ("third", "After the missing file."), ("fourth", "here")):
        expect_prompt(child)
        child.sendline(entry)
        child.expect_exact(last)
    expect_prompt(child)
    child.sendline("/exit")
    assert finish(child) == 0
    assert_clean(screen.getvalue(), f"Answer {VISIBLE} end.", f"→ tool{VISIBLE}()", f"no such file: notes{VISIBLE}.tx",
                 f"did you mean notes{VISIBLE}.txt?", f"rejected {VISIBLE} here")


def test_a_model_name_from_the_servers_list_is_shown_without_its_escapes(run_ayder):
    with FakeLLM(models=(f"model{PAYLOAD}", "other")) as fake:
        result = run_ayder(*server_args(fake, "openai"), "-m", "other", input="/model\n")
    assert result.returncode == 0, result.stderr
    assert_clean(result.stderr, f"model{VISIBLE}")


def test_an_mcp_tools_description_in_tools_is_shown_without_its_escapes(fake, run_ayder, isolated_env, tmp_path):
    write_user_config(isolated_env, {"mcp_servers": {"toy": {
        "command": sys.executable, "args": [TOY_MCP], "permission": "r",
        "env": {"TOY_PID_FILE": str(tmp_path / "pids"), "TOY_ECHO_DESCRIPTION": f"Echoes {PAYLOAD} back."}}}})
    result = run_ayder(*server_args(fake, "openai"), input="/tools\n")
    assert result.returncode == 0, result.stderr
    assert_clean(result.stderr, f"Echoes {VISIBLE} back.")


def test_a_tasks_title_is_listed_without_its_escapes(run_ayder, project):
    folder = project / ".ayder" / "tasks"
    folder.mkdir(parents=True)
    (folder / "TASK-001-x.md").write_text(f"# Title {PAYLOAD}\n\n- **Status:** pending\n")
    result = run_ayder("--base-url", "http://127.0.0.1:9", "--tasks")
    assert result.returncode == 0, result.stderr
    assert_clean(result.stdout, f"Title {VISIBLE}")


def test_a_sequence_split_anywhere_across_deltas_is_removed_all_the_same():
    from ayder_cli.terminal.safe_text import StreamSanitizer, safe_text

    text = f"x {PAYLOAD}\x1b]0;t\x1b\\y \x9b6n\x1b(Bz\n"
    whole = safe_text(text)
    assert whole == f"x {VISIBLE}y z\n"
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            stream = StreamSanitizer()
            shown = stream.feed(text[:first]) + stream.feed(text[first:second]) + stream.feed(text[second:])
            assert shown == whole, (first, second)


def test_a_clipboard_write_longer_than_what_a_stream_holds_is_dropped_whole():
    from ayder_cli.terminal.safe_text import StreamSanitizer

    text = "before \x1b]52;c;" + "QUJD" * 5000 + "\x07after"
    stream = StreamSanitizer()
    shown = "".join(stream.feed(text[index:index + 100]) for index in range(0, len(text), 100))
    assert shown == "before after"


def test_diff_names_a_changed_file_without_its_escapes(fake, run_ayder, project):
    fake.queue(Reply.calling("write_file", {"file_path": f"new{PAYLOAD}.txt", "content": "new text\n"}),
               Reply(text="Written."))
    result = run_ayder(*server_args(fake, "openai"), "-w", input="write it\n/diff\n")
    assert result.returncode == 0, result.stderr
    assert (project / f"new{PAYLOAD}.txt").read_text() == "new text\n"
    assert_clean(result.stderr, "+new text", "1 file changed in this session")
