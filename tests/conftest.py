"""Fixtures: an isolated environment for every test, the fake LLM server, a project directory, and
ayder started each way a test needs it, closed or killed at the end:

- in this process, through cli.main(): run_ayder (as subprocess.run gives), start_ayder (as Popen,
  with pipes), ayder_on_pty (on a terminal, driven with pexpect's methods);
- the real process, for what only a process has: run_ayder_process, spawn_ayder, ayder_on_pty_process.

The machinery behind them is in support/harness.py and support/pty_harness.py; tests import the
helpers (server_args, read_until, call_tool, write_json, ...) from support/ too.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

# Compiled test modules and ayder's modules are cached in __pycache__ as Python does by default,
# even where PYTHONDONTWRITEBYTECODE is set: compiling them again in every run and every worker
# costs seconds. Set before Hypothesis is imported: pytest rewrites the asserts of a plugin's
# package (Hypothesis's 119 modules, 0.6 CPU-s) and without a cache does so in every process.
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support.fakellm import FakeLLM  # noqa: E402
from support.files import NOTES, OUTSIDE_SECRET  # noqa: E402
from support.harness import PROTOCOLS, PipedRun, end_process, run_in_process, run_process, spawn_process  # noqa: E402
from support.homes import Homes  # noqa: E402
from support.pty_harness import PTY_COLUMNS, TerminalRun, spawn_on_pty, terminal_env  # noqa: E402

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

# Property tests draw a quarter of their examples on your machine (`quick`) and all of them in CI
# (`full`: .ci/run passes --hypothesis-profile=full); support/examples.py scales the counts tests
# write. Registered here, before any test module is imported, so the counts see the loaded profile.
settings.register_profile("full", max_examples=100)
settings.register_profile("quick", max_examples=25)
settings.load_profile("quick")  # pytest's --hypothesis-profile loads another one after this

# How the run uses the cores: the workers, what they share, the order files are handed out in.
pytest_plugins = ["support.suite_run"]


# --- every test


@pytest.fixture(scope="session")
def homes(tmp_path_factory) -> Homes:
    return Homes(tmp_path_factory)


@pytest.fixture(autouse=True)
def isolated_env(homes, monkeypatch):
    """No test sees the developer's config, history, keys or servers."""
    home = homes.empty_one()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    for name in AYDER_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    # This run's pytest options (CI's --hypothesis-profile=full) are not for the pytest a test's project runs.
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    # The ayder processes the tests start may cache their bytecode: compiling every module
    # again in each of them costs more than a tenth of a second per process.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    return home


@pytest.fixture
def seams(retry_pauses) -> dict:
    """The Environment fields every in-process run of a test is given (run_ayder, start_ayder,
    ayder_on_pty): discovery asks no port, so no test depends on a server the developer runs, and
    no test waits in real time between two tries of a request (the pauses are recorded).
    A fixture may add to it (a clock) before the test runs ayder."""
    return {"local_servers": (), "pause": retry_pauses.append}


@pytest.fixture
def retry_pauses() -> list[float]:
    """The pauses between two tries of a request that ayder run in-process asked for (see seams)."""
    return []


# --- the server, the project, the files in it


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


@pytest.fixture(params=PROTOCOLS)
def protocol(request) -> str:
    return request.param


@pytest.fixture
def closed_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


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
def notes(project):
    """A three-line notes.txt in the project, for tools to read."""
    path = project / "notes.txt"
    path.write_text(NOTES, encoding="utf-8")
    return path


# --- ayder in this process


@pytest.fixture
def run_ayder(project, seams):
    """Run ayder in the project directory, in-process (see run_in_process); stdin is /dev/null unless
    input is given. -> CompletedProcess(args, returncode, stdout, stderr), as subprocess.run gives."""

    def run(*args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return run_in_process(args, input=input, env=env, timeout=timeout, cwd=cwd or project, seams=seams)

    return run


@pytest.fixture
def start_ayder(project, seams):
    """Start ayder in-process with pipes (a PipedRun, Popen's methods); each is closed at the end."""
    started: list[PipedRun] = []

    def start(*args: str, env: dict | None = None, stdin=subprocess.DEVNULL, cwd: Path | None = None) -> PipedRun:
        run = PipedRun(args, env={**os.environ, **(env or {})}, cwd=cwd or project, stdin=stdin, seams=seams)
        started.append(run)
        return run

    yield start
    for run in started:
        run.close()


@pytest.fixture
def ayder_on_pty(project, isolated_env, monkeypatch, seams):
    """Start ayder in-process on a terminal in the project directory -> a TerminalRun (pexpect's methods)."""
    runs: list[TerminalRun] = []

    def start(*args: str, term: str = "dumb", color: bool = True, stdout: Path | None = None,
              columns: int = PTY_COLUMNS) -> TerminalRun:
        for name, value in terminal_env(term, color).items():
            monkeypatch.setenv(name, value)  # prompt_toolkit reads TERM and the rest from os.environ
        run = TerminalRun(args, env=dict(os.environ), cwd=project, stdout_path=stdout, seams=seams, columns=columns)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.close()


# --- the real ayder process


@pytest.fixture
def run_ayder_process(project):
    """run_ayder, but the real ayder process: for what only a process shows (its exit, the console
    script, python -m ayder_cli, a shell around it)."""

    def run(*args: str, input: str | bytes | None = None, env: dict | None = None, timeout: float = 60,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
        return run_process(args, input=input, env=env, timeout=timeout, cwd=cwd or project)

    return run


@pytest.fixture
def spawn_ayder(project):
    """Start the real ayder process with pipes (Popen), for what needs a process: a signal, SIGKILL,
    its pid. Every one still running is killed at the end."""
    started: list[subprocess.Popen] = []

    def spawn(*args: str, env: dict | None = None, stdin=subprocess.DEVNULL, cwd: Path | None = None,
              **popen) -> subprocess.Popen:
        process = spawn_process(args, env=env, stdin=stdin, cwd=cwd or project, **popen)
        started.append(process)
        return process

    yield spawn
    for process in started:
        end_process(process)


@pytest.fixture
def ayder_on_pty_process(project, isolated_env):
    """Start the real ayder process on a terminal (pexpect.spawn), for what needs a process: Ctrl-C as
    SIGINT, /dev/tty as its controlling terminal. With shell, /bin/sh runs that command line, in which
    {ayder} stands for the ayder command and its args. Each child is closed at the end."""
    children = []

    def start(*args: str, term: str = "dumb", color: bool = True, shell: str | None = None):
        child = spawn_on_pty(args, env=dict(os.environ), cwd=project, term=term, color=color, shell=shell)
        children.append(child)
        return child

    yield start
    for child in children:
        child.close(force=True)
