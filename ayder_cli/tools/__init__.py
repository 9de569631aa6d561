"""The tools the model can call, and the registry that runs them."""

from __future__ import annotations

from ayder_cli.tools.base import ToolContext, ToolError, ToolRegistry, ToolResult, ToolSpec

__all__ = ["GROUPS", "ToolContext", "ToolError", "ToolRegistry", "ToolResult", "ToolSpec", "default_registry"]

# Every tool belongs to one group. Core is always offered; the others when the config
# (tool_groups), --tools or a mode that needs them (--implement: tasks) asks for them,
# so the first request stays small (DESIGN: prompt budget). config.TOOL_GROUPS holds the same names.
GROUPS = {
    "core": "read, list and search files, write and edit them, run a command (always offered)",
    "files": "project tree, file info, insert and delete lines",
    "processes": "background commands: start, read output, list, stop",
    "tasks": "task files in .ayder/tasks/ (offered by --implement, /implement and /plan)",
    "memory": "notes kept across sessions in .ayder/memory/",
}


def default_registry() -> ToolRegistry:
    """Every tool, in the order they are offered: reads, writes, commands, tasks, memory."""
    # Imported here, not above: the task tools use ayder_cli.storage.tasks, which writes through this package.
    from ayder_cli.tools.edit import EDIT_TOOLS
    from ayder_cli.tools.files import LIST_FILES, READ_FILE
    from ayder_cli.tools.memory_tools import MEMORY_TOOLS
    from ayder_cli.tools.search import SEARCH_TOOLS
    from ayder_cli.tools.shell import SHELL_TOOLS
    from ayder_cli.tools.task_tools import TASK_TOOLS

    return ToolRegistry([READ_FILE, LIST_FILES, *SEARCH_TOOLS, *EDIT_TOOLS, *SHELL_TOOLS, *TASK_TOOLS,
                         *MEMORY_TOOLS])
