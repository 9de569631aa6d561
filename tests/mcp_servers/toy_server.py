"""A small MCP server over stdio for the tests, built on the official SDK: the tools of toy_tools.py.
For the test of interoperation with the SDK's servers; the other tests use toy_stdlib_server.py, the
same tools on the standard library, which starts ten times faster (and support/http_mcp.py over HTTP)."""

from __future__ import annotations

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

from toy_tools import start, with_tools

server = with_tools(Server("toy"))

if __name__ == "__main__":
    start(server)
