"""Nothing outlives ayder: SIGTERM, SIGHUP and a normal exit stop every process its tools started.

The real `ayder` process against the fake server: the model calls a tool whose command
writes its pid to a file, the test signals ayder (or lets it finish) and then checks
that ayder's exit status is the shell's convention and that the pid is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.fakellm import Reply
from support.harness import alive, server_args

from ayder_cli.errors import ExitStatus
from ayder_cli.terminal.signals import Terminated, adopt_orphans, ending_cleanly

HANG_GUARD_S = 15  # generous: what takes this long has hung
# Writes the shell's pid, then becomes the sleep: the pid in the file is the process to watch.
SLEEPER = "echo $$ > pid; exec sleep 300"


def wait_for(condition, what: str, timeout_s: float = HANG_GUARD_S):
    """Poll until condition() is truthy and return it; AssertionError naming `what` after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen within {timeout_s:g} s")


def written_pid(path: Path) -> int:
    text = wait_for(lambda: path.exists() and path.read_text().strip(), f"a pid written to {path.name}")
    return int(text)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    """ayder's exit status and stderr, once it has exited (boundedly)."""
    _, stderr = process.communicate(timeout=HANG_GUARD_S)
    return process.returncode, stderr.decode(errors="replace")


def shell_call(command: str) -> Reply:
    return Reply(text="", tool_calls=[{"name": "run_shell_command", "arguments": {"command": command}}])


def held() -> Reply:
    """A reply that waits (ayder blocked on the server) until the test, or the fake's teardown, releases it."""
    return Reply(text="done", hold_after=0, hold_s=HANG_GUARD_S, release=threading.Event())


def test_sigterm_while_a_command_runs_stops_it_and_exits_143(fake, spawn_ayder, project):
    fake.queue(shell_call(SLEEPER))
    ayder = spawn_ayder(*server_args(fake, "ollama"), "-x", "run it")
    sleeper = written_pid(project / "pid")
    started = time.monotonic()
    ayder.send_signal(signal.SIGTERM)
    status, stderr = finish(ayder)
    assert status == ExitStatus.TERMINATED == 143, stderr
    assert time.monotonic() - started < HANG_GUARD_S  # not the sleep's 300 s (a busy machine takes seconds)
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr
    assert not alive(sleeper)
    assert len(fake.chat_requests()) == 1  # nothing more was asked of the model


def test_sighup_stops_background_processes_and_exits_129(fake, spawn_ayder, project):
    start = {"name": "run_background_process", "arguments": {"command": SLEEPER}}
    fake.queue(Reply(text="", tool_calls=[start]), held())
    ayder = spawn_ayder(*server_args(fake, "ollama"), "-x", "--tools", "processes", "start it")
    fake.wait_for_chat(2)  # the process started, and ayder waits on the model's next reply
    background = written_pid(project / "pid")
    assert alive(background)
    ayder.send_signal(signal.SIGHUP)
    status, stderr = finish(ayder)
    assert status == ExitStatus.HANGUP == 129, stderr
    assert "Traceback" not in stderr
    assert not alive(background)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers and /proc are Linux's")
@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid")
def test_a_process_detached_with_setsid_is_stopped_at_a_normal_exit(fake, spawn_ayder, project):
    # setsid takes it out of the command's process group, so the tool does not stop it. The
    # command waits for the pid, written after setsid: stopping the group earlier would catch it.
    detach = ("setsid sh -c 'echo $$ > pid; exec sleep 300' > /dev/null 2>&1 &\n"
              "until [ -s pid ]; do sleep 0.01; done")
    answer = held()
    fake.queue(shell_call(detach), answer)
    ayder = spawn_ayder(*server_args(fake, "ollama"), "-x", "detach it")
    fake.wait_for_chat(2)  # the command is done
    detached = written_pid(project / "pid")
    try:
        assert alive(detached), "the detached process should outlive the command"
        answer.release.set()
        status, stderr = finish(ayder)
        assert status == 0, stderr
        assert not alive(detached)
    finally:
        if alive(detached):
            os.kill(detached, signal.SIGKILL)


def test_a_signal_inside_unwinds_as_terminated_and_sets_the_status():
    with ending_cleanly() as ending:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs at once; this is not reached
        os.kill(os.getpid(), signal.SIGHUP)  # while unwinding: noted, not raised again
    assert ending.exit_status(0) == ExitStatus.TERMINATED
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # put back


def test_a_sigterm_whose_terminated_python_drops_in_a_finalizer_still_ends_the_run(capsys):
    # Python drops what a __del__ raises ("Exception ignored in"): the handler run there must not be
    # the end of the signal, or the run would go on, deaf to SIGTERM.
    class SignalledWhileFinalized:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)  # the handler runs at once, inside __del__

    went_on = False
    with ending_cleanly() as ending:
        SignalledWhileFinalized()  # dropped at once: its __del__ runs here
        deadline = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < deadline:  # Terminated lands in here, at the next line of ordinary code
            pass
        went_on = True
    assert not went_on
    assert ending.exit_status(0) == ExitStatus.TERMINATED
    assert "Exception ignored" not in capsys.readouterr().err


# A SIGTERM that arrives while Python runs its after-fork hooks in the parent (logging registers one)
# as a command starts: what the handler raises there is dropped. The real hook order, in a process.
AT_FORK = """
import os, signal, subprocess, sys, time
from ayder_cli.terminal.signals import ending_cleanly
os.register_at_fork(after_in_parent=lambda: signal.raise_signal(signal.SIGTERM))
with ending_cleanly() as ending:
    subprocess.Popen(["true"], preexec_fn=lambda: None)  # preexec_fn: a fork, with its hooks
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        pass
    print("went on")
sys.exit(ending.exit_status(0))
"""


def test_a_sigterm_during_the_after_fork_hooks_of_a_command_start_still_ends_the_run():
    result = subprocess.run([sys.executable, "-c", AT_FORK], capture_output=True, text=True, timeout=60)
    assert result.returncode == ExitStatus.TERMINATED, result.stderr
    assert result.stdout == ""
    assert "Exception ignored" not in result.stderr


def test_terminated_is_not_caught_as_ctrl_c_or_as_an_error():
    assert not issubclass(Terminated, (KeyboardInterrupt, Exception))


def test_an_ignored_sighup_stays_ignored():
    # `nohup ayder ...`: the user asked for ayder to outlive the terminal.
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with ending_cleanly():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_GET_CHILD_SUBREAPER is Linux's")
def test_a_test_calling_run_in_process_does_not_become_a_subreaper():
    import ctypes

    adopt_orphans()  # outside ending_cleanly(): a no-op
    flag = ctypes.c_int(-1)
    assert ctypes.CDLL(None).prctl(37, ctypes.byref(flag), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
    assert flag.value == 0


# --- the REPL: a signal while prompt_toolkit handles keys is not lost


@pytest.mark.parametrize("signum, status", [(signal.SIGHUP, 129), (signal.SIGTERM, 143)])
def test_a_signal_while_the_prompt_handles_typed_keys_ends_ayder(fake, ayder_on_pty_process, signum, status):
    """A pasted line keeps prompt_toolkit busy in its callbacks; one of them (its stdout flush) has
    a bare `except:` that swallowed the signal, leaving ayder running on a closed terminal."""
    import pexpect
    from support.pty_harness import expect_prompt

    child = ayder_on_pty_process("--base-url", fake.url)
    expect_prompt(child)
    child.send("x" * 4000)
    child.expect_exact("xxxx")  # it is handling the keys now
    os.kill(child.pid, signum)
    child.expect(pexpect.EOF, timeout=HANG_GUARD_S)  # reading on: the echo must not fill the terminal
    child.close()
    assert child.exitstatus == status
    assert fake.chat_requests() == []


def test_terminated_leaves_an_event_loop_callback():
    """asyncio lets only SystemExit and KeyboardInterrupt out of a callback; Terminated is the first."""
    import asyncio

    def terminated() -> None:
        raise Terminated(signal.SIGTERM)

    loop = asyncio.new_event_loop()
    try:
        loop.call_soon(terminated)
        loop.call_later(2, loop.stop)  # without the fix the loop logs the error and runs on to here
        with pytest.raises(Terminated):
            loop.run_forever()
    finally:
        loop.close()
