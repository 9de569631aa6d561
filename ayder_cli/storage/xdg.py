"""The user-wide places ayder keeps things, by the XDG base directory rules (read from this run's
environment, not the process's)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping


def xdg_state_dir(env: Mapping[str, str]) -> Path:
    """Where ayder keeps what it learns between runs (REPL history, server profiles)."""
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".local" / "state")
    return Path(base) / "ayder"


def xdg_config_path(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "ayder" / "config.json"


def history_path(env: Mapping[str, str]) -> Path:
    """The REPL's prompt history: the lines typed at it, across runs and projects."""
    return xdg_state_dir(env) / "history"


def private_history(env: Mapping[str, str]) -> Path:
    """The history file, made with its folder when missing, readable by its owner only (mode 600):
    a typed line may hold a key or a private path. One an older ayder made 644 is narrowed too."""
    path = history_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    os.chmod(path, 0o600)
    return path


def xdg_cache_dir(env: Mapping[str, str]) -> Path:
    """The user's cache directory (not ayder's own): the sandbox lets commands write it."""
    return Path(env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".cache"))
