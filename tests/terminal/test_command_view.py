"""The command view's lines, without a command: a console writing to a string, a clock the test moves.

What run_shell_command feeds it (chunks of bytes, a tick per turn of its read loop, the end) is fed
here directly, so the cases a real command makes hard to time are exact: how often it redraws, a
progress bar's carriage returns, a character or a key split across two reads, a huge line.
"""

from __future__ import annotations

import io

from ayder_cli.masking import Secrets
from ayder_cli.terminal.command_view import CommandView
from ayder_cli.terminal.console import Console
from ayder_cli.terminal.environment import Environment

KEY = "sk-live-SECRET-4242"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def view(*, tty: bool = True, verbose: bool = False, columns: int = 80, secrets: Secrets | None = None):
    """A view on a console whose stderr is a string (a terminal of `columns` when tty); its clock."""
    stderr = io.StringIO()
    environment = Environment(stdout=io.StringIO(), stderr=stderr, env={"TERM": "xterm", "COLUMNS": str(columns)},
                              stderr_is_tty=tty, no_color=True)
    clock = Clock()
    return CommandView(Console(environment, verbose=verbose), secrets or Secrets(), clock=clock), stderr, clock


def test_a_burst_of_output_is_drawn_once_per_redraw_interval_not_once_per_read():
    shown, stderr, clock = view()
    clock.now = 1.0
    for number in range(500):
        shown.output(1, f"line {number}\n".encode())
        shown.tick()
    assert stderr.getvalue() == "    line 0\n"  # one frame, at the first tick; no time has passed since
    clock.now = 1.05
    shown.output(1, b"more\n")
    shown.tick()
    assert stderr.getvalue().count("\033[J") == 0  # not yet
    clock.now = 1.2
    shown.tick()
    assert stderr.getvalue().count("\033[J") == 1
    assert stderr.getvalue().endswith("    line 496\n    line 497\n    line 498\n    line 499\n    more\n")


def test_nothing_is_drawn_before_the_first_interval_so_a_quick_command_only_leaves_its_tail():
    shown, stderr, _ = view()
    shown.output(1, b"done\n")
    shown.tick()
    assert stderr.getvalue() == ""
    shown.end()
    assert stderr.getvalue() == "    done\n"


def test_a_progress_bar_shows_its_last_state_and_windows_line_ends_are_lines():
    shown, stderr, clock = view(tty=False)
    shown.output(1, b"fetch  10%\rfetch  50%\r")
    shown.output(1, b"fetch 100%\r\nok\r")
    shown.output(1, b"\n")
    shown.end()
    assert stderr.getvalue() == "    fetch 100%\n    ok\n"


def test_a_character_split_across_two_reads_is_one_character():
    shown, stderr, _ = view(tty=False)
    snowman = "☃".encode()
    shown.output(2, b"a" + snowman[:1])
    shown.output(2, snowman[1:] + b"b\n")
    shown.end()
    assert stderr.getvalue() == "    a☃b\n"


def test_a_line_is_cut_to_the_width_counting_wide_characters_twice():
    shown, stderr, _ = view(columns=24)  # 20 columns after the indent
    shown.output(1, ("界" * 30 + "\n" + "y" * 30 + "\n").encode())
    shown.end()
    first, second = stderr.getvalue().splitlines()
    assert first == "    " + "界" * 9 + "…"  # 18 columns and the mark: a wide one would not fit
    assert second == "    " + "y" * 19 + "…"


def test_a_key_split_across_two_reads_is_never_shown_in_part():
    shown, stderr, clock = view(secrets=Secrets([KEY]))
    shown.output(1, b"key=sk-live-SEC")
    clock.now = 1.0
    shown.tick()
    assert stderr.getvalue() == "    key=\n"
    shown.output(1, b"RET-4242 ok\n")
    shown.end()
    assert stderr.getvalue().endswith("    key=*** ok\n")
    assert "sk-live" not in stderr.getvalue()


def test_a_huge_line_costs_little_and_a_key_at_its_cut_is_not_shown_in_part():
    shown, stderr, _ = view(tty=False, secrets=Secrets([KEY]))
    shown.output(1, b"x" * 8180 + KEY.encode() + b"y" * 2_000_000)
    shown.end()
    [line] = stderr.getvalue().splitlines()
    assert line.startswith("    xxx") and line.endswith("…") and "sk-" not in line


def test_with_v_every_line_is_written_and_a_flood_is_counted_not_written():
    shown, stderr, clock = view(verbose=True)
    shown.output(1, "".join(f"row {i}\n" for i in range(1500)).encode())
    clock.now = 1.0
    shown.tick()
    lines = stderr.getvalue().splitlines()
    assert lines[:2] == ["    row 0", "    row 1"] and lines[999] == "    row 999"
    assert lines[1000] == "    [... 500 more lines ...]"
    shown.output(1, b"row after\n")
    shown.end()
    assert stderr.getvalue().endswith("more lines ...]\n    row after\n")
    assert "\033[" not in stderr.getvalue()


def test_a_closed_stderr_stops_the_view_not_the_command():
    shown, stderr, clock = view()
    stderr.close()
    shown.output(1, b"line\n")
    clock.now = 1.0
    shown.tick()
    shown.end()  # no error: the command's result is what matters
