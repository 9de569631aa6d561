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
from ayder_cli.llm.providers import OLLAMA, OPENAI, PROVIDERS, provider_named
from ayder_cli.config.schema import KEYS, NEEDS_TRUST, Config, ProjectTrust
from ayder_cli.config.config_checks import CHECKS, check_value, describe_value, tools_flag, unknown_key
from ayder_cli.config.project_tools import narrowed_tools
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.no_follow import PlantedLink, read_state_file
from ayder_cli.storage.project_config import MAX_CONFIG_BYTES
from ayder_cli.storage.xdg import xdg_config_path


def project_config_path(root: Path) -> Path:
    return Layout(root).config


def read_config_file(path: Path, warn: Callable[[str], None]) -> dict[str, Any]:
    """Parse and validate one JSON config file."""
    return _parse_config_file(path, _config_bytes(path), warn)


def _config_bytes(path: Path) -> bytes:
    """The file's bytes (read once: a project's are hashed for its trust too)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file",
                          hint="remove it, or put the settings in a file of that name") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from None


def _project_bytes(path: Path, warn: Callable[[str], None]) -> bytes | None:
    """The project's config, read only as a regular file of at most MAX_CONFIG_BYTES, never through a
    link (a cloned project may plant one to /dev/zero or to a file outside): else one line, and
    the run goes on without it. None when there is none."""
    try:
        return read_state_file(path, MAX_CONFIG_BYTES)
    except PlantedLink as exc:
        warn(f"{exc.message}; the project's config is not used")
        return None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file",
                          hint="remove it, or put the settings in a file of that name") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from None


def _parse_config_file(path: Path, data: bytes, warn: Callable[[str], None]) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from None
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(parsed, dict):
        raise ConfigError(f"{path}: must hold a JSON object, got {describe_value(parsed)}")
    values = {}
    for key, value in parsed.items():
        if key not in CHECKS:
            raise unknown_key(str(path), key)
        values[key] = check_value(str(path), key, value)
    if values.get("api_key"):
        warn_if_shared(path, "holds an API key", warn)
    return values


# Decides whether a project's config may set what it asked for of NEEDS_TRUST:
# (the file, its bytes, {name: value} asked) -> the decision (config/project_trust.py).
TrustDecider = Callable[[Path, bytes, dict[str, Any]], ProjectTrust]


def needing_trust(values: Mapping[str, Any]) -> dict[str, Any]:
    """The NEEDS_TRUST settings among a file's values; a part of an object by its dotted name."""
    asked = {}
    for key, value in values.items():
        if key in NEEDS_TRUST:
            asked[key] = value
        elif isinstance(value, dict):
            asked.update({f"{key}.{part}": item for part, item in value.items() if f"{key}.{part}" in NEEDS_TRUST})
    return asked


def _project_layer(path: Path, data: bytes, values: dict[str, Any], earlier: Mapping[str, Any],
                   trust: TrustDecider | None,
                   warn: Callable[[str], None]) -> tuple[dict[str, Any], ProjectTrust | None]:
    """The project's values that apply, and the trust decision when it asked for something that needs it.
    Only then is the decider called (it hashes the file, reads the approvals, may ask)."""
    asked = needing_trust(values)
    decision = None
    if asked:
        decision = trust(path, data, asked) if trust else ProjectTrust(tuple(asked), False, "not asked")
        if not decision.trusted:
            warn(f"{path}: {', '.join(asked)} ignored, the project is not trusted ({decision.why})")
            values = {key: value for key, value in values.items() if key not in asked}
            for name in asked:
                key, _, part = name.partition(".")
                if part and key in values:
                    values[key] = {p: v for p, v in values[key].items() if p != part}
                    if not values[key]:  # nothing of it left: yours stays whole
                        del values[key]
    if isinstance(values.get("tools"), dict):  # it narrows yours, never widens it
        values = {**values, "tools": narrowed_tools(earlier.get("tools") or {}, values["tools"], str(path), warn)}
    return _keeping_earlier_parts(values, earlier), decision


def _keeping_earlier_parts(values: dict[str, Any], earlier: Mapping[str, Any]) -> dict[str, Any]:
    """A project's object (`tools`) replaces yours, but never drops a part of it that needs trust
    (your tools.shell_deny) unless it sets that part itself, trusted."""
    for name in NEEDS_TRUST:
        key, _, part = name.partition(".")
        mine = earlier.get(key)
        if part and key in values and part not in values[key] and isinstance(mine, dict) and part in mine:
            values = {**values, key: {**values[key], part: mine[part]}}
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


def _tools_flag(value: Any) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    if not isinstance(value, str):  # a list, as a caller in code may give: the groups' check says what it takes
        return check_value("--tools", "tool_groups", value), None
    try:
        return tools_flag(value)
    except ValueError as exc:
        raise ConfigError(f"--tools: {str(exc).removeprefix('has an ')}") from None  # it names the item


def load_config(
    *,
    env: Mapping[str, str],
    root: Path,
    config_file: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    warn: Callable[[str], None] = lambda message: None,
    trust: TrustDecider | None = None,
) -> Config:
    """Merge every layer into one validated Config. What the project's config asks for of NEEDS_TRUST
    applies only if `trust` (None: nothing) says so."""
    layers: list[tuple[str, dict[str, Any]]] = []
    user_path, project_path = xdg_config_path(env), project_config_path(root)
    # A directory or an unreadable file there is an error, not "no config".
    if user_path.exists():
        layers.append((str(user_path), read_config_file(user_path, warn)))
    project_trust = None
    data = _project_bytes(project_path, warn)
    if data is not None:
        values, project_trust = _project_layer(project_path, data, _parse_config_file(project_path, data, warn),
                                               layers[0][1] if layers else {}, trust, warn)
        layers.append((str(project_path), values))
    if config_file is not None:
        layers.append((str(config_file), read_config_file(config_file, warn)))
    layers.append(("environment", _env_layer(env)))
    flag_values = {k: v for k, v in (flags or {}).items() if v is not None}
    flag_layer = {k: check_value(FLAG_NAMES.get(k, f"--{k.replace('_', '-')}"), k, v)
                  for k, v in flag_values.items() if k != "tool_groups"}
    enabled = None  # --tools naming tools: the exact tools of this run
    if "tool_groups" in flag_values:
        flag_layer["tool_groups"], enabled = _tools_flag(flag_values["tool_groups"])
    layers.append(("flag", flag_layer))

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
    if _openai_url_alone(env, sources):  # as the OpenAI SDKs read it: the server it was set for
        provider = merged["provider"] = OPENAI.name
        sources["provider"] = OPENAI_URL_ALONE
    # A base URL set on an earlier layer than a provider change belongs to the old provider.
    if "base_url" in merged and base_url_provider != provider:
        del merged["base_url"]
        sources["base_url"] = "default"
    env_url = _provider_env_base_url(provider, env)
    env_position = len(layers) - 2
    if env_url and rank.get("base_url", -1) < env_position:
        merged["base_url"] = env_url
        sources["base_url"] = "environment"

    if enabled is not None:  # replaces the config's tools.enabled, the rest of `tools` stays
        merged["tools"] = {**merged.get("tools", {}), "enabled": list(enabled)}
    config = Config(**merged, sources=sources, project_trust=project_trust)
    if config.api_key_file:
        warn_if_shared(Path(config.api_key_file).expanduser(), "holds an API key", warn)
    return config


OPENAI_URL_ALONE = f"environment {OPENAI.base_url_env}"  # the provider's source when that alone named the server


def _openai_url_alone(env: Mapping[str, str], sources: Mapping[str, str]) -> bool:
    """OPENAI_BASE_URL set, and nothing else names a provider, a URL or Ollama's host."""
    return bool(env.get(OPENAI.base_url_env)) and not env.get(OLLAMA.base_url_env) and \
        sources["provider"] == "default" and sources["base_url"] == "default"


# Set, either names a server, even for the provider load_config does not use it with
# (OPENAI_BASE_URL while the provider is Ollama). AYDER_* show up in Config.sources.
SERVER_ENV_VARS = tuple(provider.base_url_env for provider in PROVIDERS.values())


def names_a_server(config: Config, env: Mapping[str, str]) -> bool:
    """A flag, a config file or the environment says which server to use (else ayder looks for one)."""
    set_somewhere = any(config.sources.get(key, "default") != "default" for key in ("provider", "base_url"))
    set_in_code = config.base_url is not None or config.provider != Config.provider  # a Config built by hand
    return set_somewhere or set_in_code or any(env.get(name) for name in SERVER_ENV_VARS)

