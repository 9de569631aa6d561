"""The question whether to trust a project: what its config asks for, shown once on the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from ayder_cli.terminal.confirm import ask_on_terminal, visible
from ayder_cli.terminal.environment import Environment
from ayder_cli.terminal.style import BOLD, YELLOW

QUESTION = "Trust this project? [y/N] "
SECRET_VALUES = ("api_key",)  # shown as set, never in clear


def trust_asker(environment: Environment) -> Callable[[Path, Path, dict[str, Any]], bool]:
    """The question on this run's terminal (stdin and stderr); no answer, Enter or Ctrl-D is no."""

    def ask(root: Path, path: Path, asked: dict[str, Any]) -> bool:
        return bool(ask_on_terminal(environment, lambda paint: describe(root, path, asked, paint), QUESTION))

    return ask


def describe(root: Path, path: Path, asked: dict[str, Any], paint: Callable[..., str]) -> str:
    """What the project asks for, one setting a line, values as JSON (control characters escaped)."""
    text = paint(f"{visible(str(path))} asks for settings that send your keys or run commands:", BOLD, YELLOW)
    lines = [text]
    for name, value in asked.items():
        shown = "(a key, not shown)" if name in SECRET_VALUES and value else json.dumps(value)
        lines.append(f"  {name}: {visible(shown)}")
    lines.append(f"They apply only if you trust {visible(str(root))} (asked again when the file changes).")
    return "\n".join(lines) + "\n"
