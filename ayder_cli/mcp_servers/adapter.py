"""The connection to the MCP servers: one background thread owns an asyncio event loop, and each
server is one task on it holding its ClientSession (over stdio or streamable HTTP) open until close().

ayder is synchronous: call() blocks the caller until the server answers or the time limit passes.
The `mcp` SDK is imported here only, when the first server starts: a run without MCP servers never
loads it (nor pydantic, anyio, httpx under it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ayder_cli.errors import ConfigError
from ayder_cli.mcp_servers.server_config import ServerConfig, expand

CLOSE_WAIT_S = 5.0  # the SDK asks a stdio server to end, then terminates its process group


class ServerGone(Exception):
    """The server's process ended or its connection closed: its tools fail from now on."""


@dataclass
class Server:
    """One started server: its session and what it offers, or why it is not there."""

    config: ServerConfig
    tools: list[Any] = field(default_factory=list)  # the SDK's Tool objects, as listed
    session: Any = None
    stop: asyncio.Event | None = None
    task: asyncio.Task | None = None
    gone: str = ""  # why it is not usable ("" while it is)
    instructions: str = ""  # what the server says it is for (its initialize answer), for a deferred server's line


def require_sdk() -> None:
    """A config naming servers without the SDK installed: one clear error before anything runs."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        from ayder_cli.mcp_servers.install_hint import extra_command  # only this error needs it

        raise ConfigError("mcp_servers is set but the mcp package is not installed",
                          hint=f"add the mcp extra: {extra_command('mcp')}")


class McpHub:
    """Starts the servers (in parallel, each within its startup_timeout_s), calls their tools, stops them."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.servers: dict[str, Server] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # --- from the caller's thread

    def start(self, configs: list[ServerConfig], say: Callable[[str], None]) -> None:
        """Start every server; one that fails is said in one line and left out."""
        _load_sdk(configs)  # before any server's clock starts: on a busy machine loading it takes seconds
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="ayder-mcp", daemon=True)
        self._thread.start()
        waits = {}
        for config in configs:
            server = self.servers[config.name] = Server(config)
            waits[config.name] = asyncio.run_coroutine_threadsafe(self._start(server), self._loop)
        for name, wait in waits.items():
            server = self.servers[name]
            try:
                wait.result(server.config.startup_timeout_s + 1.0)  # the task has its own limit
            except Exception as exc:  # any failure to start: said once, the run goes on without it
                server.gone = _reason(exc) or "no answer"
                say(f"MCP server {name} did not start: {server.gone}; its tools are not offered")

    def call(self, name: str, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        """The server's CallToolResult; TimeoutError past `timeout`; ServerGone if it has stopped."""
        server = self.servers[name]
        if server.gone:
            raise ServerGone(server.gone)
        future = asyncio.run_coroutine_threadsafe(server.session.call_tool(tool, arguments), self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None
        except BaseException as exc:
            future.cancel()
            if isinstance(exc, Exception) and _connection_lost(exc, server):
                server.gone = f"it stopped ({_reason(exc) or 'connection closed'})"
                raise ServerGone(server.gone) from None
            raise

    def close(self) -> None:
        """Every server asked to end, its process stopped; nothing started here outlives ayder."""
        if self._loop is None:
            return
        loop, self._loop = self._loop, None
        try:
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(CLOSE_WAIT_S)
        except (Exception, KeyboardInterrupt):
            pass  # what did not end in time is stopped with ayder's other descendants (terminal/signals.py)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    # --- on the loop's thread

    async def _start(self, server: Server) -> None:
        ready = asyncio.get_running_loop().create_future()
        # Its failure may come after the wait gave up: retrieved here, so asyncio logs nothing to the terminal.
        ready.add_done_callback(lambda done: done.cancelled() or done.exception())
        server.stop = asyncio.Event()
        server.task = asyncio.create_task(self._hold(server, ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), server.config.startup_timeout_s)
        except asyncio.TimeoutError:
            server.task.cancel()
            raise TimeoutError(f"no answer within {server.config.startup_timeout_s:g} s "
                               "(startup_timeout_s)") from None

    async def _hold(self, server: Server, ready: asyncio.Future) -> None:
        """The session, open from start to stop (the SDK's contexts must end on the task they began on)."""
        from mcp import ClientSession

        try:
            async with self._transport(server.config) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    started = await session.initialize()
                    server.instructions = getattr(started, "instructions", None) or ""
                    server.tools = list((await session.list_tools()).tools)
                    server.session = session
                    ready.set_result(None)
                    await server.stop.wait()
        except BaseException as exc:
            if not ready.done() and isinstance(exc, Exception):
                ready.set_exception(exc)
            elif not ready.done():
                ready.cancel()
            elif not server.gone and isinstance(exc, Exception):
                server.gone = f"it stopped ({_reason(exc) or 'connection closed'})"
            if not isinstance(exc, Exception):
                raise

    def _transport(self, config: ServerConfig):
        if config.command is not None:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            env = {**self.env, **{key: expand(value, self.env)[0] for key, value in config.env.items()}}
            parameters = StdioServerParameters(command=config.command, args=list(config.args), env=env,
                                               cwd=config.cwd)
            # Its log is not ayder's output: a server that talks on stderr would garble the terminal.
            return stdio_client(parameters, errlog=open(os.devnull, "w"))
        headers = {key: expand(value, self.env)[0] for key, value in config.headers.items()}
        return _http_client(config.url, headers)

    async def _stop_all(self) -> None:
        for server in self.servers.values():
            if server.stop is not None:
                server.stop.set()
        tasks = [server.task for server in self.servers.values() if server.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)


def _load_sdk(configs: list[ServerConfig]) -> None:
    """The SDK's modules the servers need, imported on the caller's thread. Imported on the loop's thread
    instead, they held the loop (and every server's startup_timeout_s ran out) while they loaded."""
    import mcp  # noqa: F401

    if any(config.command is not None for config in configs):
        import mcp.client.stdio  # noqa: F401
    if any(config.command is None for config in configs):
        import mcp.client.streamable_http  # noqa: F401


def _http_client(url: str, headers: dict[str, str]):
    """The streamable HTTP transport, as the SDK installed names it (1.x or 2.x)."""
    from mcp.client import streamable_http

    if hasattr(streamable_http, "streamablehttp_client"):  # mcp 1.x
        return streamable_http.streamablehttp_client(url, headers=headers)
    client_module = streamable_http.httpx2 if hasattr(streamable_http, "httpx2") else streamable_http.httpx
    return streamable_http.streamable_http_client(url, http_client=client_module.AsyncClient(headers=headers))


def _connection_lost(exc: Exception, server: Server) -> bool:
    """Whether a failed call means the server is gone (its process ended), not that one call failed."""
    if server.gone or (server.task is not None and server.task.done()):
        return True
    text = str(exc).lower()
    return "connection closed" in text or type(exc).__name__ in ("ClosedResourceError", "BrokenResourceError",
                                                                  "EndOfStream")


def _reason(exc: BaseException) -> str:
    """One line for the user: the exception's own message, or the first of a group's."""
    while getattr(exc, "exceptions", None):  # an exception group (anyio's task groups raise them)
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text and not isinstance(exc, TimeoutError) else text or type(exc).__name__
