"""MCP servers as tools: the config value, the connection to the servers (adapter.py, the only module that imports the
`mcp` SDK, and only once a server is configured) and their tools as ToolSpecs of the registry, so every call goes
through the ToolExecutor like a built-in one.

May import: the leaves, tools.
(The layers, bottom to top: tests/project/test_house.py.)

    adapter.py           McpHub: one thread owning an asyncio loop, a ClientSession per server (stdio or HTTP), a
                         blocking call() with a time limit, close(); the only module that imports the SDK
    schema_room.py       keeping their schemas within the window: the estimate, find_tools, a line per server
    server_config.py     the mcp_servers value checked; ${VAR} in env and headers, and the secrets they give
    tools.py             SERVER__TOOL names, results as ToolResults, the registry that starts the servers when
                         listed
"""
