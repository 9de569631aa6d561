"""Where config values come from, later wins: built-in defaults < $XDG_CONFIG_HOME/ayder/config.json
< project .ayder/config.json < --config FILE < environment < command-line flags.

Every value is checked as it is read; a bad one is a ConfigError naming its source and key.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any, Callable, Mapping

from ayder_cli.errors import ConfigError
from ayder_cli.llm.providers import PROVIDERS, provider_named
from ayder_cli.setup.config import KEYS, Config
from ayder_cli.setup.config_checks import CHECKS, check_value, describe_value, unknown_key
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.xdg import xdg_config_path


def project_config_path(root: Path) -> Path:
    return Layout(root).config


def read_config_file(path: Path, warn: Callable[[str], None]) -> dict[str, Any]:
    """Parse and validate one JSON config file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file",
                          hint="remove it, or put the settings in a file of that name") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must hold a JSON object, got {describe_value(data)}")
    values = {}
    for key, value in data.items():
        if key not in CHECKS:
            raise unknown_key(str(path), key)
        values[key] = check_value(str(path), key, value)
    if values.get("api_key"):
        warn_if_shared(path, "holds an API key", warn)
    return values


def warn_if_shared(path: Path, what: str, warn: Callable[[str], None]) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        warn(f"{path} {what} and is readable by others; run: chmod 600 {path}")


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for var, key in (
        ("AYDER_PROVIDER", "provider"),
        ("AYDER_MODEL", "model"),
        ("AYDER_BASE_URL", "base_url"),
    ):
        if env.get(var):
            values[key] = check_value(f"environment {var}", key, env[var])
    return values


def _provider_env_base_url(provider: str, env: Mapping[str, str]) -> str | None:
    """The base URL the provider's own variable names (OLLAMA_HOST, OPENAI_BASE_URL), if set."""
    record = provider_named(provider)
    value = env.get(record.base_url_env)
    if not value:
        return None
    return check_value(f"environment {record.base_url_env}", "base_url", record.url_from_env(value))


FLAG_NAMES = {"tool_groups": "--tools"}  # a key whose flag is not --the-key-name


def load_config(
    *,
    env: Mapping[str, str],
    root: Path,
    config_file: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    warn: Callable[[str], None] = lambda message: None,
) -> Config:
    """Merge every layer into one validated Config."""
    layers: list[tuple[str, dict[str, Any]]] = []
    for path in (xdg_config_path(env), project_config_path(root)):
        if path.exists():  # a directory or an unreadable file there is an error, not "no config"
            layers.append((str(path), read_config_file(path, warn)))
    if config_file is not None:
        layers.append((str(config_file), read_config_file(config_file, warn)))
    layers.append(("environment", _env_layer(env)))
    flag_values = {k: v for k, v in (flags or {}).items() if v is not None}
    layers.append(("flag", {k: check_value(FLAG_NAMES.get(k, f"--{k.replace('_', '-')}"), k, v)
                            for k, v in flag_values.items()}))

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {key: "default" for key in KEYS}
    rank: dict[str, int] = {}
    base_url_provider = None  # the provider in effect on the layer that set base_url
    for position, (source, values) in enumerate(layers):
        for key, value in values.items():
            merged[key] = value
            sources[key] = source
            rank[key] = position
        if "base_url" in values:
            base_url_provider = merged.get("provider", Config.provider)

    provider = merged.get("provider", Config.provider)
    # A base URL set on an earlier layer than a provider change belongs to the old provider.
    if "base_url" in merged and base_url_provider != provider:
        del merged["base_url"]
        sources["base_url"] = "default"
    env_url = _provider_env_base_url(provider, env)
    env_position = len(layers) - 2
    if env_url and rank.get("base_url", -1) < env_position:
        merged["base_url"] = env_url
        sources["base_url"] = "environment"

    config = Config(**merged, sources=sources)
    if config.api_key_file:
        warn_if_shared(Path(config.api_key_file).expanduser(), "holds an API key", warn)
    return config


# Set, either names a server, even for the provider load_config does not use it with
# (OPENAI_BASE_URL while the provider is Ollama). AYDER_* show up in Config.sources.
SERVER_ENV_VARS = tuple(provider.base_url_env for provider in PROVIDERS.values())


def names_a_server(config: Config, env: Mapping[str, str]) -> bool:
    """A flag, a config file or the environment says which server to use (else ayder looks for one)."""
    set_somewhere = any(config.sources.get(key, "default") != "default" for key in ("provider", "base_url"))
    set_in_code = config.base_url is not None or config.provider != Config.provider  # a Config built by hand
    return set_somewhere or set_in_code or any(env.get(name) for name in SERVER_ENV_VARS)

