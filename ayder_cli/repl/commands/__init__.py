"""Slash commands, by topic; each module registers its own with @command (registry.py).

Only what the REPL needs before its first prompt is imported at the top of each
module; what one command alone needs is imported inside it.

May import: the leaves, llm, storage, tools, config, agent, terminal, session.
(The layers, bottom to top: tests/project/test_house.py.)

    checkpoint_commands.py /checkpoint (show, clear; /memory is its old name), /compact
    info_commands.py     /help /exit /verbose /thinking /usage /status /doctor /init
    mcp_commands.py      /mcp
    model_commands.py    /model /provider /system /reload /prompts
    registry.py          the registry, the decorator, CommandContext, run_command, /help's table
    session_commands.py  /clear (/reset) /sessions /save /undo /diff
    task_commands.py     /tasks /plan /implement /implement-all
    tool_commands.py     /tools /permissions
"""

from ayder_cli.repl.commands import (  # noqa: F401 -- importing them registers their commands
    checkpoint_commands,
    info_commands,
    mcp_commands,
    model_commands,
    session_commands,
    task_commands,
    tool_commands,
)
from ayder_cli.repl.commands.registry import (
    COMMANDS,
    CommandContext,
    CommandResult,
    ModeCommands,
    command_help,
    run_command,
)

__all__ = ["COMMANDS", "CommandContext", "CommandResult", "ModeCommands", "command_help", "run_command"]
