"""Shared fixtures: an isolated environment for every test, the fake LLM server, and one helper per kind
of test:

- ayder in this process, through cli.main(): run_ayder (as subprocess.run gives), start_ayder (as
  Popen, with pipes), ayder_on_pty (on a terminal, driven with pexpect's methods);
- the real ayder process, for what only a process has (a signal, SIGKILL, its pid, /dev/tty as its
  terminal, the console script, a shell around it): run_ayder_process, spawn_ayder, ayder_on_pty_process;
- one tool call through the whole pipeline: call_tool, run_call;
- a pipe or a terminal read until something arrives, or a deadline: read_until.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

# Compiled test modules (pytest's assertion rewriting) and ayder's modules are cached in
# __pycache__ as Python does by default, even where PYTHONDONTWRITEBYTECODE is set: compiling
# them again in every run and every worker costs seconds.
sys.dont_write_bytecode = False
sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.fakellm import FakeLLM, Reply  # noqa: E402

try:
    import pexpect
    from pexpect.fdpexpect import fdspawn
except ImportError:  # the terminal tests skip themselves (pytest.importorskip) without pexpect
    pexpect = None
    fdspawn = object

from ayder_cli.calls import ToolCall  # noqa: E402
from ayder_cli.tools import ToolContext, ToolRegistry, ToolResult, default_registry  # noqa: E402
from ayder_cli.tools.executor import Permissions, ToolExecutor  # noqa: E402

AYDER_ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "AYDER_MODEL", "AYDER_PROVIDER",
                  "AYDER_BASE_URL", "NO_COLOR")


def _venv_bin_first_on_path() -> None:
    """The test extra's `rg` (the ripgrep package) lands beside this Python: that directory goes
    first on PATH, as activating the venv would. Done at import, not in a fixture: the ripgrep
    tests decide when their module is imported whether `rg` is there."""
    bin_dir = str(Path(sys.executable).parent)
    rest = [entry for entry in os.environ.get("PATH", "").split(os.pathsep) if entry and entry != bin_dir]
    os.environ["PATH"] = os.pathsep.join([bin_dir, *rest])


_venv_bin_first_on_path()


def ayder_command() -> list[str]:
    """The installed console script beside this Python, else `python -m ayder_cli`."""
    script = shutil.which("ayder", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "ayder_cli"]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the developer's config, history, keys or servers."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    for name in AYDER_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    # The ayder processes the tests start may cache their bytecode: compiling every module
    # again in each of them costs more than a tenth of a second per process.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    return home


@pytest.fixture(autouse=True)
def no_local_servers(monkeypatch):
    """Discovery asks no port: no test depends on a server the developer runs (test_discover sets its own)."""
    monkeypatch.setattr("ayder_cli.llm.discover.CANDIDATES", ())


@pytest.fixture(autouse=True)
def retry_pauses(monkeypatch) -> list[float]:
    """No test waits in real time between two tries of a request: the pauses asked for are recorded."""
    pauses: list[float] = []
    monkeypatch.setattr("ayder_cli.llm.http.pause_before_retry", pauses.append)
    return pauses


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


OUTSIDE_SECRET = "TOP SECRET: outside the project"


@pytest.fixture
def root(project) -> Path:
    """The project root, by the name the tool tests use."""
    return project


@pytest.fixture
def outside(tmp_path) -> Path:
    """A directory beside the project, holding a file no tool may read or change."""
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text(OUTSIDE_SECRET + "\n")
    return elsewhere


def run_in_process(args, *, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
                   cwd: Path) -> subprocess.CompletedProcess:
    """ayder's main() in this process, as the process would run: a real pipe (or /dev/null) for stdin,
    the environment of the process (env added) and the working directory given. A run that takes
    longer than timeout fails the test (its thread is left behind, as a hung process would be)."""
    from ayder_cli.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    stdin, writer = _stdin_for(input)
    ended: dict = {}

    def target() -> None:
        try:
            ended["code"] = main(list(args), stdin=stdin, stdout=stdout, stderr=stderr,
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


@pytest.fixture
def run_ayder(project):
    """Run ayder in the project directory, in-process (see run_in_process); stdin is /dev/null unless
    input is given. -> CompletedProcess(args, returncode, stdout, stderr), as subprocess.run gives."""

    def run(*args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return run_in_process(args, input=input, env=env, timeout=timeout, cwd=cwd or project)

    return run


@pytest.fixture
def run_ayder_process(project):
    """run_ayder, but the real ayder process: for what only a process shows (its exit, the console
    script, python -m ayder_cli, a shell around it)."""

    def run(*args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return run_process(args, input=input, env=env, timeout=timeout, cwd=cwd or project)

    return run


# --- helpers for the end-to-end tests

PROTOCOLS = ("ollama", "openai")


def server_args(fake: FakeLLM, protocol: str) -> list[str]:
    """The flags that point ayder at the fake server in one protocol."""
    if protocol == "ollama":
        return ["--base-url", fake.url]
    return ["-p", "openai", "--base-url", fake.openai_url]


@pytest.fixture(params=PROTOCOLS)
def protocol(request) -> str:
    return request.param


@pytest.fixture
def closed_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class PipedRun:
    """ayder's main() in a thread of this process with pipes for stdout and stderr, and for stdin if
    asked (else /dev/null): what subprocess.Popen gives for the process, for tests that read the
    output as it comes or keep stdin open. Its file objects are bytes, as Popen's are."""

    def __init__(self, args, *, env: dict, cwd: Path, stdin=subprocess.DEVNULL) -> None:
        from ayder_cli.cli import main

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
                self.returncode = main(list(args), stdin=their_stdin, stdout=theirs[0], stderr=theirs[1],
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


@pytest.fixture
def start_ayder(project):
    """Start ayder in-process with pipes (a PipedRun, Popen's methods); each is closed at the end."""
    started: list[PipedRun] = []

    def start(*args: str, env: dict | None = None, stdin=subprocess.DEVNULL, cwd: Path | None = None) -> PipedRun:
        run = PipedRun(args, env={**os.environ, **(env or {})}, cwd=cwd or project, stdin=stdin)
        started.append(run)
        return run

    yield start
    for run in started:
        run.close()


@pytest.fixture
def spawn_ayder(project):
    """Start the real ayder process with pipes (Popen), for what needs a process: a signal, SIGKILL,
    its pid. Every one still running is killed at the end."""
    started: list[subprocess.Popen] = []

    def spawn(*args: str, env: dict | None = None, stdin=subprocess.DEVNULL, cwd: Path | None = None,
              **popen) -> subprocess.Popen:
        process = subprocess.Popen(
            [*ayder_command(), *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=cwd or project,
            **popen,
        )
        started.append(process)
        return process

    yield spawn
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream:
                stream.close()


def read_until(stream, needle: bytes, timeout_s: float = 20.0) -> bytes:
    """Read a pipe or a terminal (a stream or a file descriptor) as bytes arrive until `needle` shows
    up: however the writes are split into reads. AssertionError after timeout_s."""
    import select

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


def sigint_mid_reply(fake, spawn, *args: str) -> tuple[int, str, str]:
    """The real ayder process with `args`, sent SIGINT (Ctrl-C) once KEPT has reached its stdout and
    while the server holds back LOST -> (exit status, all of stdout, stderr)."""
    release = threading.Event()
    fake.queue(Reply(chunks=[KEPT, LOST], hold_after=1, release=release))
    process = spawn(*args)
    try:
        seen = read_until(process.stdout, KEPT.rstrip().encode())  # a trailing space waits for what follows
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=30)
    finally:
        release.set()
    return process.returncode, (seen + rest).decode(), err.decode()


def write_json(path: Path, data) -> Path:
    """Write a config (or any JSON) file, making its directory."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def without_environment(text: str) -> str:
    """A first user message as the user wrote it: the environment note ayder sends before it taken off."""
    if text.startswith("<environment>\n") and "\n</environment>\n\n" in text:
        return text.split("\n</environment>\n\n", 1)[1]
    return text


def sent_messages(request: dict) -> list[dict]:
    """The messages of one recorded chat request, with the environment note taken off (see above)."""
    return [{**m, "content": without_environment(m["content"])} if m.get("role") == "user"
            and isinstance(m.get("content"), str) else m for m in request["body"]["messages"]]


NOTES = "first line\nsecond line\nthird line\n"


@pytest.fixture
def notes(project):
    """A three-line notes.txt in the project, for tools to read."""
    path = project / "notes.txt"
    path.write_text(NOTES, encoding="utf-8")
    return path


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


# --- calling one tool


def run_call(where, call: ToolCall, tools=None) -> ToolResult:
    """One call as the model sent it (arguments of any shape, or a decoding error) through the whole
    pipeline: aliases, path normalization, validation, permission (every one granted), execution.
    where: the project root, a ToolContext, or a ToolExecutor (used as it is); tools: the specs
    offered (default: every tool)."""
    if isinstance(where, ToolExecutor):
        return where.run(call)
    context = where if isinstance(where, ToolContext) else ToolContext(where)
    registry = ToolRegistry(tools) if tools is not None else default_registry()
    return ToolExecutor(registry, context, Permissions({"r", "w", "x"})).run(call)


def call_tool(where, name: str, /, tools=None, **arguments) -> ToolResult:
    """run_call for the call `name(**arguments)`."""
    return run_call(where, ToolCall("call-1", name, arguments), tools)


# --- ayder on a terminal: a pseudo-terminal, typed into and read with pexpect

PTY_ROWS, PTY_COLUMNS = 24, 200
PROMPT = "> "


def terminal_env(term: str = "dumb", color: bool = True) -> dict[str, str]:
    """A terminal test's environment: the terminal type, no cursor-position requests, NO_COLOR unless color."""
    return {"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": term, **({} if color else {"NO_COLOR": "1"})}


class TerminalRun(fdspawn):
    """ayder's main() in a thread of this process with a pseudo-terminal for stdin, stdout and stderr
    (stdout may go to a file instead). The test types and reads on the other side with pexpect's
    methods, as with pexpect.spawn. Ctrl-C typed at a prompt (sendcontrol("c")) reaches the prompt as
    a key; Ctrl-C as a signal (sendintr) needs a real process: ayder_on_pty_process."""

    def __init__(self, args, *, env: dict, cwd: Path, stdout_path: Path | None = None, timeout: float = 20):
        import fcntl
        import struct
        import termios

        from ayder_cli.cli import main

        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", PTY_ROWS, PTY_COLUMNS, 0, 0))
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
                self.exitstatus = main(list(args), stdin=stdin, stdout=stdout, stderr=stderr, env=env, cwd=cwd)
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


@pytest.fixture
def ayder_on_pty(project, isolated_env, monkeypatch):
    """Start ayder in-process on a terminal in the project directory -> a TerminalRun (pexpect's methods)."""
    runs: list[TerminalRun] = []

    def start(*args: str, term: str = "dumb", color: bool = True, stdout: Path | None = None) -> TerminalRun:
        for name, value in terminal_env(term, color).items():
            monkeypatch.setenv(name, value)  # prompt_toolkit reads TERM and the rest from os.environ
        run = TerminalRun(args, env=dict(os.environ), cwd=project, stdout_path=stdout)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.close()


@pytest.fixture
def ayder_on_pty_process(project, isolated_env):
    """Start the real ayder process on a terminal (pexpect.spawn), for what needs a process: Ctrl-C as
    SIGINT, /dev/tty as its controlling terminal. With shell, /bin/sh runs that command line, in which
    {ayder} stands for the ayder command and its args. Each child is closed at the end."""
    children = []

    def start(*args: str, term: str = "dumb", color: bool = True, shell: str | None = None) -> pexpect.spawn:
        command = [*ayder_command(), *args]
        if shell is not None:
            command = ["/bin/sh", "-c", shell.format(ayder=shlex.join(command))]
        child = pexpect.spawn(command[0], command[1:], env={**os.environ, **terminal_env(term, color)},
                              cwd=str(project), encoding="utf-8", timeout=20, dimensions=(PTY_ROWS, PTY_COLUMNS))
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)


def wait_for_raw_mode(child, timeout_s: float = 20.0) -> None:
    """Wait until prompt_toolkit has the terminal in raw mode, so keys reach it as keys.

    Before that the pty is still in cooked mode, where Ctrl-D or Ctrl-C would be taken
    by the line discipline instead (a race a person typing never wins, but a test would).
    """
    import termios

    deadline = time.monotonic() + timeout_s
    while termios.tcgetattr(child.child_fd)[3] & termios.ICANON:
        if time.monotonic() > deadline:
            raise AssertionError("the terminal never left cooked mode: no prompt is reading keys")
        time.sleep(0.01)


def expect_prompt(child, prompt: str = PROMPT) -> None:
    """The prompt is on the screen and reading keys."""
    child.expect_exact(prompt)
    wait_for_raw_mode(child)


def finish(child) -> int:
    """Wait for the end of the run on the terminal; its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus
