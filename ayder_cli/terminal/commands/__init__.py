"""Slash commands, by topic; each module registers its own with @command (base.py).

Only what the REPL needs before its first prompt is imported at the top of each
module; what one command alone needs is imported inside it.
"""

from ayder_cli.terminal.commands import checkpoint, info, mcp, model, session, tasks, tools  # noqa: F401 -- registers them
from ayder_cli.terminal.commands.base import (
                                              COMMANDS,
                                              CommandContext,
                                              CommandResult,
                                              ModeCommands,
                                              command_help,
                                              run_command,
)

__all__ = ["COMMANDS", "CommandContext", "CommandResult", "ModeCommands", "command_help", "run_command"]
