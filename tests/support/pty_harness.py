"""ayder on a terminal: a pseudo-terminal the test types into and reads with pexpect's methods.

TerminalRun runs cli.main() in this process; spawn_on_pty starts the real process, for what needs
one (Ctrl-C as SIGINT, /dev/tty as its controlling terminal, a shell around it). expect_prompt and
finish are the two steps nearly every terminal test takes.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import struct
import termios
import threading
import time
from pathlib import Path

from support.harness import ayder_command, run_main

try:
    import pexpect
    from pexpect.fdpexpect import fdspawn
except ImportError:  # the terminal tests skip themselves (pytest.importorskip) without pexpect
    pexpect = None
    fdspawn = object

PTY_ROWS, PTY_COLUMNS = 24, 200
PROMPT = "> "


def terminal_env(term: str = "dumb", color: bool = True) -> dict[str, str]:
    """A terminal test's environment: the terminal type, no cursor-position requests, NO_COLOR unless color."""
    return {"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": term, **({} if color else {"NO_COLOR": "1"})}


class TerminalRun(fdspawn):
    """ayder's main() in a thread of this process with a pseudo-terminal for stdin, stdout and stderr
    (stdout may go to a file instead). The test types and reads on the other side with pexpect's
    methods, as with pexpect.spawn. Ctrl-C typed at a prompt (sendcontrol("c")) reaches the prompt as
    a key; Ctrl-C as a signal (sendintr) needs a real process: spawn_on_pty."""

    def __init__(self, args, *, env: dict, cwd: Path, stdout_path: Path | None = None, timeout: float = 20,
                 seams: dict | None = None, columns: int = PTY_COLUMNS):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", PTY_ROWS, columns, 0, 0))
        stdin = open(slave, encoding="utf-8")  # noqa: SIM115 - closed when the run ends
        stdout, stderr = (open(os.dup(slave), "w", encoding="utf-8", buffering=1)  # noqa: SIM115
                          for _ in range(2))
        streams = [stdin, stdout, stderr]
        if stdout_path is not None:
            stdout = open(stdout_path, "w", encoding="utf-8")  # noqa: SIM115
            streams.append(stdout)
        self.exitstatus: int | None = None

        def run() -> None:
            try:
                self.exitstatus = run_main(args, seams, stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd)
            finally:
                for stream in streams:  # the last hold on the terminal: the test reads EOF
                    try:
                        stream.close()
                    except OSError:  # the test closed its side first
                        pass

        super().__init__(master, encoding="utf-8", timeout=timeout)
        self.thread = threading.Thread(target=run, name="ayder-on-a-terminal", daemon=True)
        self.thread.start()

    def isalive(self) -> bool:
        return self.thread.is_alive()

    def sendcontrol(self, char: str) -> int:
        return self.send(chr(ord(char.lower()) & 0x1F))

    def sendeof(self) -> None:
        self.sendcontrol("d")

    def sendintr(self) -> None:
        raise NotImplementedError("Ctrl-C as a signal reaches a process: start it with ayder_on_pty_process")

    def close(self, force: bool = True) -> None:
        super().close()  # a run still reading the terminal gets EOF and ends
        self.thread.join(5)


def spawn_on_pty(args, *, env: dict, cwd: Path, term: str = "dumb", color: bool = True,
                 shell: str | None = None) -> pexpect.spawn:
    """The real ayder process on a terminal (pexpect.spawn). With shell, /bin/sh runs that command line,
    in which {ayder} stands for the ayder command and its args."""
    command = [*ayder_command(), *args]
    if shell is not None:
        command = ["/bin/sh", "-c", shell.format(ayder=shlex.join(command))]
    child = pexpect.spawn(command[0], command[1:], env={**env, **terminal_env(term, color)}, cwd=str(cwd),
                          encoding="utf-8", timeout=20, dimensions=(PTY_ROWS, PTY_COLUMNS))
    # pexpect pauses 50 ms before each send, in case a prompt is not reading keys yet, and 100 ms in
    # close(), in case the process has not exited yet: the tests wait for both themselves
    # (expect_prompt, finish), as the in-process TerminalRun always has.
    child.delaybeforesend = None
    child.ptyproc.delayafterclose = 0
    return child


def wait_for_raw_mode(child, timeout_s: float = 20.0) -> None:
    """Wait until prompt_toolkit has the terminal in raw mode, so keys reach it as keys.

    Before that the pty is still in cooked mode, where Ctrl-D or Ctrl-C would be taken
    by the line discipline instead (a race a person typing never wins, but a test would).
    """
    deadline = time.monotonic() + timeout_s
    while termios.tcgetattr(child.child_fd)[3] & termios.ICANON:
        if time.monotonic() > deadline:
            raise AssertionError("the terminal never left cooked mode: no prompt is reading keys")
        time.sleep(0.002)  # a prompt is usually reading keys within milliseconds


def expect_prompt(child, prompt: str = PROMPT) -> None:
    """The prompt is on the screen and reading keys."""
    child.expect_exact(prompt)
    wait_for_raw_mode(child)


def finish(child, timeout_s: float = 20.0) -> int:
    """Wait for the end of the run on the terminal; its exit status."""
    child.expect(pexpect.EOF)
    deadline = time.monotonic() + timeout_s
    while child.isalive():  # the terminal closes as the run ends: the exit follows at once
        if time.monotonic() > deadline:
            raise AssertionError(f"ayder closed its terminal but did not end within {timeout_s:g} s")
        time.sleep(0.002)
    child.close()
    return child.exitstatus
