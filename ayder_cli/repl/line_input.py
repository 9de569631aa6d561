"""The REPL's line input: a prompt_toolkit session with the history file, slash commands and @paths completed.

Only the REPL imports this module, so prompt_toolkit is loaded by no other mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, DynamicCompleter, WordCompleter, merge_completers
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.output import ColorDepth, Output

from ayder_cli.storage.xdg import private_history
from ayder_cli.repl.commands import command_help
from ayder_cli.repl.path_completion import AtPathCompleter


def prompt_session(env: Mapping[str, str], output: Output | None, no_color: bool,
                   root: Path | None = None, custom: Callable[[], Mapping[str, str]] = dict) -> PromptSession:
    """The prompt: history in the state directory, slash commands completed. output None: the app
    session's (a dumb terminal then gets prompt_toolkit's plain prompt). no_color: the completion
    menu in black and white (prompt_toolkit reads NO_COLOR only from the process's environment).
    root: the project, whose files an @ completes; custom(): the custom commands and skills found so far."""
    return PromptSession(
        history=_history(env),
        completer=command_completer(custom) if root is None else merge_completers([command_completer(custom),
                                                                                   AtPathCompleter(root)]),
        complete_while_typing=True,
        output=output,
        color_depth=ColorDepth.MONOCHROME if no_color else None,
    )


def command_completer(custom: Callable[[], Mapping[str, str]] = dict) -> Completer:
    """Slash commands completed at the start of the line, each shown with its short help; then custom():
    /NAME -> what it is, of the custom commands and skills found by then (a built-in name wins)."""
    helps = command_help()

    def current() -> WordCompleter:
        found = {**helps, **{name: about for name, about in custom().items() if name not in helps}}
        return WordCompleter(list(found), meta_dict=found, sentence=True, pattern=None)

    return DynamicCompleter(current)


def _history(env: Mapping[str, str]) -> History:
    """The history file in the state directory; kept in memory only where that cannot be written."""
    try:
        return FileHistory(str(private_history(env)))
    except OSError:
        return InMemoryHistory()
