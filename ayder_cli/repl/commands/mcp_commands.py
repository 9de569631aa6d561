"""/mcp: the MCP servers of the config, whether they started, and what their tools cost of the window."""

from __future__ import annotations

from ayder_cli.repl.commands.registry import CommandContext, command


@command("mcp", help="the MCP servers (started now if not yet): their tools with their token cost, which are deferred")
def _mcp(context: CommandContext, args: str) -> None:
    # mcp_servers/tools.WithMcpTools, when servers are named
    mcp = getattr(context.session.executor.registry, "mcp", None)
    if mcp is None:
        context.console.info("no MCP servers configured (mcp_servers; see the README's MCP servers)")
        return
    started = mcp.hub is not None
    context.session.executor.offered()  # before the first request too: a server just added is checked now
    lines = mcp.report()
    for line in lines if started else lines[1:]:  # starting them said the first line
        context.console.info(line)
