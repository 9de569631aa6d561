"""A small MCP server over stdio for the tests: echo, a slow tool, one that fails, one that ends the
process mid-call. It appends its pid to $TOY_PID_FILE, so a test can check it is gone after the run.
Built on the official SDK, for the tests of interoperation with it and over HTTP; the other tests use
toy_stdlib_server.py, the same tools on the standard library, which starts ten times faster."""

from __future__ import annotations

import os
import time

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

server = Server("toy")


@server.tool()
def echo(text: str) -> str:
    """Say the text back, marked."""
    return f"toy says: {text}"


@server.tool()
def slow(seconds: float) -> str:
    """Wait that long, then answer."""
    if os.environ.get("TOY_SLOW_MARK"):
        with open(os.environ["TOY_SLOW_MARK"], "w", encoding="utf-8") as file:
            file.write("waiting\n")
    time.sleep(seconds)
    return "slow done"


@server.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("the toy tool failed on purpose")


@server.tool()
def crash() -> str:
    """Ends the server's process in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("TOY_PID_FILE"):
        with open(os.environ["TOY_PID_FILE"], "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    if os.environ.get("TOY_HANG"):
        time.sleep(60)  # never answers the handshake: a server that does not start
    server.run()
