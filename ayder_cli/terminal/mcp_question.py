"""The question whether to start the MCP servers a project's .mcp.json names, once on the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ayder_cli.terminal.confirm import ask_on_terminal, visible
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.style import BOLD, YELLOW

QUESTION = "Start these MCP servers? [y/N] "


def mcp_asker(environment: Environment) -> Callable[[Path, Path, dict[str, str]], bool]:
    """The question on this run's terminal (stdin and stderr); no answer, Enter or Ctrl-D is no."""

    def ask(root: Path, path: Path, servers: dict[str, str]) -> bool:
        def describe(paint: Callable[..., str]) -> str:
            lines = [paint(f"{visible(str(path))} names MCP servers, programs ayder would start or reach:",
                           BOLD, YELLOW)]
            lines += [f"  {visible(name)}: {visible(shown)}" for name, shown in servers.items()]
            lines.append(f"Asked once for {visible(str(root))} (again when the file changes).")
            return "\n".join(lines) + "\n"

        return bool(ask_on_terminal(environment, describe, QUESTION))

    return ask
