"""The tools the model can call, and the pipeline every call passes (executor.py: normalize, validate, policy,
permission, confirm, execute). default_registry() below: every tool, in order.

May import: the leaves, storage, command_policy, matching, processes.
(The layers, bottom to top: tests/project/test_house.py.)

    background.py        background processes and their four tools
    big_file_search.py   the Python search of a file over 8 MB, a line at a time
    deadline.py          the time limit of one call, for the tools that walk
    edit.py              write_file, replace_string, insert_line, delete_line, replace_lines
    edit_compiles.py     a forgiving edit that would break a Python file that compiled is refused
    edit_formats.py      which write tools each edit format offers
    executor.py          ToolExecutor: normalize, validate, policy, permission, confirm, execute
    file_info.py         get_file_info
    files.py             read_file, list_files
    git_command.py       the git ayder runs itself: hooks, fsmonitor, filters, submodules, remotes, pager and
                         prompts off, a deadline
    gitignore.py         .gitignore rules (through pathspec) and a tool's glob
    leftovers.py         temp files of killed writes, removed at the next start
    line_matches.py      the lines of one file a regex matches
    long_lines.py        lines read with a cap: of a huge line only its start is held, the rest counted
    memory_tools.py      save_memory, load_memory (the notes)
    ripgrep.py           search_codebase's ripgrep backend
    search.py            search_codebase and its Python backend; search_query.py: what a search asks for
    search_query.py      What one search_codebase call asks for (a Query), read alike by its two backends: the
                         Python search (search.py) and ripgrep (ripgrep.py).
    seen_lines.py        SeenLines: per file, what the model saw of each line this session (replace_lines' check)
    shell.py             run_shell_command (each chunk read also goes to ToolContext.watch)
    spec.py              ToolSpec, ToolContext (root, clock, search backend, ...), ToolRegistry; OutputWatch (a
                         command's output as it is read: the terminal passes one in, tools/ never imports it)
    task_tools.py        create_task, list_tasks, show_task, update_task_status
    tree.py              get_project_structure
    validate.py          arguments checked against the schema; COMMON_ALIASES, the one alias table
    walk.py              the project walk that honours .gitignore
"""

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
