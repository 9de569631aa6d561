"""Slash commands, by topic; each module registers its own with @command (registry.py).

Only what the REPL needs before its first prompt is imported at the top of each
module; what one command alone needs is imported inside it.
"""

from ayder_cli.repl.commands import (  # noqa: F401 -- importing them registers their commands
    checkpoint_commands,
    info_commands,
    mcp_commands,
    model_commands,
    session_commands,
    skill_commands,
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
