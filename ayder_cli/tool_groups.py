"""The tool groups, named once: setup.config_checks checks tool_groups against them, each ToolSpec names its own.

Core is always offered; the others when the config (tool_groups), --tools or a mode that
needs them (--implement: tasks) asks for them, so the first request stays small. A leaf
beside tools/, not in it: the config reads it before the REPL's first prompt, and the tools
package is imported only after that prompt.
"""

from __future__ import annotations

CORE = "core"

GROUPS: dict[str, str] = {  # name -> the tools in it, in words; in the order they are offered
    CORE: "read, list and search files, write and edit them, run a command (always offered)",
    "files": "project tree, file info, insert and delete lines",
    "processes": "background commands: start, read output, list, stop",
    "tasks": "task files in .ayder/tasks/ (offered by --implement, /implement and /plan)",
    "memory": "notes kept across sessions in .ayder/memory/",
}

# Every built-in tool by name -> its group, so names (tools.enabled, --tools) are checked before the
# tools package is imported; tests/tools/test_tools_enabled.py keeps it equal to each ToolSpec's group.
TOOLS: dict[str, str] = {
    "read_file": CORE, "list_files": CORE, "search_codebase": CORE, "write_file": CORE, "replace_string": CORE,
    "replace_lines": CORE, "run_shell_command": CORE,
    "get_project_structure": "files", "get_file_info": "files", "insert_line": "files", "delete_line": "files",
    "run_background_process": "processes", "get_background_output": "processes",
    "list_background_processes": "processes", "kill_background_process": "processes",
    "create_task": "tasks", "list_tasks": "tasks", "show_task": "tasks", "update_task_status": "tasks",
    "save_memory": "memory", "load_memory": "memory",
}
MCP_SEPARATOR = "__"  # an MCP server's tool is SERVER__TOOL (mcp_servers/tools.py)
# Offered while MCP tools are deferred (mcp_servers/schema_room.py); it finds only enabled ones, so an allowlist
# need not name it.
FIND_TOOLS = "find_tools"
# Offered once a skill is found (skills/tool.py); it reads only the skills' text, so an allowlist need not name it.
SKILL = "skill"


def tools_of(groups) -> list[str]:
    """The built-in tools of these groups, in the order they are offered."""
    return [name for name, group in TOOLS.items() if group in groups]
