"""The slash-command registry, filled by the @command decorator, and what every handler is given.

A handler gets a CommandContext and the text after the command name, prints
through context.console (stderr: stdout is for the model's answer only) and
returns a CommandResult, or None for OK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ayder_cli.errors import AyderError
from ayder_cli.spelling import closest

if TYPE_CHECKING:  # types only: the REPL imports the commands before the loop and the tools are loaded
    from ayder_cli.session.session import Session
    from ayder_cli.terminal.console import Console


class CommandResult(Enum):
    OK = "ok"
    FAILED = "failed"
    EXIT = "exit"


@dataclass(frozen=True)
class ModeCommands:
    """The modes a command can start, given by the modes layer (the commands sit below it)."""

    implement: Callable[[str], tuple[int, str]]  # one task -> (exit status, one-line outcome)
    implement_all: Callable[[], int]  # every pending task -> exit status
    doctor: Callable[[], int]  # the server and model checked -> exit status


@dataclass(frozen=True)
class CommandContext:
    """Exactly what the slash commands use of a run."""

    console: Console
    session: Session  # the conversation, its runtime, tools, transcript and journal, and what changes them
    modes: ModeCommands

    @property
    def root(self) -> Path:
        """The tools' root."""
        return self.session.root

    @property
    def state_root(self) -> Path:
        """The folder whose .ayder/ holds the tasks, prompts, checkpoint and project config."""
        return self.session.state_root


Handler = Callable[[CommandContext, str], "CommandResult | None"]


@dataclass(frozen=True)
class Command:
    name: str
    aliases: tuple[str, ...]
    usage: str
    help: str
    handler: Handler
    # An earlier name still typed -> what it means without arguments; not offered by the completer.
    old_names: dict[str, str] = field(default_factory=dict)


COMMANDS: dict[str, Command] = {}  # every name, alias and old name -> its command


def command(name: str, *aliases: str, usage: str = "", help: str,
            old_names: dict[str, str] | None = None) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        entry = Command(name, aliases, usage, help, handler, dict(old_names or {}))
        for key in (name, *aliases, *entry.old_names):
            COMMANDS[key] = entry
        return handler

    return register


def command_help() -> dict[str, str]:
    """Each command name (with its slash) the completer offers, and the short help shown beside it."""
    return {f"/{name}": entry.help for name, entry in sorted(COMMANDS.items()) if name not in entry.old_names}


def run_command(line: str, context: CommandContext) -> CommandResult:
    """Run one slash-command line."""
    name, _, args = line[1:].strip().partition(" ")
    entry = COMMANDS.get(name)
    if entry is None:
        close = closest(name, COMMANDS)
        suggestion = f"; did you mean /{close}?" if close else "; /help lists the commands"
        context.console.error(f"unknown command /{name}{suggestion}")
        return CommandResult.FAILED
    args = args.strip() or entry.old_names.get(name, "")
    try:
        return entry.handler(context, args) or CommandResult.OK
    except AyderError as exc:
        context.console.error(exc.message, exc.hint)
        return CommandResult.FAILED
