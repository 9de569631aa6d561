"""ayder run the ways the tests need, each giving what subprocess gives for a process:

- in this process, through cli.main(): run_in_process (a CompletedProcess, as subprocess.run gives),
  PipedRun (Popen's methods, for output read as it comes or stdin kept open);
- as the real process, for what only a process has (a signal, SIGKILL, its pid, the console script,
  a shell around it): run_process, spawn_process.

And what goes with them: the flags that point ayder at the fake server (server_args), a pipe or a
terminal read until something arrives (read_until), Ctrl-C in the middle of a reply
(sigint_mid_reply), whether a pid still runs (alive). ayder on a terminal is in pty_harness.py.
"""

from __future__ import annotations

import io
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from support.fakellm import FakeLLM, Reply

PROTOCOLS = ("ollama", "openai")


def server_args(fake: FakeLLM, protocol: str) -> list[str]:
    """The flags that point ayder at the fake server in one protocol. The provider is named: the fake
    speaks both on one port, and a URL given alone would be asked which (session/url_server.py)."""
    if protocol == "ollama":
        return ["-p", "ollama", "--base-url", fake.url]
    return ["-p", "openai", "--base-url", fake.openai_url]


def ayder_command() -> list[str]:
    """The installed console script beside this Python, else `python -m ayder_cli`."""
    script = shutil.which("ayder", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "ayder_cli"]


# --- in this process


def run_main(args, seams: dict | None = None, **given) -> int:
    """ayder run as main() would run it with the streams, env and cwd `given`, and the Environment's
    fields in `seams` set (the clock, the ports discovery asks): what a test passes in, not patches."""
    from ayder_cli.cli import run_in
    from ayder_cli.terminal.environment import Environment

    return run_in(replace(Environment.of(**given), **(seams or {})), list(args))


def run_in_process(args, *, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
                   cwd: Path, seams: dict | None = None) -> subprocess.CompletedProcess:
    """ayder's main() in this process, as the process would run: a real pipe (or /dev/null) for stdin,
    the environment of the process (env added) and the working directory given. A run that takes
    longer than timeout fails the test (its thread is left behind, as a hung process would be)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    stdin, writer = _stdin_for(input)
    ended: dict = {}

    def target() -> None:
        try:
            ended["code"] = run_main(args, seams, stdin=stdin, stdout=stdout, stderr=stderr,
                                     env={**os.environ, **(env or {})}, cwd=cwd)
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            ended["error"] = exc

    thread = threading.Thread(target=target, name="ayder-in-process", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise subprocess.TimeoutExpired(["ayder", *args], timeout, stdout.getvalue(), stderr.getvalue())
    stdin.close()  # a writer still blocked on a full pipe gets EPIPE and ends
    if writer is not None:
        writer.join(timeout)
    if "error" in ended:
        raise ended["error"]
    return subprocess.CompletedProcess(["ayder", *args], ended["code"], stdout.getvalue(), stderr.getvalue())


def _stdin_for(input: str | bytes | None):
    """/dev/null, or the read end of a pipe a thread writes `input` into: (stdin, the writer thread)."""
    if input is None:
        return open(os.devnull, "rb"), None
    data = input.encode() if isinstance(input, str) else input
    read_fd, write_fd = os.pipe()

    def write() -> None:
        try:
            with open(write_fd, "wb") as pipe:
                pipe.write(data)
        except BrokenPipeError:  # ayder stopped reading: as a real pipe would, it gets no more
            pass

    writer = threading.Thread(target=write, name="ayder-stdin", daemon=True)
    writer.start()
    return open(read_fd, "rb"), writer


class PipedRun:
    """ayder's main() in a thread of this process with pipes for stdout and stderr, and for stdin if
    asked (else /dev/null): what subprocess.Popen gives for the process, for tests that read the
    output as it comes or keep stdin open. Its file objects are bytes, as Popen's are."""

    def __init__(self, args, *, env: dict, cwd: Path, stdin=subprocess.DEVNULL, seams: dict | None = None) -> None:
        (out_read, out_write), (err_read, err_write) = os.pipe(), os.pipe()
        self.stdout, self.stderr = open(out_read, "rb"), open(err_read, "rb")  # noqa: SIM115
        # As in a process: stdout block-buffered into a pipe, stderr line-buffered.
        theirs = [open(out_write, "w", encoding="utf-8"),  # noqa: SIM115 - closed when the run ends
                  open(err_write, "w", encoding="utf-8", buffering=1)]  # noqa: SIM115
        if stdin == subprocess.PIPE:
            in_read, in_write = os.pipe()
            self.stdin, their_stdin = open(in_write, "wb"), open(in_read, "rb")  # noqa: SIM115
        else:
            self.stdin, their_stdin = None, open(os.devnull, "rb")  # noqa: SIM115
        theirs.append(their_stdin)
        self.args = ["ayder", *args]
        self.returncode: int | None = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.returncode = run_main(args, seams, stdin=their_stdin, stdout=theirs[0], stderr=theirs[1],
                                           env=env, cwd=cwd)
            except BaseException as exc:  # noqa: BLE001 - raised again by wait()
                self.error = exc
            finally:
                for stream in theirs:  # the readers see the end of the output
                    try:
                        stream.close()
                    except OSError:  # the reader went away first
                        pass

        self.thread = threading.Thread(target=run, name="ayder-piped", daemon=True)
        self.thread.start()

    def poll(self) -> int | None:
        return None if self.thread.is_alive() else self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise subprocess.TimeoutExpired(self.args, timeout)
        if self.error is not None:
            raise self.error
        return self.returncode

    def communicate(self, input: bytes | None = None, timeout: float | None = None) -> tuple[bytes, bytes]:
        """Write input (then close stdin), read both pipes to their end, wait: as Popen.communicate."""
        read: dict = {}
        readers = [threading.Thread(target=lambda s=stream: read.__setitem__(s, s.read()), daemon=True)
                   for stream in (self.stdout, self.stderr)]
        for reader in readers:
            reader.start()
        if self.stdin is not None and not self.stdin.closed:
            try:
                self.stdin.write(input or b"")
                self.stdin.close()
            except BrokenPipeError:  # it stopped reading: as with a process, the rest is not wanted
                pass
        self.wait(timeout)
        for reader in readers:
            reader.join(timeout)
        return read.get(self.stdout, b""), read.get(self.stderr, b"")

    def close(self) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.thread.join(5)


# --- the real process


def run_process(args, *, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
                cwd: Path) -> subprocess.CompletedProcess:
    """The real ayder process; stdin is /dev/null unless input is given."""
    return subprocess.run(
        [*ayder_command(), *args],
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,
        capture_output=True,
        text=not isinstance(input, bytes),
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def spawn_process(args, *, env: dict | None = None, stdin=subprocess.DEVNULL, cwd: Path, **popen) -> subprocess.Popen:
    """The real ayder process started with pipes for stdout and stderr (Popen); the caller ends it."""
    return subprocess.Popen([*ayder_command(), *args], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})}, cwd=cwd, **popen)


def end_process(process: subprocess.Popen) -> None:
    """Kill it if it still runs, reap it, close its pipes."""
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream:
            stream.close()


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie (dead, not yet reaped by its parent) does not count."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


# --- reading what arrives


def read_until(stream, needle: bytes, timeout_s: float = 20.0) -> bytes:
    """Read a pipe or a terminal (a stream or a file descriptor) as bytes arrive until `needle` shows
    up: however the writes are split into reads. AssertionError after timeout_s."""
    fd = stream if isinstance(stream, int) else stream.fileno()
    seen = b""
    deadline = time.monotonic() + timeout_s
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{needle!r} did not arrive within {timeout_s:g} s; got {seen!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"the stream ended before {needle!r} arrived; got {seen!r}")
            seen += chunk
    return seen


KEPT, LOST = "kept part ", "lost part"  # the reply of sigint_mid_reply: what arrived before Ctrl-C, and after


def sigint_mid_reply(fake: FakeLLM, spawn, *args: str) -> tuple[int, str, str]:
    """The real ayder process with `args` (started by spawn, the spawn_ayder fixture), sent SIGINT
    (Ctrl-C) once KEPT has reached its stdout and while the server holds back LOST
    -> (exit status, all of stdout, stderr)."""
    release = threading.Event()
    fake.queue(Reply.held(KEPT, LOST, after=1, release=release))
    process = spawn(*args)
    try:
        seen = read_until(process.stdout, KEPT.rstrip().encode())  # a trailing space waits for what follows
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=30)
    finally:
        release.set()
    return process.returncode, (seen + rest).decode(), err.decode()
