"""Paths the model names, checked to stay inside the project root."""

from __future__ import annotations

import os
from pathlib import Path

from ayder_cli.errors import ToolError


def resolve_in_root(root: Path, path_str: str) -> Path:
    """The real path (symlinks, `..`, `~` resolved) of path_str, relative to root; ToolError if outside it."""
    if not path_str.strip():
        raise ToolError("the path is empty; give a path relative to the project root")
    root = root.resolve()
    try:
        target = (root / Path(path_str).expanduser()).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # symlink loop, NUL byte in the name
        raise ToolError(f"path {path_str!r} cannot be resolved: {exc}") from None
    if not target.is_relative_to(root):
        raise ToolError(outside_root(path_str, root, target))
    return target


def outside_root(shown: str, root: Path, target: Path) -> str:
    """The refusal of a path outside the root; when a folder above the root holds both (ayder started in a
    subdirectory), how the user widens the root to reach it."""
    message = f"path {shown!r} is outside the project root; use a path inside it"
    common = Path(os.path.commonpath([root, target]))
    if common == Path(common.anchor) or common == Path.home():  # widening to / or ~ is no advice to give
        return message
    return f"{message} (the user can widen the root: start ayder with --root {common}, or set root in the config)"


def display_path(root: Path, path: Path) -> str:
    """path relative to root, as the model and the user should see it ("." for the root itself)."""
    try:
        return path.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return str(path)
