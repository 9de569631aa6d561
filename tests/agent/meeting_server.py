"""An MCP server over stdio for the side-by-side test: `meet` answers how many calls were inside it
at once. Each call waits (at most $MEET_WAIT_S seconds) for MEET_AT calls to be inside together, so calls that
ayder runs side by side answer MEET_AT, and calls run one by one answer 1."""

from __future__ import annotations

import asyncio
import os

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

MEET_AT = 4
server = Server("meeting")
inside = {"now": 0, "most": 0}
all_in = asyncio.Event()


@server.tool()
async def meet(n: int) -> str:
    """Wait for the other callers; say how many were inside at once."""
    inside["now"] += 1
    inside["most"] = max(inside["most"], inside["now"])
    if inside["now"] >= MEET_AT:
        all_in.set()
    try:
        await asyncio.wait_for(all_in.wait(), float(os.environ.get("MEET_WAIT_S", "10")))
    except asyncio.TimeoutError:
        pass
    inside["now"] -= 1
    return f"call {n}: {inside['most']} inside at once"


if __name__ == "__main__":
    server.run()
