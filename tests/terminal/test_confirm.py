"""TerminalConfirmer: the question before a write or a command, with fake terminal streams."""

from __future__ import annotations

import io
import os
import re
import threading
import time
from contextlib import nullcontext

import pytest
from support.harness import read_until

from ayder_cli.terminal.confirm import QUESTION, REASON_QUESTION, TerminalConfirmer, tty_opener
from ayder_cli.tools.spec import Preview
from ayder_cli.tools.executor import Answer, ConfirmRequest, Decision

ANSI = re.compile(r"\033\[[0-9;]*m")


class FakeTty:
    """A terminal: what the user types, and everything written to the screen."""

    def __init__(self, *typed: str) -> None:
        self.reader = io.StringIO("".join(line + "\n" for line in typed))
        self.writer = io.StringIO()
        self.opened = 0

    def open(self):
        self.opened += 1
        return nullcontext((self.reader, self.writer))

    @property
    def screen(self) -> str:
        return self.writer.getvalue()


def ask(tty: FakeTty, request: ConfirmRequest | None = None, color: bool = False) -> Answer | None:
    confirmer = TerminalConfirmer(open_tty=tty.open, color=color)
    return confirmer.confirm(request or write_request("old\n", "new\n"))


def write_request(old: str | None, new: str, path: str = "src/app.py") -> ConfirmRequest:
    summary = f'write_file(file_path="{path}", content="…")'
    return ConfirmRequest("write_file", "w", summary, Preview(path, old, new))


def shell_request(command: str = "make test") -> ConfirmRequest:
    return ConfirmRequest("run_shell_command", "x", f'run_shell_command(command="{command}")', None)


def diff_of(screen: str) -> list[str]:
    """The screen's diff lines: from the --- header to the question."""
    lines = screen.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("--- "))
    end = next(i for i, line in enumerate(lines) if line.startswith(QUESTION))
    return lines[start:end]


# --- the answers


@pytest.mark.parametrize("typed, decision", [
    ("y", Decision.YES), ("yes", Decision.YES), ("Y", Decision.YES), ("  yes  ", Decision.YES),
    ("n", Decision.NO), ("no", Decision.NO), ("", Decision.NO),
    ("a", Decision.ALWAYS), ("always", Decision.ALWAYS), ("A", Decision.ALWAYS),
])
def test_each_answer(typed, decision):
    tty = FakeTty(typed)
    assert ask(tty) == Answer(decision)
    assert tty.screen.count(QUESTION) == 1


@pytest.mark.parametrize("typed", ["d", "deny"])
def test_deny_asks_for_the_reason_for_the_model(typed):
    tty = FakeTty(typed, "  use the existing helper instead  ")
    assert ask(tty) == Answer(Decision.DENY, "use the existing helper instead")
    assert tty.screen.endswith(QUESTION + REASON_QUESTION)


def test_deny_with_the_terminal_closed_before_the_reason():
    tty = FakeTty("d")
    assert ask(tty) == Answer(Decision.DENY, "")


def test_junk_then_yes_asks_again():
    tty = FakeTty("sure", "y")
    assert ask(tty) == Answer(Decision.YES)
    assert tty.screen.count(QUESTION) == 2
    assert "Please answer y, n, a or d." in tty.screen


def test_junk_three_times_is_no_and_asks_no_more():
    tty = FakeTty("maybe", "ok", "whatever", "y")
    assert ask(tty) == Answer(Decision.NO)
    assert tty.screen.count(QUESTION) == 3
    assert tty.reader.readline() == "y\n"  # the fourth line was never read
    assert "not allowed" in tty.screen


def test_end_of_input_on_the_terminal_is_no():
    tty = FakeTty()
    assert ask(tty) == Answer(Decision.NO)
    assert tty.screen.endswith(QUESTION + "\n")  # what comes next starts on a line of its own


def test_ctrl_c_while_asking_propagates():
    class InterruptingReader:
        def readline(self):
            raise KeyboardInterrupt

    writer = io.StringIO()
    confirmer = TerminalConfirmer(open_tty=lambda: nullcontext((InterruptingReader(), writer)), color=False)
    with pytest.raises(KeyboardInterrupt):
        confirmer.confirm(shell_request())
    assert writer.getvalue().endswith(QUESTION + "\n")


def test_no_terminal_gives_none_and_writes_nothing():
    confirmer = TerminalConfirmer(open_tty=lambda: nullcontext(None), color=False)
    assert confirmer.confirm(write_request("a\n", "b\n")) is None


def test_the_terminal_is_opened_for_each_question():
    tty = FakeTty("y", "n")
    confirmer = TerminalConfirmer(open_tty=tty.open, color=False)
    assert confirmer.confirm(shell_request()).decision is Decision.YES
    assert confirmer.confirm(shell_request()).decision is Decision.NO
    assert tty.opened == 2


# --- what is shown


def test_summary_line_names_the_permission():
    tty = FakeTty("n")
    ask(tty, shell_request("pytest -q"))
    first = tty.screen.split("\n")[0]
    assert first == 'ayder wants to execute: run_shell_command(command="pytest -q")'
    assert "--- " not in tty.screen  # a command has no diff

    tty = FakeTty("n")
    ask(tty, write_request("x\n", "y\n"))
    assert tty.screen.split("\n")[0] == 'ayder wants to write: write_file(file_path="src/app.py", content="…")'


def test_diff_shows_exactly_the_changed_lines_with_three_lines_of_context():
    old = "".join(f"line {n}\n" for n in range(1, 21))
    new = old.replace("line 10\n", "line ten\n")
    tty = FakeTty("n")
    ask(tty, write_request(old, new))
    assert diff_of(tty.screen) == [
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -7,7 +7,7 @@",
        " line 7",
        " line 8",
        " line 9",
        "-line 10",
        "+line ten",
        " line 11",
        " line 12",
        " line 13",
    ]


def test_separate_changes_get_separate_hunks():
    old = "".join(f"{n}\n" for n in range(1, 31))
    new = old.replace("3\n", "three\n", 1).replace("\n27\n", "\n27\nadded\n")
    tty = FakeTty("n")
    ask(tty, write_request(old, new))
    diff = diff_of(tty.screen)
    assert [line for line in diff if line.startswith("@@")] == ["@@ -1,6 +1,6 @@", "@@ -25,6 +25,7 @@"]
    assert [line for line in diff if line[:1] in "+-" and not line.startswith(("---", "+++"))] == [
        "-3", "+three", "+added"]


def test_a_new_file_diffs_against_nothing():
    tty = FakeTty("n")
    ask(tty, write_request(None, "print('hi')\nprint('bye')\n", path="new.py"))
    assert diff_of(tty.screen) == [
        "--- /dev/null",
        "+++ b/new.py",
        "@@ -0,0 +1,2 @@",
        "+print('hi')",
        "+print('bye')",
    ]


def test_a_new_empty_file_says_so():
    tty = FakeTty("n")
    ask(tty, write_request(None, "", path="empty.txt"))
    assert diff_of(tty.screen) == ["--- /dev/null", "+++ b/empty.txt", "(a new, empty file)"]


def test_a_missing_final_newline_is_said():
    tty = FakeTty("n")
    ask(tty, write_request("a\nb\n", "a\nb"))
    assert diff_of(tty.screen)[-3:] == ["-b", "+b", "\\ No newline at end of file"]


def test_an_unchanged_file_says_so():
    tty = FakeTty("n")
    ask(tty, write_request("same\n", "same\n"))
    assert "(no changes to src/app.py)" in tty.screen


def test_a_long_diff_is_cut_in_the_middle_with_a_count():
    new = "".join(f"row {n}\n" for n in range(1, 201))
    tty = FakeTty("n")
    ask(tty, write_request(None, new, path="big.txt"))
    diff = diff_of(tty.screen)
    # 203 diff lines (2 headers, 1 hunk line, 200 added): 40 + the count + 20 are shown.
    assert len(diff) == 61
    assert diff[:4] == ["--- /dev/null", "+++ b/big.txt", "@@ -0,0 +1,200 @@", "+row 1"]
    assert diff[39] == "+row 37"
    assert diff[40] == "[... 143 lines of the diff not shown ...]"
    assert diff[41] == "+row 181"
    assert diff[-1] == "+row 200"


def test_a_diff_just_over_the_limit_is_not_cut():
    new = "".join(f"row {n}\n" for n in range(1, 59))  # 61 diff lines: cutting one would save nothing
    tty = FakeTty("n")
    ask(tty, write_request(None, new))
    assert "not shown" not in tty.screen
    assert len(diff_of(tty.screen)) == 61


def test_control_characters_are_shown_not_obeyed():
    """Content cannot hide a line from the user with escapes or a carriage return."""
    tty = FakeTty("n")
    ask(tty, write_request("ok\n", "rm -rf ~\r# harmless comment\n\033[2Kx\u202eevil\n"))
    screen = tty.screen
    assert "\r" not in screen and "\033" not in screen and "\u202e" not in screen
    assert "+rm -rf ~^M# harmless comment" in screen
    assert "+^[[2Kx<U+202E>evil" in screen


def test_a_very_long_line_is_shortened_on_screen():
    tty = FakeTty("n")
    ask(tty, write_request(None, "x" * 5000 + "\n"))
    added = [line for line in diff_of(tty.screen) if line.startswith("+x")]
    assert len(added) == 1 and len(added[0]) < 500
    assert added[0].endswith("(4601 more characters)")


# --- colours


def test_colours_when_enabled():
    tty = FakeTty("n")
    ask(tty, write_request("keep\nold\n", "keep\nnew\n"), color=True)
    screen = tty.screen
    assert "\033[32m+new\033[0m" in screen  # added: green
    assert "\033[31m-old\033[0m" in screen  # removed: red
    assert "\033[36m@@ -1,2 +1,2 @@\033[0m" in screen  # hunk: cyan
    assert "\033[1m--- a/src/app.py\033[0m" in screen  # headers: bold
    plain = FakeTty("n")
    ask(plain, write_request("keep\nold\n", "keep\nnew\n"), color=False)
    assert ANSI.sub("", screen) == plain.screen  # the colours change nothing else


def test_no_colours_when_disabled():
    tty = FakeTty("n")
    ask(tty, write_request("keep\nold\n", "keep\nnew\n"), color=False)
    assert "\033" not in tty.screen


def test_colour_follows_the_terminal_and_no_color_by_default():
    class TtyWriter(io.StringIO):
        def isatty(self):
            return True

    for env, writer, coloured in [({}, TtyWriter(), True), ({"NO_COLOR": "1"}, TtyWriter(), False),
                                  ({}, io.StringIO(), False)]:
        confirmer = TerminalConfirmer(open_tty=lambda: nullcontext((io.StringIO("n\n"), writer)), env=env)  # noqa: B023 (called here)
        confirmer.confirm(write_request("a\n", "b\n"))
        assert ("\033[" in writer.getvalue()) is coloured, env


# --- where the question is asked (the default opener)


def test_stdin_and_stderr_on_the_terminal_are_used_as_they_are(tmp_path):
    class TtyStream(io.StringIO):
        def isatty(self):
            return True

    stdin, stderr = TtyStream("y\n"), TtyStream()
    opener = tty_opener(stdin, stderr, tty_path=str(tmp_path / "no-such-tty"))
    assert TerminalConfirmer(open_tty=opener, color=False).confirm(shell_request()) == Answer(Decision.YES)
    assert QUESTION in stderr.getvalue()
    assert not stdin.closed and not stderr.closed  # not ours to close


@pytest.fixture
def pty_path():
    """A real terminal standing in for /dev/tty: (its path, the fd a user types into)."""
    master, slave = os.openpty()
    yield os.ttyname(slave), master
    os.close(master)
    os.close(slave)


def test_piped_stdin_is_never_read_the_tty_is(pty_path):
    path, keyboard = pty_path
    os.write(keyboard, b"y\n")
    stdin = io.StringIO("n\nthe piped script\n")
    stderr = io.StringIO()
    opener = tty_opener(stdin, stderr, tty_path=path)
    assert TerminalConfirmer(open_tty=opener, color=False).confirm(shell_request()) == Answer(Decision.YES)
    assert stdin.read() == "n\nthe piped script\n"
    assert stderr.getvalue() == ""
    read_until(keyboard, QUESTION.encode())  # asked on the terminal, in as many reads as it takes


def test_the_opened_tty_is_closed_after_the_question(pty_path, monkeypatch):
    path, keyboard = pty_path
    os.write(keyboard, b"n\n")
    opened = []

    def recording_open(*args, **kwargs):
        handle = open(*args, **kwargs)
        opened.append(handle)
        return handle

    monkeypatch.setattr("ayder_cli.terminal.confirm.open", recording_open, raising=False)
    confirmer = TerminalConfirmer(open_tty=tty_opener(io.StringIO(), io.StringIO(), path), color=False)
    assert confirmer.confirm(shell_request()) == Answer(Decision.NO)
    assert len(opened) == 2 and all(handle.closed for handle in opened)


def test_no_terminal_at_all_gives_none(tmp_path):
    opener = tty_opener(io.StringIO("y\n"), io.StringIO(), tty_path=str(tmp_path / "no-such-tty"))
    assert TerminalConfirmer(open_tty=opener, color=False).confirm(shell_request()) is None


@pytest.mark.skipif(not os.path.exists("/dev/tty"), reason="needs /dev/tty")
def test_default_opener_without_a_controlling_terminal_gives_none():
    """The real /dev/tty in a new session (no controlling terminal): nobody to ask."""
    import subprocess
    import sys

    code = (
        "import io\n"
        "from ayder_cli.terminal.confirm import TerminalConfirmer, tty_opener\n"
        "from ayder_cli.tools.executor import ConfirmRequest\n"
        "c = TerminalConfirmer(open_tty=tty_opener(io.StringIO('y\\n'), io.StringIO()))\n"
        "print(c.confirm(ConfirmRequest('run_shell_command', 'x', 'run_shell_command()', None)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                          start_new_session=True, stdin=subprocess.DEVNULL)
    assert done.stdout.strip() == "None", done.stderr


def test_stderr_redirected_the_question_still_reaches_the_terminal(pty_path):
    """`ayder "q" 2>log` at a terminal: the answer is typed on stdin, the question is not lost in the log."""
    class TtyStream(io.StringIO):
        def isatty(self):
            return True

    path, screen = pty_path
    stdin, log = TtyStream("a\n"), io.StringIO()
    confirmer = TerminalConfirmer(open_tty=tty_opener(stdin, log, path), color=False)
    assert confirmer.confirm(shell_request()) == Answer(Decision.ALWAYS)
    assert log.getvalue() == ""
    read_until(screen, QUESTION.encode())


def test_the_api_key_is_masked_in_the_question_and_its_diff(tmp_path):
    class TtyStream(io.StringIO):
        def isatty(self):
            return True

    key = "sk-live-SECRET-4242"
    stdin, stderr = TtyStream("n\n\n"), TtyStream()
    confirmer = TerminalConfirmer(open_tty=tty_opener(stdin, stderr, tty_path=str(tmp_path / "no-such-tty")),
                                  color=False, mask=lambda text: text.replace(key, "***"))
    confirmer.confirm(write_request("KEY=\n", f"KEY={key}\n", path=f"{key}.env"))
    assert key not in stderr.getvalue()
    assert "+KEY=***" in stderr.getvalue()


# --- one key on a real terminal


def attrs(path):
    import termios

    fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)
    try:
        return termios.tcgetattr(fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("typed, decision", [(b"y", Decision.YES), (b"a", Decision.ALWAYS), (b"n", Decision.NO),
                                             (b"\r", Decision.NO), (b"Y\r", Decision.YES)])
def test_one_key_on_a_terminal_needs_no_enter(pty_path, typed, decision):
    path, keyboard = pty_path
    before = attrs(path)
    os.write(keyboard, typed)  # no newline: in line mode this would wait for ever
    opener = tty_opener(io.StringIO(), io.StringIO(), tty_path=path)
    assert TerminalConfirmer(open_tty=opener, color=False).confirm(shell_request()) == Answer(decision)
    assert attrs(path) == before  # the terminal's mode is as it was
    read_until(keyboard, b"[y/N/a/d]")


def test_deny_key_then_the_reason_as_a_line(pty_path):
    path, keyboard = pty_path
    os.write(keyboard, b"d")
    opener = tty_opener(io.StringIO(), io.StringIO(), tty_path=path)
    confirmer = TerminalConfirmer(open_tty=opener, color=False)
    answers = []
    thread = threading.Thread(target=lambda: answers.append(confirmer.confirm(shell_request())))
    thread.start()
    read_until(keyboard, REASON_QUESTION.encode())
    os.write(keyboard, b"use the helper\n")
    thread.join(10)
    assert answers == [Answer(Decision.DENY, "use the helper")]


def test_an_escape_sequence_is_one_unclear_answer(pty_path):
    path, keyboard = pty_path
    os.write(keyboard, b"\033[A")  # the up arrow
    answers = []
    confirmer = TerminalConfirmer(open_tty=tty_opener(io.StringIO(), io.StringIO(), tty_path=path), color=False)
    thread = threading.Thread(target=lambda: answers.append(confirmer.confirm(shell_request())))
    thread.start()
    read_until(keyboard, b"Please answer y, n, a or d.")
    os.write(keyboard, b"y")
    thread.join(10)
    assert answers == [Answer(Decision.YES)]


def test_ctrl_c_while_reading_a_key_restores_the_terminal(pty_path, monkeypatch):
    path, _ = pty_path
    before = attrs(path)

    def interrupted(fd, size):
        raise KeyboardInterrupt

    monkeypatch.setattr("ayder_cli.terminal.confirm.os.read", interrupted)
    opener = tty_opener(io.StringIO(), io.StringIO(), tty_path=path)
    with pytest.raises(KeyboardInterrupt):
        TerminalConfirmer(open_tty=opener, color=False).confirm(shell_request())
    assert attrs(path) == before


def test_ctrl_d_as_the_key_is_no(pty_path):
    path, keyboard = pty_path
    answers = []
    confirmer = TerminalConfirmer(open_tty=tty_opener(io.StringIO(), io.StringIO(), tty_path=path), color=False)
    thread = threading.Thread(target=lambda: answers.append(confirmer.confirm(shell_request())))
    thread.start()
    read_until(keyboard, b"[y/N/a/d]")
    import termios

    deadline = time.monotonic() + 10
    while attrs(path)[3] & termios.ICANON and time.monotonic() < deadline:  # cbreak: Ctrl-D is a byte like any other
        time.sleep(0.01)
    os.write(keyboard, b"\x04")
    thread.join(10)
    assert answers == [Answer(Decision.NO)]
