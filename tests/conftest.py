"""Shared fixtures: an isolated environment for every test, the fake LLM server, the real ayder process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fakellm import FakeLLM  # noqa: E402

AYDER_ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "AYDER_MODEL", "AYDER_PROVIDER",
                  "AYDER_BASE_URL", "NO_COLOR")


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


@pytest.fixture
def run_ayder(project):
    """Run the real ayder process in the project directory; stdin is /dev/null unless given."""

    def run(*args: str, input: str | None = None, env: dict | None = None, timeout: float = 60,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*ayder_command(), *args],
            input=input,
            stdin=subprocess.DEVNULL if input is None else None,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd or project,
            timeout=timeout,
        )

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


@pytest.fixture
def spawn_ayder(project):
    """Start the real ayder process with pipes (Popen); every one still running is killed at the end."""
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
    """Read a pipe as bytes arrive until `needle` shows up; AssertionError after timeout_s."""
    import select
    import time

    fd = stream.fileno()
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
