"""The question whether the config's verify commands may run: asked once a session, the commands shown."""

from __future__ import annotations

from typing import Callable

from ayder_cli.terminal.confirm import painter, tty_opener, visible, yes_or_no
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.style import BOLD, YELLOW

QUESTION = "Run them in this session? [y/N] "


def checks_asker(environment: Environment) -> Callable[[tuple[str, ...]], bool | None]:
    """The question on this run's terminal; None: no terminal to ask on. Enter, Ctrl-D or anything else is no."""

    def ask(commands: tuple[str, ...]) -> bool | None:
        with tty_opener(environment.stdin, environment.stderr)() as streams:
            if streams is None:
                return None
            reader, writer = streams
            paint = painter(not environment.no_color)
            lines = [paint("The config names checks to run after the model changes files:", BOLD, YELLOW)]
            lines += [f"  {visible(command)}" for command in commands]
            writer.write("\n".join(lines) + "\n")
            return yes_or_no(reader, writer, paint(QUESTION, BOLD))

    return ask
