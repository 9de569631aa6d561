"""The check of every config value: each returns the value normalised, or raises ValueError(description).

check_value() turns that description into a ConfigError naming where the value came from.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

from ayder_cli.config.schema import KEYS, TOOL_GROUPS
from ayder_cli.edit_formats import CHOICES as EDIT_FORMATS
from ayder_cli.errors import ConfigError
from ayder_cli.llm.providers import PROVIDERS
from ayder_cli.spelling import closest
from ayder_cli.tool_groups import FIND_TOOLS, MCP_SEPARATOR, TOOLS, tools_of

SANDBOX_MODES = ("workspace-write", "read-only", "off")  # what processes/sandbox.py does with each: its docstring


def _is_number(value: Any) -> bool:
    """A finite int or float (JSON's NaN and Infinity are not numbers a setting can take)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def describe_value(value: Any) -> str:
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


# host, host:port or host:port/path with no scheme: what `OLLAMA_HOST` style habits type
_SCHEMELESS = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(/\S*)?$")


def _url(value: Any) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        error = ValueError("must be a URL starting with http:// or https://")
        if isinstance(value, str) and _SCHEMELESS.match(value):
            error.suggestion = f"did you mean http://{value}?"  # said after the value (check_value)
        raise error
    return value.rstrip("/")


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


TOOL_POLICY_KEYS = ("enabled", "disabled", "max_calls_per_message", "shell_deny")


def _tool_policy(value: Any) -> dict[str, Any]:
    """{"enabled": [names], "disabled": [names], "max_calls_per_message": {name: n}, "shell_deny": [regex]}"""
    if not isinstance(value, dict):
        raise ValueError('must be an object like {"enabled": [...], "disabled": [], "max_calls_per_message": {}, '
                         '"shell_deny": []}')
    for key, item in value.items():
        if key not in TOOL_POLICY_KEYS:
            close = closest(key, TOOL_POLICY_KEYS)
            raise ValueError(f"has an unknown key {key!r}" + (f" (did you mean {close!r}?)" if close else ""))
        if key in ("enabled", "disabled", "shell_deny") and not (
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
    if "enabled" in value:
        try:
            value = {**value, "enabled": list(tool_names(value["enabled"]))}
        except ValueError as exc:
            raise ValueError(f".enabled {exc}") from None
    return dict(value)


def tool_names(items) -> tuple[str, ...]:
    """tools.enabled or --tools: the tools named, a group standing for its tools ("all": every built-in
    one); an MCP tool is SERVER__TOOL, known only once its server runs."""
    names: list[str] = []
    for item in (item.strip() for item in items):
        if item == "all" or item in TOOL_GROUPS:
            names += tools_of(TOOL_GROUPS if item == "all" else (item,))
        elif item in TOOLS or item == FIND_TOOLS or MCP_SEPARATOR in item.strip("_"):
            names.append(item)
        elif item:
            close = closest(item, (*TOOL_GROUPS, *TOOLS))
            hint = f" (did you mean {close!r}?)" if close else ""
            if close in TOOLS:
                raise ValueError(f"has an unknown tool {item!r}{hint}; /tools lists them")
            raise ValueError(f"has an unknown tool group {item!r}{hint}; the groups are {', '.join(TOOL_GROUPS)}, "
                             "or all, or name tools as /tools lists them")
    return tuple(dict.fromkeys(names))


def tools_flag(value: str) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """--tools LIST -> (the groups offered, the exact tools enabled or None). Groups only: offered as
    tool_groups says; a tool name among them makes the list exact (its groups stand for their tools)."""
    items = [item.strip() for item in value.split(",") if item.strip()]
    if all(item == "all" or item in TOOL_GROUPS for item in items):
        return _tool_groups(items), None
    names = tool_names(items)
    return _tool_groups([item for item in items if item in TOOL_GROUPS]), names


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


def _writable_paths(value: Any) -> tuple[str, ...]:
    """Absolute paths or paths from the home directory, e.g. ["~/.m2", "/srv/cache"]."""
    if not isinstance(value, list | tuple) or not all(
            isinstance(v, str) and (v.startswith("/") or v == "~" or v.startswith("~/")) and "\x00" not in v
            for v in value):
        raise ValueError('must be a list of absolute paths or paths starting with ~/, e.g. ["~/.m2", "/srv/cache"]')
    return tuple(dict.fromkeys(value))


def _commands(value: Any) -> tuple[str, ...]:
    """Shell commands, e.g. ["ruff check {files}", "pytest -q"]."""
    if not isinstance(value, list | tuple) or not all(
            isinstance(v, str) and v.strip() and "\x00" not in v for v in value):
        raise ValueError('must be a list of commands, e.g. ["ruff check {files}", "pytest -q"]')
    return tuple(dict.fromkeys(v.strip() for v in value))


def _mcp_servers(value: Any) -> dict[str, Any]:
    from ayder_cli.mcp_servers.server_config import check_servers  # only a config that names servers loads it

    return check_servers(value)


def _lsp(value: Any) -> dict[str, Any]:
    from ayder_cli.lsp.servers import check_lsp  # only a config that names servers loads it

    return check_lsp(value)


SIDE_MODEL_KEYS = ("model", "base_url", "provider")


def _side_model(value: Any) -> dict[str, Any] | None:
    """"qwen3:1.7b" (the main server), {"model": ..., "base_url": ..., "provider": ...} (another), or null."""
    if value is None:
        return None
    if isinstance(value, str):
        value = {"model": value}
    if not isinstance(value, dict) or not isinstance(value.get("model"), str) or not value["model"].strip():
        raise ValueError('must be a model name, or an object like {"model": "qwen3:1.7b", '
                         f'"base_url": "http://127.0.0.1:8081/v1", "provider": "{list(PROVIDERS)[-1]}"}}, or null')
    for key in value:
        if key not in SIDE_MODEL_KEYS:
            close = closest(key, SIDE_MODEL_KEYS)
            raise ValueError(f"has an unknown key {key!r}" + (f" (did you mean {close!r}?)" if close else ""))
    checked = {"model": value["model"].strip()}
    for key, check in (("base_url", _url), ("provider", _text(choices=tuple(PROVIDERS)))):
        if value.get(key) is not None:
            try:
                checked[key] = check(value[key])
            except ValueError as exc:
                raise ValueError(f".{key} {exc}") from None
    return checked


CHECKS: dict[str, Callable[[Any], Any]] = {
    "provider": _text(choices=tuple(PROVIDERS)),
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
    "max_malformed_retries": _number(0, integer=True),
    "max_checkpoints": _number(0, integer=True),
    "compact_at": _number(0.05),
    "auto_compact": _boolean,
    "prompts": _prompt_names,
    "instructions": _file_names,
    "show_thinking": _boolean,
    "native_tools": _text(choices=("auto", "on", "off")),
    "edit_format": _text(choices=EDIT_FORMATS),
    "max_tool_output_chars": _number(1000, integer=True),
    "shell_timeout_s": _number(0.1),
    "tool_timeout_s": _number(0.001),
    "tools": _tool_policy,
    "tool_groups": _tool_groups,
    "session_in_use": _text(choices=("new", "fail")),
    "max_sessions": _number(1, integer=True),
    "secret_env": _env_names,
    "sandbox": _text(choices=SANDBOX_MODES),
    "sandbox_writable": _writable_paths,
    "sandbox_network": _boolean,
    "root": _text(nullable=True),
    "verify": _commands,
    "mcp_servers": _mcp_servers,
    "mcp_schema_share": _number(0, maximum=1),
    "lsp": _lsp,


    "auto_commit": _boolean,
    "side_model": _side_model,
}
assert set(CHECKS) == set(KEYS)


def check_value(source: str, key: str, value: Any) -> Any:
    """Validate one value; the error names where it came from."""
    try:
        return CHECKS[key](value)
    except ValueError as exc:
        # The key itself is never echoed, whatever shape it was written in.
        got = describe_value(value).split(" ", 1)[0] if key == "api_key" else describe_value(value)
        suggestion = f" ({exc.suggestion})" if getattr(exc, "suggestion", None) else ""
        raise ConfigError(f"{source}: \"{key}\" {exc}, got {got}{suggestion}") from None


def unknown_key(source: str, key: str) -> ConfigError:
    close = closest(key, KEYS)
    suggestion = f' (did you mean "{close}"?)' if close else ""
    return ConfigError(
        f'{source}: unknown key "{key}"{suggestion}',
        hint="ayder --help-config lists every key.",
    )

