"""The execute tools: run_shell_command, the deny list, and background processes, with real processes.

Dangerous commands are never started here: the deny-list tests either call denied_by
alone or run the tool with process spawning replaced by a function that fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from support.harness import alive
from support.tool_calls import call_tool

from ayder_cli.calls import ToolCall, ToolResult
from ayder_cli.tools import background as background_module
from ayder_cli.tools import shell as shell_module
from ayder_cli.tools.background import BACKGROUND_TOOLS, ProcessManager
from ayder_cli.tools.spec import ToolContext, ToolRegistry
from ayder_cli.command_policy.deny import DEFAULT_SHELL_DENY, REASONS, denied_by
from ayder_cli.tools.executor import Answer, Decision, Permissions, ToolExecutor
from ayder_cli.tools.shell import RUN_SHELL_COMMAND

SHELL_TOOLS = [RUN_SHELL_COMMAND, *BACKGROUND_TOOLS]
HANG_GUARD_S = 10  # generous: a call that takes this long has hung


@pytest.fixture
def manager(project, monkeypatch):
    # run_background_process waits a moment so a command failing at once can say why; tests need not.
    monkeypatch.setattr(background_module, "START_PEEK_S", 0.05)
    processes = ProcessManager(project, max_processes=3, max_output_chars=4000)
    yield processes
    processes.kill_all()


@pytest.fixture
def context(project, manager) -> ToolContext:
    return ToolContext(project, max_output_chars=4000, processes=manager, shell_deny=DEFAULT_SHELL_DENY,
                       shell_timeout_s=5)


def shell(context: ToolContext, command: str, **arguments) -> ToolResult:
    return call_tool(context, "run_shell_command", command=command, **arguments)


def pids_in(path: Path, count: int) -> list[int]:
    """The pids a command wrote to path, waiting (boundedly) until all count of them are there."""
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        if path.exists():
            pids = [int(word) for word in path.read_text().split()]
            if len(pids) >= count:
                return pids
        time.sleep(0.02)
    raise AssertionError(f"the command never wrote {count} pids to {path}")


def section(output: str, name: str = "output") -> str:
    """The text of a result's --- output --- section (stdout and stderr as the command wrote them)."""
    start = output.index(f"--- {name} ---\n") + len(f"--- {name} ---\n")
    end = output.find("\n--- ", start)
    return output[start:] if end == -1 else output[start:end]


# A command that writes its shell's pid and a background child's pid to `pids`, then waits on both.
TWO_SLEEPERS = "echo $$ > pids; sleep 300 & echo $! >> pids; wait"


# --- run_shell_command


def test_exit_code_and_stdout_and_stderr_in_the_order_written(context):
    result = shell(context, "echo to-out; echo to-err >&2; echo out-again; echo err-again >&2; exit 3")
    assert not result.ok
    assert result.summary == "exit code 3"
    assert result.error.startswith("exit code 3")
    assert section(result.error) == "to-out\nto-err\nout-again\nerr-again"


def test_a_successful_command_is_ok_and_says_so(context):
    result = shell(context, "printf 'a\\nb\\n'")
    assert result.ok and result.summary == "exit code 0"
    assert result.output == "exit code 0\n--- output ---\na\nb"


def test_a_command_with_no_output_says_so(context):
    assert shell(context, "true").output == "exit code 0\n[no output]"


def test_a_missing_program_reports_the_shell_error(context):
    result = shell(context, "no-such-program-anywhere")
    assert not result.ok and result.summary == "exit code 127"
    assert "not found" in section(result.error)


def test_the_command_runs_in_the_project_root(context, project):
    (project / "here.txt").write_text("in the project\n")
    result = shell(context, "pwd; cat here.txt")
    assert section(result.output) == f"{project.resolve()}\nin the project"


@pytest.fixture
def open_stdin():
    """Our own stdin replaced by a pipe nobody writes to, as when ayder waits at a terminal."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


def test_stdin_is_closed_so_a_command_reading_it_ends_at_once(context, open_stdin):
    started = time.monotonic()
    result = shell(context, "cat; read line; echo read-status=$?", timeout_s=HANG_GUARD_S)
    assert time.monotonic() - started < HANG_GUARD_S - 1
    assert result.ok, result.error
    assert section(result.output) == "read-status=1"


def test_timeout_stops_the_whole_process_group(context, project):
    started = time.monotonic()
    result = shell(context, TWO_SLEEPERS, timeout_s=0.2)
    assert time.monotonic() - started < HANG_GUARD_S
    assert not result.ok
    assert result.summary == "timed out after 0.2 s"
    assert "everything it started were stopped" in result.error
    shell_pid, child_pid = pids_in(project / "pids", 2)
    assert not alive(shell_pid)
    assert not alive(child_pid)


def test_timeout_keeps_the_output_that_arrived(context):
    result = shell(context, "echo first-part; echo warning >&2; sleep 300", timeout_s=0.2)
    assert result.summary == "timed out after 0.2 s"
    assert section(result.error) == "first-part\nwarning"


def test_timeout_defaults_to_the_configured_one(project):
    context = ToolContext(project, shell_timeout_s=0.2)
    assert shell(context, "sleep 300").summary == "timed out after 0.2 s"


def test_a_command_ignoring_sigterm_is_killed_anyway(context, project):
    result = shell(context, "trap '' TERM; echo $$ > pids; sleep 300", timeout_s=0.2)
    assert result.summary == "timed out after 0.2 s"
    assert not alive(pids_in(project / "pids", 1)[0])


@pytest.mark.parametrize("value", [-1, "-0.5"])
def test_a_timeout_below_zero_is_refused(context, value):
    result = shell(context, "echo never", timeout_s=value)
    assert not result.ok and "timeout_s must be a number of seconds above 0" in result.error


def test_processes_left_in_the_background_are_stopped(context, project):
    started = time.monotonic()
    result = shell(context, "sleep 300 > /dev/null 2>&1 & echo $! > pids; echo done")
    assert time.monotonic() - started < HANG_GUARD_S
    assert result.ok
    assert "use run_background_process" in result.output
    assert not alive(pids_in(project / "pids", 1)[0])


def test_a_child_holding_the_pipes_open_does_not_hang_ayder(context, project):
    # The child keeps the shell's stdout open after the shell has exited.
    started = time.monotonic()
    result = shell(context, "sleep 300 & echo $! > pids; echo done", timeout_s=60)
    assert time.monotonic() - started < HANG_GUARD_S
    assert result.ok and section(result.output) == "done"
    assert not alive(pids_in(project / "pids", 1)[0])


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid")
def test_a_child_that_left_the_group_holding_the_pipes_does_not_hang_ayder(context, project):
    started = time.monotonic()
    try:
        result = shell(context, "setsid sleep 300 & echo $! > pids; echo done", timeout_s=60)
        assert time.monotonic() - started < HANG_GUARD_S
        assert result.ok and section(result.output) == "done"
    finally:
        for pid in pids_in(project / "pids", 1):
            os.kill(pid, signal.SIGKILL)  # it escaped the group on purpose: ours to clean up


def test_ctrl_c_stops_the_group_and_is_raised_again(context, project):
    # Python's own Ctrl-C handler, even where this test runs with SIGINT ignored (a background job).
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            shell(context, TWO_SLEEPERS, timeout_s=HANG_GUARD_S)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, saved)
    shell_pid, child_pid = pids_in(project / "pids", 2)
    assert not alive(shell_pid) and not alive(child_pid)


def test_long_output_keeps_its_head_and_tail(context):
    result = shell(context, "seq 1 200000")
    assert len(result.output) <= context.max_output_chars
    assert len(result.output) > context.max_output_chars * 3 // 4  # the room is used
    stdout = section(result.output)
    assert stdout.startswith("1\n2\n3\n")
    assert stdout.endswith("199999\n200000")
    assert "bytes cut from the middle" in stdout


def test_an_error_after_a_flood_is_kept_at_the_tail(context):
    result = shell(context, "seq 1 200000; echo the-real-error >&2; exit 1")
    assert len(result.error) <= context.max_output_chars
    assert section(result.error).endswith("200000\nthe-real-error")


def test_a_warning_before_a_flood_is_kept_at_the_head(context):
    result = shell(context, "echo the-first-warning >&2; seq 1 200000 >&2; echo done")
    assert section(result.output).startswith("the-first-warning\n1\n2\n")
    assert section(result.output).endswith("200000\ndone")


def test_the_schemas_stay_small():
    for spec in SHELL_TOOLS:
        assert len(json.dumps(spec.schema())) < 400, spec.name
        assert "\n" not in spec.description


# --- the deny list

CLASSIC_ACCIDENTS = [
    "rm -rf /", "rm -rf /*", "rm -fr /", "rm -r -f /", "rm -rf --no-preserve-root /",
    "rm --no-preserve-root -rf /tmp/x", "rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf $HOME", 'rm -rf "$HOME"',
    "rm -rf ${HOME}/*", "sudo rm -rf /", "/bin/rm -rf /", "rm -rf build /", "cd src && rm -rf /",
    "bash -c 'rm -rf /'", "echo $(rm -rf ~)", "cd / && rm -rf *", "cd ~; rm -rf *",
    "mkfs.ext4 /dev/sdb1", "sudo mkfs -t ext4 /dev/sdb",
    "dd if=/dev/zero of=/dev/sda bs=1M", "dd if=x.iso of=/dev/nvme0n1", "dd if=x.img of=/dev/disk2",
    "echo oops > /dev/sda", "cat image >/dev/sdb1",
    ":(){ :|:& };:", "bomb(){ bomb|bomb& }; bomb",
    "chmod -R 777 /", "sudo chmod 777 -R /", "chmod --recursive a+rwx /",
    "chown -R me:me /", "sudo chgrp -R users /*",
    "shutdown -h now", "sudo reboot", "halt", "poweroff", "systemctl poweroff", "ls; sudo systemctl reboot",
    "init 0", "rm -rf /usr", "echo " + "$(" * 30 + "ls" + ")" * 30,
]

ORDINARY_COMMANDS = [
    "rm -rf build/", "rm -rf ./node_modules", "rm -rf /tmp/build", "rm -rf /tmp/build/*",
    "rm -rf ~/projects/old",
    "rm -rf $HOME/.cache/pip", "rm -rf build; ls /", "rm -rf build && ls /", "rm -rf build\nls /", "ls /",
    "ls -R /", "find / -name '*.py'", "echo rm -rf / is dangerous", 'git commit -m "halt on error"',
    "git log --grep reboot", "./reboot.sh", "python halt.py", "cat shutdown.txt", "grep -r mkfs docs",
    "dd if=/dev/zero of=disk.img bs=1M count=1", "echo hi > /dev/null", "make 2>/dev/null",
    "chmod -R 755 build/", "chmod 644 /tmp/x", "chmod -R u+w ./", "chmod +x a.sh; ls -R /", "chown -R me build",
    "cd / && ls", "cd ~ && rm -rf build/*", "f() { echo hi; }; f", "systemctl status nginx",
]


@pytest.mark.parametrize("command", CLASSIC_ACCIDENTS)
def test_classic_accidents_are_on_the_deny_list(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) is not None


@pytest.mark.parametrize("command", ORDINARY_COMMANDS)
def test_ordinary_commands_are_not(command):
    assert denied_by(command, DEFAULT_SHELL_DENY) is None


def test_every_default_pattern_catches_one_of_the_classic_accidents():
    caught = {denied_by(command, [pattern]) for command in CLASSIC_ACCIDENTS for pattern in DEFAULT_SHELL_DENY}
    assert set(DEFAULT_SHELL_DENY) <= caught
    assert set(DEFAULT_SHELL_DENY) == set(REASONS)


def test_the_deny_list_is_quick_on_a_long_command():
    started = time.monotonic()
    assert denied_by("x" * 100_000 + "\n" + "a/" * 30_000 + ";" * 30_000, DEFAULT_SHELL_DENY) is None
    assert time.monotonic() - started < 2


@pytest.fixture
def nothing_starts(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a denied command was started")

    monkeypatch.setattr(shell_module, "spawn", refuse)
    monkeypatch.setattr(background_module, "spawn", refuse)


@pytest.mark.parametrize("tool", ["run_shell_command", "run_background_process"])
@pytest.mark.parametrize("command", ["rm -rf /", "mkfs.ext4 /dev/sda1", "sudo reboot"])
def test_a_denied_command_is_refused_and_never_started(context, nothing_starts, tool, command):
    result = call_tool(context, tool, command=command)
    assert not result.ok
    assert result.error.startswith("refused:") and "deny list" in result.error
    assert REASONS[denied_by(command, DEFAULT_SHELL_DENY)] in result.error


class Asker:
    def __init__(self) -> None:
        self.asked = []

    def confirm(self, request):
        self.asked.append(request)
        return Answer(Decision.YES)


def test_a_denied_command_is_refused_even_with_x(context, nothing_starts):
    executor = ToolExecutor(ToolRegistry(SHELL_TOOLS), context, permissions=Permissions({"r", "w", "x"}))
    result = executor.run(ToolCall("c1", "run_shell_command", {"command": "rm -rf ~"}))
    assert not result.ok and "never run, even with -x" in result.error


def test_a_denied_command_is_refused_before_the_user_is_asked(context, nothing_starts):
    asker = Asker()
    executor = ToolExecutor(ToolRegistry(SHELL_TOOLS), context, confirmer=asker)
    result = executor.run(ToolCall("c1", "run_shell_command", {"command": "rm -rf /"}))
    assert not result.ok and result.error.startswith("refused:")
    assert asker.asked == []


def test_an_allowed_command_is_still_confirmed(context):
    asker = Asker()
    executor = ToolExecutor(ToolRegistry(SHELL_TOOLS), context, confirmer=asker)
    result = executor.run(ToolCall("c1", "run_shell_command", {"command": "echo fine"}))
    assert result.ok and [request.tool for request in asker.asked] == ["run_shell_command"]


def test_a_pattern_from_the_config_is_applied_and_named(project):
    context = ToolContext(project, shell_deny=(r"\bgit\s+push\b",))
    result = shell(context, "touch marker && git push origin main")
    assert not result.ok and r"\bgit\s+push\b" in result.error
    assert not (project / "marker").exists()


# --- background processes


def test_a_background_process_can_be_started_read_listed_and_killed(context, project):
    started = call_tool(context, "run_background_process", command="echo $$ > pids; echo ready; exec sleep 300")
    assert started.ok and started.output.startswith("started process 1\n")
    [pid] = pids_in(project / "pids", 1)

    listed = call_tool(context, "list_background_processes")
    assert listed.ok and listed.output.startswith("1  running  ")

    output = call_tool(context, "get_background_output", process_id=1)
    assert "running for" in output.output.split("\n")[0]
    assert output.output.split("\n")[1:] == ["ready"]

    killed = call_tool(context, "kill_background_process", process_id=1)
    assert killed.ok and killed.output.startswith("killed process 1 ")
    assert not alive(pid)
    assert call_tool(context, "list_background_processes").output.startswith("1  killed  ")


def test_the_output_of_a_finished_process_reports_its_exit_code(context, manager):
    call_tool(context, "run_background_process", command="echo goodbye; exit 7")
    assert manager.wait(1, HANG_GUARD_S)
    output = call_tool(context, "get_background_output", process_id="1")  # models often quote numbers
    assert output.ok
    assert "exited with code 7" in output.output.split("\n")[0]
    assert output.output.split("\n")[1:] == ["goodbye"]


def test_a_background_command_failing_at_once_says_why_straight_away(context, monkeypatch):
    monkeypatch.setattr(background_module, "START_PEEK_S", 2.0)  # returns as soon as it exits
    result = call_tool(context, "run_background_process", command="echo 'address already in use' >&2; exit 1")
    assert not result.ok
    assert result.summary == "process 1 ended at once"
    assert "exited with code 1" in result.error and "address already in use" in result.error


def test_tail_gives_only_the_last_lines(context, manager):
    call_tool(context, "run_background_process", command="seq 1 50")
    assert manager.wait(1, HANG_GUARD_S)
    output = call_tool(context, "get_background_output", process_id=1, tail=3).output
    assert output.split("\n")[1:] == ["48", "49", "50"]


def test_background_output_is_bounded(context, manager):
    call_tool(context, "run_background_process", command="seq 1 300000")
    assert manager.wait(1, HANG_GUARD_S)
    output = call_tool(context, "get_background_output", process_id=1).output
    assert len(output) <= context.max_output_chars
    assert output.split("\n")[1] == "1" and output.endswith("\n300000")


def test_no_more_than_max_processes_run_at_once(context):
    for _ in range(3):
        assert call_tool(context, "run_background_process", command="exec sleep 300").ok
    refused = call_tool(context, "run_background_process", command="exec sleep 300")
    assert not refused.ok
    assert "3 background processes are already running (ids 1, 2, 3)" in refused.error
    assert "kill_background_process" in refused.error
    call_tool(context, "kill_background_process", process_id=2)
    assert call_tool(context, "run_background_process", command="exec sleep 300").ok


def test_kill_all_leaves_nothing_running_and_can_be_called_again(context, manager, project):
    for n in range(3):
        command = "echo $$ >> pids; sleep 300 & echo $! >> pids; wait"
        assert call_tool(context, "run_background_process", command=command).ok, n
    pids = pids_in(project / "pids", 6)
    started = time.monotonic()
    manager.kill_all()
    assert time.monotonic() - started < HANG_GUARD_S
    assert [pid for pid in pids if alive(pid)] == []
    manager.kill_all()  # at exit, perhaps a second time: nothing to do, nothing raised
    assert [info.status for info in manager.list()] == ["killed", "killed", "killed"]


def test_killing_a_process_that_already_ended_says_so(context, manager):
    call_tool(context, "run_background_process", command="exit 0")
    assert manager.wait(1, HANG_GUARD_S)
    result = call_tool(context, "kill_background_process", process_id=1)
    assert result.ok and "had already exited with code 0" in result.output


def test_an_unknown_process_id_is_an_error_naming_the_known_ones(context):
    call_tool(context, "run_background_process", command="exec sleep 300")
    for tool in ("get_background_output", "kill_background_process"):
        result = call_tool(context, tool, process_id=9)
        assert not result.ok and "no background process 9 (ids: 1;" in result.error


def test_background_tools_without_a_manager_say_they_are_unavailable(project):
    context = ToolContext(project)
    for tool, arguments in [("run_background_process", {"command": "true"}), ("list_background_processes", {}),
                            ("get_background_output", {"process_id": 1})]:
        result = call_tool(context, tool, **arguments)
        assert result.error == "background processes are not available"


def test_old_finished_processes_are_forgotten(context, manager, monkeypatch):
    monkeypatch.setattr(background_module, "KEEP_FINISHED", 2)
    for process_id in range(1, 6):
        call_tool(context, "run_background_process", command="true")
        assert manager.wait(process_id, HANG_GUARD_S)
    ids = [info.id for info in manager.list()]
    assert 1 not in ids and 2 not in ids and ids[-1] == 5


# --- the model's timeout_s never goes past the user's shell_timeout_s


@pytest.mark.parametrize("asked", [1e9, float("inf"), "inf", "1e400", 10**400])
def test_the_models_timeout_is_capped_by_shell_timeout_s(project, asked):
    context = ToolContext(project, shell_timeout_s=0.2)
    started = time.monotonic()
    result = shell(context, "sleep 300", timeout_s=asked)
    assert time.monotonic() - started < HANG_GUARD_S
    assert result.summary == "timed out after 0.2 s"
    assert "note: timeout capped at 0.2 s (shell_timeout_s" in result.error
    assert "pass a larger timeout_s" not in result.error  # it would be capped again


def test_a_capped_timeout_is_said_when_the_command_succeeds_too(context):
    result = shell(context, "echo hi", timeout_s=1e9)
    assert result.ok
    assert result.output.split("\n")[:2] == [
        "exit code 0", "note: timeout capped at 5 s (shell_timeout_s, the user's limit; timeout_s 1e+09 was asked)"]


def test_a_timeout_within_the_limit_is_kept_without_a_note(context):
    result = shell(context, "echo hi", timeout_s=4)
    assert result.output == "exit code 0\n--- output ---\nhi"


@pytest.mark.parametrize("value", [float("nan"), "nan", "soon"])
def test_a_timeout_that_is_not_a_number_is_refused(context, value):
    result = shell(context, "echo never", timeout_s=value)
    assert not result.ok and "never" not in result.error
    assert "timeout_s" in result.error and "number" in result.error
