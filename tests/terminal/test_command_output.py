"""What a command prints, shown to the user: its last lines on stderr after it ends when stderr is a
pipe (or with --json), live on a terminal (the last lines redrawn in place, or every line with -v).

The model's command goes through `ayder -x` and the fake server; the terminal tests run ayder
in-process on a pseudo-terminal, and a command that must still be running when its first line is
on the screen waits for a file the test creates only once it has seen that line.
"""

from __future__ import annotations

import json

import pytest
from support.fakellm import Reply
from support.harness import server_args
from support.pty_harness import finish

FIFTY_LINES = "python3 -c \"for i in range(50): print('line', i)\"; exit 3"


def asks_to_run(fake, command: str) -> None:
    """The model asks for one command, then answers."""
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}]),
               Reply(text="Done."))


def shown_lines(stderr: str, prefix: str = "line ") -> list[str]:
    return [line.strip() for line in stderr.splitlines() if line.strip().startswith(prefix)]


# --- piped: the tail once, at the end


def test_a_piped_run_shows_the_last_ten_lines_once_then_the_exit_status(fake, run_ayder):
    asks_to_run(fake, FIFTY_LINES)
    result = run_ayder(*server_args(fake, "openai"), "-x", "run it")
    assert result.returncode == 0, result.stderr
    assert shown_lines(result.stderr) == [f"line {i}" for i in range(40, 50)]
    lines = result.stderr.splitlines()
    status = lines.index("  ✗ exit code 3")
    assert lines[status - 1] == "    line 49"  # the status follows the tail
    assert lines[status - 11].startswith("→ run_shell_command(")  # the activity line, ended above it
    assert "\x1b" not in result.stderr
    assert result.stdout == "Done.\n"


def test_a_command_that_times_out_leaves_what_it_printed_then_says_so(fake, run_ayder):
    fake.queue(Reply(text="", tool_calls=[{"name": "run_shell_command",
                                           "arguments": {"command": "echo before; sleep 30", "timeout_s": 0.5}}]),
               Reply(text="Done."))
    result = run_ayder(*server_args(fake, "openai"), "-x", "run it")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    status = lines.index("  ✗ timed out after 0.5 s")
    assert lines[status - 1] == "    before"


def test_a_command_that_prints_nothing_keeps_its_one_activity_line(fake, run_ayder):
    asks_to_run(fake, "true")
    result = run_ayder(*server_args(fake, "openai"), "-x", "run it")
    assert result.returncode == 0, result.stderr
    assert '→ run_shell_command(command="true")  ✓ exit code 0' in result.stderr.splitlines()


def test_with_json_the_tail_goes_to_stderr_and_stdout_stays_json_lines(fake, run_ayder):
    asks_to_run(fake, FIFTY_LINES)
    result = run_ayder(*server_args(fake, "openai"), "-x", "--json", "run it")
    assert result.returncode == 0, result.stderr
    assert shown_lines(result.stderr) == [f"line {i}" for i in range(40, 50)]
    events = [json.loads(line) for line in result.stdout.splitlines()]  # every line one JSON object
    [done] = [event for event in events if event["type"] == "tool_result"]
    assert "line 0\n" in done["output"]  # the model still gets the whole output
    assert "\x1b" not in result.stderr


# --- on a terminal: live


pexpect = pytest.importorskip("pexpect")

DIM, RESET = "\x1b[2m", "\x1b[0m"
WAIT_FOR_GO = "while [ ! -e go ]; do sleep 0.02; done"  # the command waits until the test says go


def dim_row(text: str) -> str:
    return f"{DIM}    {text}{RESET}\r\n"


@pytest.fixture
def on_terminal(fake, ayder_on_pty):
    """`ayder -x "run it"` on a terminal that moves its cursor; the model asks for `command`."""

    def start(command: str, *args: str, color: bool = True, term: str = "xterm"):
        asks_to_run(fake, command)
        return ayder_on_pty(*server_args(fake, "openai"), "-x", *args, "run it", term=term, color=color)

    return start


def test_a_line_is_on_the_terminal_dimmed_while_the_command_still_runs_and_the_tail_stays(on_terminal, project):
    child = on_terminal(f"echo first; {WAIT_FOR_GO}; echo second; exit 4")
    child.expect_exact(dim_row("first"))  # the command is still waiting: it needs the file below
    (project / "go").touch()
    child.expect_exact("  \x1b[31m✗\x1b[0m exit code 4")
    drawn = child.before
    assert "\x1b[1A\x1b[J" in drawn  # the live rows were redrawn in place ...
    assert drawn.endswith(dim_row("first") + dim_row("second"))  # ... and both lines stay above the status
    child.expect_exact("Done.")
    assert finish(child) == 0


def test_only_the_last_five_lines_are_live_and_the_last_ten_stay(on_terminal, project):
    child = on_terminal(f"for i in $(seq 1 12); do echo row $i; done; {WAIT_FOR_GO}; echo last")
    child.expect_exact(dim_row("row 12"))
    live = child.before + dim_row("row 12")
    assert live.endswith("".join(dim_row(f"row {i}") for i in range(8, 13)))  # the frame: five rows
    assert dim_row("row 7") not in live.rsplit("\x1b[J", 1)[-1]
    (project / "go").touch()
    child.expect_exact("  \x1b[32m✓\x1b[0m exit code 0")
    final = child.before.rsplit("\x1b[J", 1)[-1]
    assert final == "".join(dim_row(f"row {i}") for i in range(4, 13)) + dim_row("last")
    assert finish(child) == 0


def test_with_v_every_line_scrolls_by_and_nothing_is_redrawn(on_terminal, project):
    child = on_terminal(f"for i in $(seq 1 12); do echo row $i; done; {WAIT_FOR_GO}; echo last", "-v")
    child.expect_exact(dim_row("row 12"))  # while the command waits
    shown = child.before + child.after
    (project / "go").touch()
    child.expect_exact("  \x1b[32m✓\x1b[0m exit code 0")
    shown += child.before
    assert shown.endswith("".join(dim_row(f"row {i}") for i in range(1, 13)) + dim_row("last"))
    assert "\x1b[J" not in shown and "A\x1b" not in shown
    assert finish(child) == 0


def test_a_terminal_without_cursor_movement_gets_the_tail_once(on_terminal):
    child = on_terminal("for i in $(seq 1 30); do echo row $i; done", term="dumb", color=False)
    child.expect_exact("  ✓ exit code 0")
    shown = child.before
    assert shown.endswith("".join(f"    row {i}\r\n" for i in range(21, 31)))
    assert "row 20" not in shown and "\x1b[" not in shown
    assert finish(child) == 0


def test_a_command_cannot_move_the_cursor_or_set_the_title_and_long_lines_are_cut(on_terminal):
    child = on_terminal("printf 'a\\033]0;pwned\\007b\\033[2Jc\\033[31md\\n'; python3 -c \"print('x' * 500)\"",
                        color=False)
    child.expect_exact("  ✓ exit code 0")
    shown = child.before
    assert "    abcd\r\n" in shown
    assert "\x1b]0;" not in shown and "\x1b[2J" not in shown and "\x1b[31m" not in shown
    # 200 columns: the indent, 195 x's and the mark; the line never wraps into a second row
    assert "    " + "x" * 195 + "…\r\n" in shown and "x" * 196 not in shown
    assert finish(child) == 0


KEY = "sk-live-SECRET-4242"


def test_a_key_a_command_prints_is_masked_live_even_split_across_reads(on_terminal, project, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    # A whole line, then the key's first half; the second half once the test has seen the first shown.
    child = on_terminal(f"echo ready; printf 'key=sk-%s' live-SEC; {WAIT_FOR_GO}; printf 'RET-4242\\n'",
                        color=False)
    child.expect_exact("    ready\r\n    key=\r\n")  # the part that cannot be a key's start is shown
    (project / "go").touch()
    child.expect_exact("  ✓ exit code 0")
    assert "    key=***\r\n" in child.before
    assert "sk-live-SEC" not in child.before
    assert finish(child) == 0


def test_ctrl_c_stops_the_command_and_leaves_the_cursor_on_a_fresh_line(fake, ayder_on_pty_process):
    asks_to_run(fake, "echo started; sleep 60")
    child = ayder_on_pty_process(*server_args(fake, "openai"), "-x", "run it", term="xterm", color=False)
    child.expect_exact("    started\r\n")
    child.sendintr()
    child.expect_exact("\x1b[J    started\r\n  ✗ interrupted by the user\r\n")  # the live rows, cleared and drawn once
    assert finish(child) == 130


# --- checks: the same view, named by a line of its own


def test_a_failing_check_shows_its_last_lines_under_its_command_then_its_verdict(fake, run_ayder, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}}]),
               Reply(text="Done."))
    check = "python3 -c \"for i in range(30): print('check line', i)\"; exit 2"
    result = run_ayder(*server_args(fake, "openai"), "-w", "--verify", check, "write it")
    lines = result.stderr.splitlines()
    verdict = lines.index(f"✗ check: {check} (exit 2)")
    assert lines[verdict - 11:verdict] == [f"$ {check}"] + [f"    check line {i}" for i in range(20, 30)]
    assert "\x1b" not in result.stderr


def test_a_check_is_live_on_a_terminal_too(fake, ayder_on_pty, project):
    fake.queue(Reply(text="", tool_calls=[{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}}]),
               Reply(text="Done."))
    check = f"echo checking; {WAIT_FOR_GO}; echo checked"
    child = ayder_on_pty(*server_args(fake, "openai"), "-w", "--verify", check, "write it", term="xterm", color=False)
    child.expect_exact(f"$ {check}\r\n    checking\r\n")  # while the check waits
    (project / "go").touch()
    child.expect_exact(f"✓ check: {check}")
    assert child.before.endswith("    checking\r\n    checked\r\n")
    assert finish(child) == 0
