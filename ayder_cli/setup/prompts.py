"""System prompt selection: names from prompts/, project overrides in .ayder/prompts/, then the
project instructions (AGENTS.md, read by instructions.py)."""

from __future__ import annotations

from pathlib import Path

from ayder_cli.errors import ConfigError
from ayder_cli.storage.layout import Layout


def bundled_prompts_dir() -> Path:
    """prompts/ as shipped: inside the installed package, or beside it in a checkout."""
    package = Path(__file__).resolve().parents[1]  # ayder_cli/
    installed = package / "bundled_prompts"
    return installed if installed.is_dir() else package.parent / "prompts"


def project_prompts_dir(root: Path) -> Path:
    return Layout(root).prompts


def available_prompts(root: Path) -> dict[str, Path]:
    """Every prompt name and its file; a project file overrides a bundled one."""
    found: dict[str, Path] = {}
    for directory in (bundled_prompts_dir(), project_prompts_dir(root)):
        if directory.is_dir():
            for path in sorted(directory.glob("*.txt")):
                found[path.stem] = path
    return dict(sorted(found.items()))


def load_system_prompt(names: tuple[str, ...] | list[str], root: Path) -> str:
    """The named prompt files, read in order and joined by a newline."""
    available = available_prompts(root)
    unknown = [name for name in names if name not in available]
    if unknown:
        raise ConfigError(
            f"unknown prompt {', '.join(repr(n) for n in unknown)}; "
            f"available: {', '.join(available) or '(none)'}",
            hint=f"add your own as {project_prompts_dir(root) / 'NAME.txt'}",
        )
    parts = []
    for name in names:
        try:
            parts.append(available[name].read_text(encoding="utf-8").strip("\n"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read prompt {available[name]}: {exc}") from None
    return "\n".join(parts)


def compose_system_prompt(prompt: str, instructions_block: str) -> str:
    """The prompt parts, then the project instructions (both stable per project: the cached prefix)."""
    return "\n\n".join(part for part in (prompt, instructions_block) if part)
