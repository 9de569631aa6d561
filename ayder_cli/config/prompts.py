"""System prompt selection: names from prompts/, project overrides in .ayder/prompts/, then the
project instructions (AGENTS.md, read by instructions.py)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Callable

from ayder_cli.errors import ConfigError
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.no_follow import PlantedLink, check_no_links, read_state_file, state_parts

MAX_PROMPT_BYTES = 64 * 1024  # a prompt part goes with every request: one bigger is not one


def bundled_prompts_dir() -> Path:
    """prompts/ as shipped: inside the installed package, or beside it in a checkout."""
    package = Path(__file__).resolve().parents[1]  # ayder_cli/
    installed = package / "bundled_prompts"
    return installed if installed.is_dir() else package.parent / "prompts"


def project_prompts_dir(root: Path) -> Path:
    return Layout(root).prompts


def available_prompts(root: Path, warn: Callable[[str], None] = lambda message: None) -> dict[str, Path]:
    """Every prompt name and its file; a project file overrides a bundled one. The project's folder and
    files are taken only as real folders and regular files, never through a link: a cloned project's
    link would send the file it points at with every request (each one refused is said in one line)."""
    found: dict[str, Path] = {}
    if bundled_prompts_dir().is_dir():
        found.update((path.stem, path) for path in sorted(bundled_prompts_dir().glob("*.txt")))
    directory = project_prompts_dir(root)
    try:
        check_no_links(directory, directory=True)
    except PlantedLink as exc:
        warn(f"{exc.message}; the project's prompts are not used")
        return dict(sorted(found.items()))
    if directory.is_dir():
        for path in sorted(directory.glob("*.txt")):
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_PROMPT_BYTES:
                why = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
                       if not stat.S_ISREG(info.st_mode) else f"over {MAX_PROMPT_BYTES // 1024} KB")
                warn(f"{path} is {why}; ayder does not read it as a prompt")
                continue
            found[path.stem] = path
    return dict(sorted(found.items()))


def load_system_prompt(names: tuple[str, ...] | list[str], root: Path,
                       warn: Callable[[str], None] = lambda message: None) -> str:
    """The named prompt files, read in order and joined by a newline."""
    available = available_prompts(root, warn)
    unknown = [name for name in names if name not in available]
    if unknown:
        raise ConfigError(
            f"unknown prompt {', '.join(repr(n) for n in unknown)}; "
            f"available: {', '.join(available) or '(none)'}",
            hint=f"add your own as {project_prompts_dir(root) / 'NAME.txt'}",
        )
    parts = []
    for name in names:
        path = available[name]
        try:  # the project's read as checked above, even if it was swapped for a link since
            data = read_state_file(path, MAX_PROMPT_BYTES) if state_parts(path) else path.read_bytes()
            parts.append((data or b"").decode("utf-8").strip("\n"))
        except (OSError, UnicodeDecodeError, PlantedLink) as exc:
            raise ConfigError(f"cannot read prompt {path}: {getattr(exc, 'message', exc)}") from None
    return "\n".join(parts)


def compose_system_prompt(prompt: str, instructions_block: str) -> str:
    """The prompt parts, then the project instructions (both stable per project: the cached prefix)."""
    return "\n\n".join(part for part in (prompt, instructions_block) if part)
