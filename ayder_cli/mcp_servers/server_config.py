"""The `mcp_servers` config value, checked: each server named, started by a command or reached at a URL.

    {"NAME": {"command": "...", "args": [...], "env": {...}, "cwd": "..."}          # stdio
     "NAME": {"url": "https://...", "headers": {...}},                              # streamable HTTP
     with any of: enabled_tools, disabled_tools, permission ("x" or "r"), startup_timeout_s, tool_timeout_s}

`env` and `headers` values may be "${VAR}", taken from ayder's environment when the server starts;
those values are secrets (masked like the API key).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

KEYS = ("command", "args", "env", "cwd", "url", "headers", "enabled_tools", "disabled_tools", "permission",
        "startup_timeout_s", "tool_timeout_s")
NAME = re.compile(r"^[A-Za-z0-9_-]+$")
# SERVER__TOOL is split at its first "__": a server name holding "__" or ending in "_" would let two
# servers build the same name (server a's tool b__echo and server a__b's echo).
AMBIGUOUS = re.compile(r"__|_$")
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
DEFAULT_STARTUP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ServerConfig:
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # values may hold ${VAR}
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)  # values may hold ${VAR}
    enabled_tools: tuple[str, ...] | None = None  # None: every tool the server lists
    disabled_tools: tuple[str, ...] = ()
    permission: str = "x"  # what its calls need: a server's own readOnlyHint never lowers it
    startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S
    tool_timeout_s: float | None = None  # None: the config's tool_timeout_s

    def offers(self, tool: str) -> bool:
        if tool in self.disabled_tools:
            return False
        return self.enabled_tools is None or tool in self.enabled_tools


def expand(value: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """"${VAR}" replaced by the variable's value (empty when unset); the values used, to be masked."""
    used: list[str] = []

    def one(match: re.Match) -> str:
        found = env.get(match.group(1), "")
        used.append(found)
        return found

    return VARIABLE.sub(one, value), used


def secrets_of(servers: Mapping[str, ServerConfig], env: Mapping[str, str]) -> list[str]:
    """Every value a ${VAR} of an env or headers entry takes: masked in all ayder prints and saves."""
    values: list[str] = []
    for server in servers.values():
        for text in (*server.env.values(), *server.headers.values()):
            values += expand(text, env)[1]
    return values


def check_servers(value: Any) -> dict[str, Any]:
    """The config's mcp_servers object, checked and kept as written (it is shown as JSON when a project
    asks for trust); ValueError(what is wrong) otherwise."""
    servers_of(value)
    return dict(value)


def servers_of(value: Any) -> dict[str, ServerConfig]:
    """The mcp_servers object as ServerConfigs; ValueError(what is wrong) otherwise."""
    if not isinstance(value, dict):
        raise ValueError("must be an object of server names to {command, args, env, cwd} or {url, headers}")
    return {name: _server(name, entry) for name, entry in value.items()}


def _server(name: str, entry: Any) -> ServerConfig:
    where = f"server {name!r}"
    if not NAME.match(name):
        raise ValueError(f"has {where}: a name is letters, digits, _ and - only")
    if AMBIGUOUS.search(name):
        raise ValueError(f"has {where}: a name may not hold \"__\" nor end in \"_\" "
                         "(\"__\" separates a server's name from its tools' names)")
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be an object")
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    if ("command" in entry) == ("url" in entry):
        raise ValueError(f"{where} needs exactly one of \"command\" (stdio) or \"url\" (streamable HTTP)")
    permission = entry.get("permission", "x")
    if permission not in ("r", "x"):
        raise ValueError(f"{where}: \"permission\" must be \"x\" or \"r\"")
    enabled = entry.get("enabled_tools")
    return ServerConfig(
        name=name,
        command=_text(where, "command", entry.get("command"), nullable=True),
        args=_texts(where, "args", entry.get("args", [])),
        env=_table(where, "env", entry.get("env", {})),
        cwd=_text(where, "cwd", entry.get("cwd"), nullable=True),
        url=_url(where, entry.get("url")),
        headers=_table(where, "headers", entry.get("headers", {})),
        enabled_tools=None if enabled is None else _texts(where, "enabled_tools", enabled),
        disabled_tools=_texts(where, "disabled_tools", entry.get("disabled_tools", [])),
        permission=permission,
        startup_timeout_s=_seconds(where, "startup_timeout_s", entry.get("startup_timeout_s",
                                                                         DEFAULT_STARTUP_TIMEOUT_S)),
        tool_timeout_s=(None if entry.get("tool_timeout_s") is None
                        else _seconds(where, "tool_timeout_s", entry["tool_timeout_s"])),
    )


def _text(where: str, key: str, value: Any, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key!r} must be a non-empty string")
    return value


def _texts(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where}: {key!r} must be a list of strings")
    return tuple(value)


def _table(where: str, key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ValueError(f"{where}: {key!r} must be an object of strings")
    return dict(value)


def _url(where: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise ValueError(f"{where}: \"url\" must start with http:// or https://")
    return value


def _seconds(where: str, key: str, value: Any) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if not ok:
        raise ValueError(f"{where}: {key!r} must be a number of seconds > 0")
    return float(value)
