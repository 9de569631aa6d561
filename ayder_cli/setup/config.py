"""Configuration: defaults, the layers that override them, and validation.

Load order, later wins: built-in defaults < $XDG_CONFIG_HOME/ayder/config.json
< project .ayder/config.json < --config FILE < environment < command-line flags.
Every value is checked; a bad one is a ConfigError naming its source and key.
endpoint_of() resolves a Config, once, to the Endpoint its client talks to.
"""

from __future__ import annotations

import json
import math
import re
import stat
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ayder_cli.llm.endpoint import Endpoint
from ayder_cli.errors import ConfigError
from ayder_cli.spelling import closest
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.xdg import xdg_config_path
from ayder_cli.tool_groups import GROUPS

PROVIDERS = ("ollama", "openai")
DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434", "openai": "https://api.openai.com/v1"}
DEFAULT_MODELS = {"ollama": "qwen2.5-coder:7b", "openai": "gpt-4.1-mini"}


@dataclass(frozen=True)
class Config:
    provider: str = "ollama"
    base_url: str | None = None  # None: the provider's default
    model: str | None = None  # None: the provider's default
    api_key_env: str = "OPENAI_API_KEY"
    api_key_file: str | None = None
    api_key: str | None = None
    timeout_s: float = 300.0
    connect_timeout_s: float = 10.0
    # Reply data (not keep-alives) once a stream has started: the longest gap; None: no limit.
    stream_idle_timeout_s: float | None = 120.0
    # One model call from request to finished reply; None: no limit. A CPU at 3 tokens/s needs
    # about 23 minutes for a 4096-token reply.
    request_timeout_s: float | None = 1800.0
    max_retries: int = 3
    stream: bool = True
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = 4096
    num_ctx: int | None = 8192
    keep_alive: str = "10m"  # Ollama keeps the model loaded this long after a request ("-1": for ever)
    iterations: int = 50
    max_checkpoints: int = 3  # checkpoint cycles per message when the budget is spent; 0: just stop
    compact_at: float = 0.8  # compact the conversation when it fills this share of num_ctx
    auto_compact: bool = True
    prompts: tuple[str, ...] = ("system",)
    instructions: tuple[str, ...] = ()  # file names read beside AGENTS.md, e.g. ("CLAUDE.md",)
    show_thinking: bool = False
    native_tools: str = "auto"  # auto: native tool calling, text format if the server refuses it
    max_tool_output_chars: int = 20000  # a tool's output sent back to the model is cut to this
    shell_timeout_s: float = 120.0  # default timeout of run_shell_command
    tool_timeout_s: float = 30.0  # time limit of the other tools (search, tree walks): they stop there with what they found
    tools: Mapping[str, Any] = field(default_factory=dict)  # disabled, max_calls_per_message, shell_deny
    tool_groups: tuple[str, ...] = ("core",)  # the tool groups offered (TOOL_GROUPS); core always is
    session_in_use: str = "new"  # --continue on a session another ayder writes: "new" session, or "fail"
    max_sessions: int = 100  # transcripts kept per project; older ones go when a new one gets its first reply
    secret_env: tuple[str, ...] = ()  # environment variables whose values are masked like the API key
    # Where each value came from ("default", a file path, "environment", "flag").
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def resolved_base_url(self) -> str:
        return (self.base_url or DEFAULT_BASE_URLS[self.provider]).rstrip("/")

    @property
    def resolved_model(self) -> str:
        return self.model or DEFAULT_MODELS[self.provider]

    def with_values(self, **values: Any) -> "Config":
        """A copy with some values replaced."""
        return replace(self, **values)


KEYS = tuple(f.name for f in fields(Config) if f.name != "sources")


# --- value checks: each returns the normalised value or raises ValueError(description)


def _is_number(value: Any) -> bool:
    """A finite int or float (JSON's NaN and Infinity are not numbers a setting can take)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _describe(value: Any) -> str:
    kind = {bool: "boolean", str: "string", list: "list", dict: "object", type(None): "null"}
    return f"{kind.get(type(value), 'number')} {json.dumps(value)[:40]}"


def _number(minimum: float, nullable: bool = False, integer: bool = False, maximum: float = float("inf")):
    noun = "an integer" if integer else "a number"

    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        ok = _is_number(value) and (not integer or float(value).is_integer())
        if not ok or value < minimum or value > maximum:
            bound = f" >= {minimum:g}" if minimum > float("-inf") else ""
            bound += f" and <= {maximum:g}" if maximum < float("inf") else ""
            raise ValueError(f"must be {noun}{bound}{' or null' if nullable else ''}")
        return int(value) if integer else float(value)

    return check


def _text(nullable: bool = False, choices: tuple[str, ...] = ()):
    def check(value: Any) -> Any:
        if value is None and nullable:
            return None
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a non-empty string" + (" or null" if nullable else ""))
        if choices and value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return value

    return check


def _url(value: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError("must be a URL starting with http:// or https://")
    return value.rstrip("/")


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


TOOL_POLICY_KEYS = ("disabled", "max_calls_per_message", "shell_deny")


def _tool_policy(value: Any) -> dict[str, Any]:
    """{"disabled": [names], "max_calls_per_message": {name: n}, "shell_deny": [regex]}"""
    if not isinstance(value, dict):
        raise ValueError('must be an object like {"disabled": [], "max_calls_per_message": {}, "shell_deny": []}')
    for key, item in value.items():
        if key not in TOOL_POLICY_KEYS:
            close = closest(key, TOOL_POLICY_KEYS)
            raise ValueError(f"has an unknown key {key!r}" + (f" (did you mean {close!r}?)" if close else ""))
        if key in ("disabled", "shell_deny") and not (
            isinstance(item, list) and all(isinstance(v, str) and v for v in item)
        ):
            raise ValueError(f'.{key} must be a list of strings')
        if key == "max_calls_per_message" and not (
            isinstance(item, dict)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in item.values())
        ):
            raise ValueError(".max_calls_per_message must map tool names to counts (0 or more)")
    for pattern in value.get("shell_deny", ()):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f".shell_deny has an invalid regular expression {pattern!r} ({exc})") from None
    return dict(value)


TOOL_GROUPS = tuple(GROUPS)  # in the order they are offered


def _tool_groups(value: Any) -> tuple[str, ...]:
    """["core", "tasks"], "core,tasks" or "all" -> the groups in TOOL_GROUPS order, core always among them."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError(f'must be a list of tool groups, e.g. ["core", "tasks"] ({", ".join(TOOL_GROUPS)} or all)')
    names = {v.strip() for v in value if v.strip()}
    if "all" in names:
        return TOOL_GROUPS
    for name in sorted(names - set(TOOL_GROUPS)):
        close = closest(name, TOOL_GROUPS)
        hint = f" (did you mean {close!r}?)" if close else ""
        raise ValueError(f"has an unknown tool group {name!r}{hint}; the groups are {', '.join(TOOL_GROUPS)}, or all")
    return tuple(group for group in TOOL_GROUPS if group in names or group == "core")


def _prompt_names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ValueError('must be a list of prompt names, e.g. ["system"]')
    names = tuple(v.strip() for v in value if v.strip())
    if not names:
        raise ValueError("must name at least one prompt")
    return names


def _duration(value: Any) -> str:
    """Ollama's keep_alive: "10m", "1h", "90s", "0" (unload at once) or "-1" (keep loaded)."""
    if not isinstance(value, str) or not re.fullmatch(r"-1|\d+(?:\.\d+)?[smh]?", value.strip()):
        raise ValueError('must be a duration like "10m", "1h", "90s", "0" or "-1"')
    return value.strip()


def _file_names(value: Any) -> tuple[str, ...]:
    """Plain file names (no directories), e.g. ["CLAUDE.md", "CONVENTIONS.md"]."""
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, str) and v.strip() and v.strip() not in (".", "..") and not set(v) & {"/", "\\"}
        for v in value
    ):
        raise ValueError('must be a list of file names, e.g. ["CLAUDE.md", "CONVENTIONS.md"]')
    return tuple(dict.fromkeys(v.strip() for v in value))


def _env_names(value: Any) -> tuple[str, ...]:
    """Names of environment variables, e.g. ["GITHUB_TOKEN"]."""
    if not isinstance(value, list | tuple) or not all(
            isinstance(v, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v) for v in value):
        raise ValueError('must be a list of environment variable names, e.g. ["GITHUB_TOKEN"]')
    return tuple(dict.fromkeys(value))


CHECKS: dict[str, Callable[[Any], Any]] = {
    "provider": _text(choices=PROVIDERS),
    "base_url": _url,
    "model": _text(nullable=True),
    "api_key_env": _text(),
    "api_key_file": _text(nullable=True),
    "api_key": _text(nullable=True),
    "timeout_s": _number(0.001),
    "connect_timeout_s": _number(0.001),
    "stream_idle_timeout_s": _number(0.001, nullable=True),
    "request_timeout_s": _number(0.001, nullable=True),
    "max_retries": _number(0, integer=True),
    "stream": _boolean,
    "temperature": _number(0, nullable=True, maximum=2),  # what OpenAI-compatible servers accept
    "top_p": _number(0, nullable=True),
    "max_tokens": _number(1, nullable=True, integer=True),
    "num_ctx": _number(1, nullable=True, integer=True),
    "keep_alive": _duration,
    "iterations": _number(1, integer=True),
    "max_checkpoints": _number(0, integer=True),
    "compact_at": _number(0.05),
    "auto_compact": _boolean,
    "prompts": _prompt_names,
    "instructions": _file_names,
    "show_thinking": _boolean,
    "native_tools": _text(choices=("auto", "on", "off")),
    "max_tool_output_chars": _number(1000, integer=True),
    "shell_timeout_s": _number(0.1),
    "tool_timeout_s": _number(0.001),
    "tools": _tool_policy,
    "tool_groups": _tool_groups,
    "session_in_use": _text(choices=("new", "fail")),
    "max_sessions": _number(1, integer=True),
    "secret_env": _env_names,
}
assert set(CHECKS) == set(KEYS)


def check_value(source: str, key: str, value: Any) -> Any:
    """Validate one value; the error names where it came from."""
    try:
        return CHECKS[key](value)
    except ValueError as exc:
        # The key itself is never echoed, whatever shape it was written in.
        got = _describe(value).split(" ", 1)[0] if key == "api_key" else _describe(value)
        raise ConfigError(f"{source}: \"{key}\" {exc}, got {got}") from None


def _unknown_key(source: str, key: str) -> ConfigError:
    close = closest(key, KEYS)
    suggestion = f' (did you mean "{close}"?)' if close else ""
    return ConfigError(
        f'{source}: unknown key "{key}"{suggestion}',
        hint="config.example.json lists every key.",
    )


# --- layers


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
        raise ConfigError(f"{path}: must hold a JSON object, got {_describe(data)}")
    values = {}
    for key, value in data.items():
        if key not in CHECKS:
            raise _unknown_key(str(path), key)
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


def normalize_ollama_host(value: str) -> str:
    """OLLAMA_HOST may be 'host', 'host:port' or a full URL.

    As in the ollama CLI, port 11434 is added only when no scheme is given:
    'https://host' means port 443.
    """
    value = value.strip().strip("\"'").strip()
    if value.startswith(("http://", "https://")):
        return value.rstrip("/")
    host = value.split("/", 1)[0]
    if ":" not in host.rsplit("]", 1)[-1]:
        value = f"{host}:11434" + value[len(host) :]
    return ("http://" + value).rstrip("/")


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
    if provider == "ollama" and env.get("OLLAMA_HOST"):
        return check_value("environment OLLAMA_HOST", "base_url", normalize_ollama_host(env["OLLAMA_HOST"]))
    if provider == "openai" and env.get("OPENAI_BASE_URL"):
        return check_value("environment OPENAI_BASE_URL", "base_url", env["OPENAI_BASE_URL"])
    return None


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
SERVER_ENV_VARS = ("OPENAI_BASE_URL", "OLLAMA_HOST")


def names_a_server(config: Config, env: Mapping[str, str]) -> bool:
    """A flag, a config file or the environment says which server to use (else ayder looks for one)."""
    set_somewhere = any(config.sources.get(key, "default") != "default" for key in ("provider", "base_url"))
    set_in_code = config.base_url is not None or config.provider != Config.provider  # a Config built by hand
    return set_somewhere or set_in_code or any(env.get(name) for name in SERVER_ENV_VARS)


def endpoint_of(config: Config, env: Mapping[str, str]) -> Endpoint:
    """Where requests go and how: the config resolved once (URL, model, key and where it came from).

    An unreadable api_key_file is a ConfigError."""
    key, source = _api_key(config, env, config.provider)
    return Endpoint(
        provider=config.provider,
        base_url=config.resolved_base_url,
        model=config.resolved_model,
        api_key=key,
        key_source=source,
        key_env=config.api_key_env,
        connect_timeout_s=config.connect_timeout_s,
        read_timeout_s=config.timeout_s,
        stream_idle_timeout_s=config.stream_idle_timeout_s,
        request_timeout_s=config.request_timeout_s,
        max_retries=config.max_retries,
    )


def resolve_api_key(config: Config, env: Mapping[str, str]) -> str | None:
    """The key an OpenAI-compatible server gets: the env var named by api_key_env, else api_key_file,
    else api_key."""
    return _api_key(config, env, "openai")[0]


def api_keys(config: Config, env: Mapping[str, str]) -> list[str]:
    """Every key this config could send, whichever the provider (for masking); a key file that
    cannot be read holds none (endpoint_of reports it)."""
    keys = []
    for provider in PROVIDERS:
        try:
            keys.append(_api_key(config, env, provider)[0])
        except ConfigError:
            pass
    return [key for key in keys if key]


def _api_key(config: Config, env: Mapping[str, str], provider: str) -> tuple[str | None, str | None]:
    """(the key, where it came from). Ollama needs no key: it gets one only if the config names one
    (api_key_file or api_key), never one from the environment."""
    if provider == "openai" and config.api_key_env and env.get(config.api_key_env):
        return env[config.api_key_env].strip(), config.api_key_env
    if config.api_key_file:
        path = Path(config.api_key_file).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"api_key_file: cannot read {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"api_key_file: {path} is not a text file") from None
        return (key, "api_key_file") if key else (None, None)
    if config.api_key:
        return config.api_key, "api_key"
    return None, None
