"""The REPL's slash commands in the editor's prompt box: `/undo`, `/status`, `/model NAME`, ... run as at
the terminal, and what they print is the answer the editor shows. The editor is told which there are
(available_commands_update). What needs a terminal of its own (--implement, --doctor) says so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ayder_cli.errors import UsageError
from ayder_cli.repl.commands import COMMANDS, CommandContext, ModeCommands, run_command

if TYPE_CHECKING:
    from ayder_cli.acp.updates import AcpConsole
    from ayder_cli.session.session import Session

NOT_HERE = "not in the editor: run it in a terminal (ayder --implement, ayder --doctor)"


def _not_here(*args: object) -> tuple[int, str]:
    raise UsageError(NOT_HERE)


NO_MODES = ModeCommands(implement=_not_here, implement_all=lambda: _not_here()[0], doctor=lambda: _not_here()[0])


def run_slash_command(session: Session, console: AcpConsole, text: str) -> None:
    """One command line; what it prints goes to the editor as the answer (and to stderr as always)."""
    with console.echoing():
        run_command(text, CommandContext(console=console, session=session, modes=NO_MODES))


def available_commands() -> list[dict[str, Any]]:
    """The commands, each once by its name, for the editor's completion."""
    seen, found = set(), []
    for name, entry in sorted(COMMANDS.items()):
        if entry.name in seen or name != entry.name:
            continue
        seen.add(entry.name)
        command: dict[str, Any] = {"name": entry.name, "description": entry.help}
        if entry.usage:
            command["input"] = {"hint": entry.usage}
        found.append(command)
    return found
