"""A project's .mcp.json (the file other coding agents read): its servers, once you approve them.

    {"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}}          # "type": "stdio"
                    "NAME": {"type": "http", "url": "https://...", "headers": {...}}}}

Each becomes an `mcp_servers` entry (permission x, ${VAR} in env and headers as in your config);
a server of the same name in your config wins. A cloned project's file starts programs, so its
servers start only when you approved this very content at a terminal (remembered per real path and
sha256, in the state directory) or give --mcp-trust for one run. Loaded only when the file exists.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable, Mapping

from ayder_cli.mcp_servers.server_config import VARIABLE, servers_of
from ayder_cli.config.schema import Config
from ayder_cli.config.project_trust import NOT_ASKED, approval
from ayder_cli.storage.trusted_projects import TrustedProjects, trusted_mcp_servers_path

MAX_FILE_BYTES = 1024 * 1024
KEYS = ("type", "command", "args", "env", "url", "headers")
TYPES = {"stdio": "command", "http": "url", "streamable-http": "url"}

# (the project's real root, the file, {name: its command line or URL}) -> approved or not.
Ask = Callable[[Path, Path, dict[str, str]], bool]


class McpJsonError(ValueError):
    """What is wrong with the file, in one line."""


def read_servers(path: Path) -> tuple[bytes, dict[str, dict[str, Any]]]:
    """The file's bytes and its servers as mcp_servers entries; McpJsonError otherwise."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise McpJsonError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise McpJsonError(f"{path} is over {MAX_FILE_BYTES // 1024} KiB")
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise McpJsonError(f"{path} is not valid JSON: {exc}") from None
    servers = parsed.get("mcpServers") if isinstance(parsed, dict) else None
    if not isinstance(servers, dict):
        raise McpJsonError(f'{path}: expected {{"mcpServers": {{NAME: {{command, args, env}} | {{url, headers}}}}}}')
    entries = {name: _entry(name, entry, path) for name, entry in servers.items()}
    try:
        servers_of(entries)  # the same checks as your config's mcp_servers
    except ValueError as exc:
        raise McpJsonError(f"{path}: {exc}") from None
    return data, entries


def _entry(name: str, entry: Any, path: Path) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise McpJsonError(f"{path}: server {name!r} must be an object")
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise McpJsonError(f"{path}: server {name!r}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind not in TYPES:
        raise McpJsonError(f"{path}: server {name!r}: type {kind!r} is not supported (stdio or http)")
    if TYPES[kind] not in entry:
        raise McpJsonError(f"{path}: server {name!r}: type {kind!r} needs {TYPES[kind]!r}")
    return {key: value for key, value in entry.items() if key != "type"}


def shown(entry: Mapping[str, Any]) -> str:
    """The command line or URL the question shows, and which of your variables it is given."""
    if "url" in entry:
        text = str(entry["url"])
    else:
        text = " ".join(json.dumps(part) if (not part or any(c.isspace() or c in "\"'" for c in part)) else part
                        for part in (entry["command"], *entry.get("args", ())))
    given = sorted({name for value in (*entry.get("env", {}).values(), *entry.get("headers", {}).values())
                    for name in VARIABLE.findall(value)})
    return text + (f"  (given your ${', $'.join(given)})" if given else "")


def approved(root: Path, path: Path, data: bytes, servers: dict[str, dict[str, Any]], *, env: Mapping[str, str],
             ask: Ask | None, flag: bool, warn: Callable[[str], None]) -> bool:
    """Whether the servers may start. --mcp-trust approves for this run and stores nothing; only a yes
    at the terminal is remembered, for this content of the file."""
    store = TrustedProjects(trusted_mcp_servers_path(env))
    shown_servers = {name: shown(entry) for name, entry in servers.items()}
    started, why = approval(store, root, path, data, shown_servers, ask=ask, flag=flag, warn=warn)
    if not started:
        how = "approve them at a terminal, or give --mcp-trust for one run"
        warn(f"MCP servers of {path} not started ({', '.join(servers)}): {how if why == NOT_ASKED else why}")
    return started


def with_project_servers(config: Config, servers: dict[str, dict[str, Any]]) -> Config:
    """The config with the project's servers added; a name your config has keeps yours."""
    return dataclasses.replace(config, mcp_servers={**servers, **config.mcp_servers})
