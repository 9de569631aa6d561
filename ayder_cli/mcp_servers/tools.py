"""The MCP servers' tools as ToolSpecs: a registry that holds the built-in tools and, from the first
time the tools are listed for a request, the servers' too (started then, not before the prompt).

Each MCP tool is named SERVER__TOOL and runs through the ToolExecutor like a built-in one: its
arguments are checked against the server's input schema, it needs the server's permission ("x"
unless the user's config says "r"; a server's own readOnlyHint never lowers it), it is confirmed
showing server, tool and arguments, it has a time limit, and its output is capped.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from typing import Any, Callable, Mapping

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.mcp_servers import schema_room
from ayder_cli.mcp_servers.server_config import ServerConfig
from ayder_cli.spelling import closest
from ayder_cli.tool_groups import MCP_SEPARATOR
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.wording import counted

MAX_NAME = 64  # what OpenAI-compatible servers accept as a function name
MAX_DESCRIPTION = 1024  # sent with every request: a server's long prose is cut
UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def full_name(server: str, tool: str) -> str:
    """SERVER__TOOL in [A-Za-z0-9_-]: as the config's tools.enabled / tools.disabled name it. No two
    servers build the same one: a server's name holds no "__" and does not end in "_" (server_config.py)."""
    return UNSAFE.sub("_", f"{server}{MCP_SEPARATOR}{tool}")


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """full_name() at most 64 characters; a short hash of the original when the name is too long or
    another tool of the server already has it (`a.b` and `a_b`)."""
    name = full_name(server, tool)
    if len(name) <= MAX_NAME and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}{MCP_SEPARATOR}{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def result_text(result: Any) -> ToolResult:
    """An MCP CallToolResult as a ToolResult: text parts joined, anything else one line each."""
    parts = []
    for item in getattr(result, "content", None) or ():
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind in ("image", "audio"):
            size = len(getattr(item, "data", "") or "") * 3 // 4
            parts.append(f"[{kind}: {getattr(item, 'mimeType', None) or getattr(item, 'mime_type', '?')}, "
                         f"{size:,} bytes, not shown]")
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource: {resource.uri}, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {getattr(item, 'uri', '?')}]")
        else:
            parts.append(f"[{kind or 'unknown'} content, not shown]")
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1))
    text = "\n".join(parts)
    if getattr(result, "is_error", None) or getattr(result, "isError", False):
        return ToolResult.failure(text or "the tool reported an error and said nothing more")
    return ToolResult(ok=True, output=text, summary=f"{len(text):,} characters")


class McpTools:
    """The servers of the config, started at the first listing of the tools, and their ToolSpecs."""

    def __init__(self, servers: Mapping[str, ServerConfig], hub_factory: Callable[[], Any],
                 say: Callable[[str], None], log: Callable[[str], None],
                 window: Callable[[], int | None] = lambda: None, share: float = 0.10,
                 allowed: Callable[[ToolSpec], bool] = lambda spec: True, named: tuple[str, ...] = ()) -> None:
        self.configs = servers
        self.window = window  # the served context window, known by the first request
        self.share = share  # mcp_schema_share: above it, the schemas wait behind find_tools
        self.hub_factory = hub_factory  # adapter.McpHub(env): imported at the first start
        self.say = say  # one line to the user (a server that failed or stopped)
        self.log = log  # -v
        self.hub: Any = None
        self.allowed = allowed  # the tools policy (tools.enabled, tools.disabled): the others are never listed
        self.specs: list[ToolSpec] = []
        self.held_back: list[ToolSpec] = []  # not allowed: a call to one is refused as not enabled
        self.named = named  # the MCP tools tools.enabled names: one no server has is said (a typo enables nothing)
        self._said_gone: set[str] = set()
        self.deferred = False  # the schemas are not sent; find_tools finds them
        self.found: set[str] = set()
        self._names: dict[str, set[str]] = {}  # server -> its tools' names  # deferred tools found (or called): offered from then on
        self.tokens = 0  # what all the schemas would add to a request
        self.find_tools = schema_room.find_tools_spec(self.search)

    def ensure_started(self, taken: set[str]) -> None:
        if self.hub is not None:
            return
        self.hub = self.hub_factory()
        try:
            self.hub.start(list(self.configs.values()), self.say)
        except BaseException:  # Ctrl-C while they start: those started are stopped, the next request tries again
            hub, self.hub = self.hub, None
            hub.close()
            raise
        names, listed = set(taken), set()
        for server in self.hub.servers.values():
            if server.gone:
                continue
            for tool in server.tools:
                if server.config.offers(tool.name):
                    spec = self._spec(server.config, tool, tool_name(server.config.name, tool.name, names))
                    names.add(spec.name)
                    # tools.disabled (and tools.enabled) match the name as written, cut and hashed or not
                    spec = replace(spec, config_names=(full_name(server.config.name, tool.name),))
                    listed |= spec.names()
                    if not self.allowed(spec):
                        self.held_back.append(spec)
                        continue
                    self._names.setdefault(server.config.name, set()).add(spec.name)
                    self.specs.append(spec)
        self._say_unmatched(listed)
        running = sum(1 for server in self.hub.servers.values() if not server.gone)
        self.log(f"MCP: {running} of {len(self.configs)} servers running, {len(self.specs)} tools")
        self.tokens = schema_room.schema_tokens(self.specs)
        window = self.window()
        self.deferred = bool(self.specs) and bool(window) and self.tokens > self.share * window
        self.say(self.status() + (f" (over {self.share:.0%}: found through find_tools)" if self.deferred else ""))

    def _say_unmatched(self, listed: set[str]) -> None:
        """Each name of the allowlist that no running server lists, with the nearest that one does."""
        gone = {UNSAFE.sub("_", name) for name, server in self.hub.servers.items() if server.gone}
        for name in self.named:
            if name not in listed and name.split(MCP_SEPARATOR, 1)[0] not in gone:
                close = closest(name, listed)
                self.say(f"tools.enabled names {name!r}, which no MCP server has"
                         + (f" (did you mean {close!r}?)" if close else ""))

    def status(self) -> str:
        running = sum(1 for server in self.hub.servers.values() if not server.gone) if self.hub else 0
        return schema_room.status_line(running, len(self.specs), self.tokens, self.window())

    def report(self) -> list[str]:
        """/mcp and --doctor: the status, each server's state, each tool's cost and whether it is sent."""
        if self.hub is None:
            count = len(self.configs)
            lines = [f"MCP: {counted(count, 'server')} configured, started at the first request"]
        else:
            lines = [self.status() + (" (deferred: found through find_tools)" if self.deferred else "")]
        servers = self.hub.servers if self.hub is not None else {}
        for name in self.configs:
            server = servers.get(name)
            state = ("not started yet (at the first request)" if server is None
                     else f"failed: {server.gone}" if server.gone else "started")
            lines.append(f"  {name}: {state}")
            for spec in self.specs:
                if spec.name in self._names.get(name, ()):
                    offer = ("found, sent" if spec.name in self.found else "deferred") if self.deferred else "sent"
                    lines.append(f"    {spec.name}  ~{schema_room.schema_tokens([spec]):,} tokens  {offer}")
        if self.held_back:
            lines.append(f"  not enabled (tools.enabled, tools.disabled): {', '.join(s.name for s in self.held_back)}")
        return lines

    def offered(self) -> list[ToolSpec]:
        """The specs sent with a request: all of them, or, when deferred, find_tools and those found."""
        if not self.deferred:
            return self.specs
        return [self.find_tools, *(spec for spec in self.specs if spec.name in self.found)]

    def search(self, query: str) -> list[ToolSpec]:
        """find_tools: the deferred specs matching the query, offered from the next request on."""
        hits = schema_room.matching(self.specs, query)
        self.found.update(spec.name for spec in hits)
        return hits

    def prompt_note(self) -> str:
        """For the system prompt when deferred: one line per running server, what it is for."""
        if not self.deferred:
            return ""
        lines = []
        for server in self.hub.servers.values():
            mine = [spec for spec in self.specs if spec.name in self._names.get(server.config.name, ())]
            if server.gone or not mine:
                continue
            purpose = server.instructions or "; ".join(
                " ".join(str(tool.description or tool.name).split()[:6]) for tool in server.tools[:3])
            lines.append(schema_room.server_line(server.config.name, purpose, len(mine)))
        return schema_room.deferred_note(lines)

    def registry(self, builtin: ToolRegistry) -> ToolRegistry:
        """The built-in tools and, once listed, these."""
        return WithMcpTools(builtin, self)

    def close(self) -> None:
        if self.hub is not None:
            self.hub.close()

    def _spec(self, config: ServerConfig, tool: Any, name: str) -> ToolSpec:
        schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
        schema = {"type": "object", "properties": {}, **schema}
        description = f"[MCP server {config.name}] {tool.description or tool.name}"[:MAX_DESCRIPTION]
        return ToolSpec(name=name, description=description, parameters=schema, permission=config.permission,
                        run=self._runner(config, tool.name))

    def _runner(self, config: ServerConfig, tool: str) -> Callable[[ToolContext, dict[str, Any]], ToolResult]:
        from ayder_cli.mcp_servers.adapter import ServerGone

        def run(context: ToolContext, arguments: dict[str, Any]) -> ToolResult:
            limit = config.tool_timeout_s or context.tool_timeout_s
            try:
                return result_text(self.hub.call(config.name, tool, arguments, limit))
            except TimeoutError:
                raise ToolError(f"MCP server {config.name} did not answer {tool} within {limit:g} s "
                                "(tool_timeout_s)") from None
            except ServerGone as exc:
                if config.name not in self._said_gone:
                    self._said_gone.add(config.name)
                    self.say(f"MCP server {config.name}: {exc}; its tools fail from now on")
                raise ToolError(f"MCP server {config.name} is not running ({exc}); do not call its tools "
                                "again") from None

        return run


class WithMcpTools(ToolRegistry):
    """The built-in tools, then the MCP servers' (listing them starts the servers once)."""

    def __init__(self, builtin: ToolRegistry, mcp: McpTools) -> None:
        super().__init__(builtin.specs())
        self.mcp = mcp

    def specs(self) -> list[ToolSpec]:
        """The offered ones: when deferred, find_tools and the MCP tools found, not all of them."""
        self.mcp.ensure_started(set(self._specs))
        return [*self._specs.values(), *self.mcp.offered()]

    def callable_specs(self) -> list[ToolSpec]:
        offered = self.specs()
        return [*offered, *(spec for spec in self.mcp.specs if spec not in offered)]

    def prompt_note(self) -> str:
        return self.mcp.prompt_note()

    def names(self) -> list[str]:
        return [spec.name for spec in self.specs()]

    def get(self, name: str) -> ToolSpec | None:
        found = self._specs.get(name)
        if found is not None:
            return found
        self.mcp.ensure_started(set(self._specs))
        if name == schema_room.FIND_TOOLS and self.mcp.deferred:
            return self.mcp.find_tools
        # Every MCP tool can be called by its name, offered or not yet found (then offered from now on);
        # one held back is found so that its refusal says why.
        spec = next((spec for spec in [*self.mcp.specs, *self.mcp.held_back] if spec.name == name), None)
        if spec in self.mcp.specs and self.mcp.deferred:
            self.mcp.found.add(spec.name)
        return spec
