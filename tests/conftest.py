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
    return home


@pytest.fixture
def fake():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


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
