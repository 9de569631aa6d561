"""The question whether to start the MCP servers a project's .mcp.json names, once on the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ayder_cli.terminal.confirm import painter, tty_opener, visible, yes_or_no
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.style import BOLD, YELLOW

QUESTION = "Start these MCP servers? [y/N] "


def mcp_asker(environment: Environment) -> Callable[[Path, Path, dict[str, str]], bool]:
    """The question on this run's terminal (stdin and stderr); no answer, Enter or Ctrl-D is no."""

    def ask(root: Path, path: Path, servers: dict[str, str]) -> bool:
        with tty_opener(environment.stdin, environment.stderr)() as streams:
            if streams is None:
                return False
            reader, writer = streams
            paint = painter(not environment.no_color)
            lines = [paint(f"{visible(str(path))} names MCP servers, programs ayder would start or reach:",
                           BOLD, YELLOW)]
            lines += [f"  {visible(name)}: {visible(shown)}" for name, shown in servers.items()]
            lines.append(f"Asked once for {visible(str(root))} (again when the file changes).")
            writer.write("\n".join(lines) + "\n")
            return yes_or_no(reader, writer, paint(QUESTION, BOLD))

    return ask
