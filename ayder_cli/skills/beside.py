"""The files beside a skill's SKILL.md (scripts, references, templates): listed for the model and read,
read-only, through the skill tool. The read tools stay confined to the project; these reads are
confined to the skill's own folder (links resolved), so a user's skill can bring its files without
opening the rest of the home directory."""

from __future__ import annotations

import os
from pathlib import Path

from ayder_cli.errors import ToolError
from ayder_cli.skills.discovery import Skill, Unreadable, read_text

MAX_LISTED = 40  # files named after a skill's body: enough to find one, little enough to send
MAX_FILE_BYTES = 200_000  # one file read; the executor still caps what the model is sent


def files_beside(skill: Skill) -> list[str]:
    """The regular files in the skill's folder and below it (links left out), SKILL.md excepted."""
    found: list[str] = []
    for top, folders, files in os.walk(skill.folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(files):
            path = Path(top) / name
            if name.startswith(".") or path.is_symlink() or path == skill.folder / "SKILL.md":
                continue
            found.append(path.relative_to(skill.folder).as_posix())
            if len(found) > MAX_LISTED:
                return found
    return found


def files_note(skill: Skill) -> str:
    """A line naming the files beside the skill, and how the model reads one; "" when there are none."""
    files = files_beside(skill)
    if not files:
        return ""
    more = ", ..." if len(files) > MAX_LISTED else ""
    return (f"Files of the skill {skill.name} (read one with skill(name={skill.name!r}, file=PATH)): "
            f"{', '.join(files[:MAX_LISTED])}{more}")


def read_beside(skill: Skill, file: str) -> str:
    """The text of one file in the skill's folder; ToolError when it is outside, missing or not text."""
    relative = Path(file.strip().lstrip("/")) if file.strip() else Path()
    path = (skill.folder / relative).resolve()
    if not path.is_relative_to(skill.folder) or path == skill.folder:
        raise ToolError(f"{file!r} is not a file of the skill {skill.name}; its files are listed with its body")
    if not path.is_file():
        raise ToolError(f"the skill {skill.name} has no file {file!r}; its files are listed with its body")
    try:
        return read_text(path, MAX_FILE_BYTES)
    except Unreadable as problem:
        raise ToolError(f"{file} of the skill {skill.name}: {problem}") from None
