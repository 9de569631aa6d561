"""The question whether the config's verify commands may run: asked once a session, the commands shown."""

from __future__ import annotations

from typing import Callable

from ayder_cli.terminal.confirm import ask_on_terminal, visible
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.style import BOLD, YELLOW

QUESTION = "Run them in this session? [y/N] "


def checks_asker(environment: Environment) -> Callable[[tuple[str, ...]], bool | None]:
    """The question on this run's terminal; None: no terminal to ask on. Enter, Ctrl-D or anything else is no."""

    def ask(commands: tuple[str, ...]) -> bool | None:
        def describe(paint: Callable[..., str]) -> str:
            lines = [paint("The config names checks to run after the model changes files:", BOLD, YELLOW)]
            lines += [f"  {visible(command)}" for command in commands]
            return "\n".join(lines) + "\n"

        return ask_on_terminal(environment, describe, QUESTION)

    return ask
