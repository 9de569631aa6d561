"""What a new user sees on the terminal in the first hour, each as the user sees it: the REPL's first
line names the server /status names; a command's lines in the order it wrote them; a call shown
once around its question, and nothing wrapped in the middle of a word at 80 columns."""

from __future__ import annotations

import io
import re

import pytest
from support.fakellm import FakeLLM, Reply
from support.harness import server_args
from support.pty_harness import expect_prompt, finish

pexpect = pytest.importorskip("pexpect")

STYLES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def words(screen: str) -> str:
    """What the screen says, styles off, wrapped lines joined."""
    return " ".join(STYLES.sub("", screen).split())


@pytest.mark.parametrize("model", [None, "served-model"])
def test_the_banner_names_what_status_names_for_a_v1_url(ayder_on_pty, model):
    with FakeLLM(models=("served-model",)) as fake:
        child = ayder_on_pty("--base-url", fake.openai_url, *(["-m", model] if model else []))
        expect_prompt(child)
        banner = words(child.before)
        assert fake.requests == []  # the prompt comes before anything is asked of the server
        child.sendline("/status")
        child.expect_exact("instructions:")
        status = words(child.before)
        child.sendline("/exit")
        assert finish(child) == 0
    assert "provider: openai" in status and "model: served-model" in status
    assert "ollama" not in banner and "qwen2.5-coder:7b" not in banner, banner
    if model:
        assert f"ayder · openai served-model at {fake.openai_url} " in banner
    else:
        assert f"ayder · openai at {fake.openai_url} (the model it serves, asked at the first message)" in banner


def test_a_commands_stdout_and_stderr_lines_keep_the_order_it_wrote_them(fake, run_ayder):
    command = "echo out-1; echo err-1 >&2; echo out-2; echo err-2 >&2; echo out-3"
    fake.queue(Reply.calling("run_shell_command", {"command": command}), Reply(text="Ran it."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "run it")
    assert result.returncode == 0, result.stderr
    order = ["out-1", "err-1", "out-2", "err-2", "out-3"]
    shown = [line.strip() for line in result.stderr.splitlines() if line.strip() in order]
    assert shown == order
    told = fake.chat_requests()[1]["body"]["messages"][-1]["content"]
    assert "\n".join(order) in told  # the model reads them in the same order


def rows_on_screen(transcript: str) -> list[str]:
    """The rows a terminal holds after the transcript, for output that moves the cursor back to the row's
    start (\\r) or up (ESC [ n A, as the live command view does when it redraws), and clears to the row's end
    (ESC [ K) or below (ESC [ J): each row as it was left, styles off."""
    rows: list[list[str]] = [[]]
    row = column = 0
    for piece in CONTROLS.split(STYLES.sub("", transcript)):
        if piece == "\n":
            row, column = row + 1, 0
            rows.extend([] for _ in range(row + 1 - len(rows)))
        elif piece == "\r":
            column = 0
        elif piece.endswith("A") and piece.startswith("\x1b["):
            row = max(0, row - int(piece[2:-1] or 1))
        elif piece in ("\x1b[K", "\x1b[J"):
            del rows[row][column:]
            if piece == "\x1b[J":
                del rows[row + 1:]
        else:
            for char in piece:
                rows[row][column:column + 1] = [char]
                column += 1
    return ["".join(cells).rstrip() for cells in rows]


CONTROLS = re.compile(r"(\n|\r|\x1b\[[0-9]*A|\x1b\[K|\x1b\[J)")  # what moves the cursor or clears, kept apart
STYLES = re.compile(r"\x1b\[[0-9;?]*[B-IL-Za-z]")  # every other control: styles, cursor shown or hidden
COMMAND = ("true first-of-the-command a-long-argument-number-one another-long-argument-two; "
           "echo an-output-line; true and-some-more-words-here")


@pytest.mark.parametrize("term", ["dumb", "xterm"])
def test_a_call_asked_about_is_shown_once_and_wraps_between_words_at_80_columns(fake, ayder_on_pty, term):
    fake.queue(Reply.calling("run_shell_command", {"command": COMMAND}), Reply(text="Ran it."))
    child = ayder_on_pty(*server_args(fake, "openai"), "run it", term=term, columns=80)
    child.logfile_read = screen = io.StringIO()
    child.expect_exact("[y/N/a/d]")
    child.send("y")
    assert finish(child) == 0
    rows = rows_on_screen(screen.getvalue())
    assert max(map(len, rows)) <= 80, rows  # nothing the terminal must wrap
    naming = [row for row in rows if "first-of-the-command" in row]
    assert len(naming) == 1 and naming[0].startswith("ayder wants to execute: run_shell_command("), rows
    start = rows.index(naming[0])
    question = rows[start:next(index for index in range(start, len(rows)) if rows[index].startswith("Allow?"))]
    assert len(question) > 1 and all(row.startswith(" " * 24) for row in question[1:])  # under the text
    assert words("\n".join(question)) == f'ayder wants to execute: run_shell_command(command="{COMMAND}")'
    after = rows[start + len(question):]
    assert [row.strip() for row in after if "output-line" in row or "exit code" in row] == [
        "an-output-line", "✓ exit code 0"]  # its output and status under the question, no `$ command` again


def test_a_long_status_goes_below_its_activity_line_wrapped_between_words(fake, ayder_on_pty):
    fake.queue(Reply.calling("no_such_tool_with_a_long_name", {"path": "a/rather/long/path/to/some/file.txt"}),
               Reply(text="Done."))
    child = ayder_on_pty(*server_args(fake, "openai"), "go", columns=80)
    assert finish(child) == 0
    rows = rows_on_screen(child.before)
    assert max(map(len, rows)) <= 80, rows
    activity = next(index for index, row in enumerate(rows) if row.startswith("→ no_such_tool_with_a_long_name("))
    status = rows[activity + 1:rows.index("Done.")]
    assert status[0].startswith("  ✗ unknown tool 'no_such_tool_with_a_long_name'")
    tools = words(" ".join(status)).split("(tools: ")[1]
    assert "read_file, list_files, search_codebase," in tools  # each name whole, none cut by a wrap
    assert all(row.startswith("    ") for row in status[1:])  # continued under the status's text
