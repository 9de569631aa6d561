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
