"""Entries from typed or piped lines, piped context on stdin, and slash-command suggestions."""

from __future__ import annotations

import os
import time

import pytest

from ayder_cli.modes.entries import read_entries
from ayder_cli.repl.commands import CommandResult, run_command
from ayder_cli.terminal.piped_stdin import attach_context, read_piped_stdin


class Lines:
    """read_line for read_entries: hands out scripted lines, raising what is scripted as an exception."""

    def __init__(self, *items):
        self.items = list(items)
        self.modes: list[bool] = []

    def __call__(self, in_block: bool) -> str:
        self.modes.append(in_block)
        if not self.items:
            raise EOFError
        item = self.items.pop(0)
        if isinstance(item, type) and issubclass(item, BaseException):
            raise item
        return item


def entries(lines: Lines, on_cancelled=None) -> tuple[list[str], list[str]]:
    events: list[str] = []
    got = list(read_entries(lines, lambda: events.append("unclosed"), on_cancelled))
    return got, events


# --- read_entries


def test_each_line_is_an_entry_and_blank_lines_are_skipped():
    got, events = entries(Lines("first", "", "   ", "  /help  ", "second"))
    assert got == ["first", "/help", "second"]
    assert events == []


def test_triple_quote_block_is_one_entry_with_its_lines_kept():
    lines = Lines("before", '"""', "def f():", "    return 1", "", '  """  ', "after")
    got, _ = entries(lines)
    assert got == ["before", "def f():\n    return 1\n", "after"]
    assert lines.modes == [False, False, True, True, True, True, False, False]


def test_a_line_starting_with_quotes_is_not_a_fence():
    got, _ = entries(Lines('"""quoted""" text'))
    assert got == ['"""quoted""" text']


def test_empty_block_is_skipped():
    got, _ = entries(Lines('"""', "  ", '"""', "next"))
    assert got == ["next"]


def test_unclosed_block_at_end_of_input_is_sent_with_a_notice():
    got, events = entries(Lines("one", '"""', "line a", "line b"))
    assert got == ["one", "line a\nline b"]
    assert events == ["unclosed"]


def test_unclosed_empty_block_sends_nothing():
    got, events = entries(Lines('"""'))
    assert got == []
    assert events == ["unclosed"]


def test_ctrl_c_in_a_block_discards_it_at_the_repl():
    cancelled = []
    got, _ = entries(Lines('"""', "half typed", KeyboardInterrupt, "next"), lambda: cancelled.append(1))
    assert got == ["next"]
    assert cancelled == [1]


def test_ctrl_c_in_a_block_stops_a_script():
    reader = read_entries(Lines("one", '"""', "half", KeyboardInterrupt, "never"), lambda: None)
    assert next(reader) == "one"
    with pytest.raises(KeyboardInterrupt):
        next(reader)


# --- read_piped_stdin


def test_regular_file_on_stdin_is_read_at_once(tmp_path):
    path = tmp_path / "context.txt"
    path.write_text("line 1\nline 2\n")
    with open(path) as handle:
        assert read_piped_stdin(handle, wait_s=0.01) == "line 1\nline 2\n"


def test_dev_null_is_empty_not_a_wait():
    with open(os.devnull) as handle:
        assert read_piped_stdin(handle, wait_s=30) == ""


def test_no_stdin_at_all():
    assert read_piped_stdin(None) is None


def test_pipe_nobody_writes_to_returns_none_instead_of_hanging():
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(read_fd) as reader:
            started = time.monotonic()
            assert read_piped_stdin(reader, wait_s=0.2) is None
            assert time.monotonic() - started < 10
    finally:
        os.close(write_fd)


def test_pipe_with_data_returns_it():
    read_fd, write_fd = os.pipe()
    os.write(write_fd, "from a pipe\nsecond line\n".encode())
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        assert read_piped_stdin(reader, wait_s=5) == "from a pipe\nsecond line\n"


def test_pipe_closed_without_data_is_empty():
    read_fd, write_fd = os.pipe()
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        assert read_piped_stdin(reader, wait_s=5) == ""


# --- attach_context


def test_context_goes_in_a_fence_after_the_prompt():
    assert attach_context("explain", "x = 1\n") == "explain\n\n```\nx = 1\n```"


def test_empty_context_leaves_the_prompt_alone():
    assert attach_context("explain", "  \n") == "explain"


@pytest.mark.parametrize("run_length", [3, 4, 7])
def test_fence_is_longer_than_any_backtick_run_inside(run_length):
    inner = "`" * run_length
    context = f"README:\n{inner}python\nprint('hi')\n{inner}\nand `inline` code"
    result = attach_context("summarise", context)
    fence = "`" * (run_length + 1)
    lines = result.split("\n")
    assert lines[2] == fence and lines[-1] == fence
    assert "\n".join(lines[3:-1]) == context
    assert fence not in "\n".join(lines[3:-1])


# --- slash commands


class RecordingConsole:
    def __init__(self):
        self.errors: list[str] = []

    def error(self, message, hint=None):
        self.errors.append(message)


class UnknownCommandContext:
    """All an unknown command uses of its context: the console it says so on."""

    def __init__(self):
        self.console = RecordingConsole()


@pytest.mark.parametrize("typed, meant", [("/exti", "/exit"), ("/modle gpt", "/model"), ("/hlep", "/help")])
def test_unknown_command_suggests_the_nearest(typed, meant):
    context = UnknownCommandContext()
    assert run_command(typed, context) is CommandResult.FAILED
    assert context.console.errors == [f"unknown command /{typed[1:].split()[0]}; did you mean {meant}?"]


def test_unknown_command_with_nothing_near_points_at_help():
    context = UnknownCommandContext()
    assert run_command("/zzqxv", context) is CommandResult.FAILED
    assert "/help" in context.console.errors[0]
    assert "did you mean" not in context.console.errors[0]
