"""MCP servers as tools: the config value (server_config.py), the connection to the servers (adapter.py, the
only module that imports the `mcp` SDK, and only once a server is configured) and their tools as
ToolSpecs of the registry (tools.py), so every call goes through the ToolExecutor like a built-in one."""
