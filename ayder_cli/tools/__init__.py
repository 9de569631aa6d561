"""The tools the model can call, and the registry that runs them."""

from __future__ import annotations

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.tool_groups import GROUPS
from ayder_cli.tools.background import BACKGROUND_TOOLS
from ayder_cli.tools.spec import ToolContext, ToolRegistry, ToolSpec
from ayder_cli.tools.edit import EDIT_TOOLS
from ayder_cli.tools.file_info import GET_FILE_INFO
from ayder_cli.tools.files import LIST_FILES, READ_FILE
from ayder_cli.tools.memory_tools import MEMORY_TOOLS
from ayder_cli.tools.search import SEARCH_CODEBASE
from ayder_cli.tools.shell import RUN_SHELL_COMMAND
from ayder_cli.tools.task_tools import TASK_TOOLS
from ayder_cli.tools.tree import GET_PROJECT_STRUCTURE

__all__ = ["GROUPS", "ToolContext", "ToolError", "ToolRegistry", "ToolResult", "ToolSpec", "default_registry"]


def default_registry() -> ToolRegistry:
    """Every tool, in the order they are offered: reads, writes, commands, tasks, memory."""
    return ToolRegistry([READ_FILE, LIST_FILES, SEARCH_CODEBASE, GET_PROJECT_STRUCTURE, GET_FILE_INFO, *EDIT_TOOLS,
                         RUN_SHELL_COMMAND, *BACKGROUND_TOOLS, *TASK_TOOLS, *MEMORY_TOOLS])
