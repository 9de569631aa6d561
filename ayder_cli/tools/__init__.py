"""The tools the model can call, and the registry that runs them."""

from __future__ import annotations

from ayder_cli.tools.base import ToolContext, ToolError, ToolRegistry, ToolResult, ToolSpec

__all__ = ["ToolContext", "ToolError", "ToolRegistry", "ToolResult", "ToolSpec", "default_registry"]


def default_registry() -> ToolRegistry:
    """The tools offered to the model, in the order they are offered: reads, writes, commands, tasks."""
    # Imported here, not above: the task tools use ayder_cli.tasks, which writes through this package.
    from ayder_cli.tools.edit import EDIT_TOOLS
    from ayder_cli.tools.files import LIST_FILES, READ_FILE
    from ayder_cli.tools.memory_tools import MEMORY_TOOLS
    from ayder_cli.tools.search import SEARCH_TOOLS
    from ayder_cli.tools.shell import SHELL_TOOLS
    from ayder_cli.tools.task_tools import TASK_TOOLS

    return ToolRegistry([READ_FILE, LIST_FILES, *SEARCH_TOOLS, *EDIT_TOOLS, *SHELL_TOOLS, *TASK_TOOLS,
                         *MEMORY_TOOLS])
