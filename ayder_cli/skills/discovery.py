"""Finding the skills and custom commands: where they are kept, and reading each without trusting it.

A place is searched in order and the first of a name wins: the project's `.ayder/` then `.agents/`,
then the user's config folder then `~/.agents/`. What is wrong with one file is one line, and that
file is skipped; the others still load. A link is followed only when it stays in its own folder: a
project's `.agents/skills/x` -> `~/.ssh` is said and left alone. Files are read at most MAX_BYTES,
only regular ones (a FIFO planted there cannot hold ayder), never run.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from ayder_cli.skills.front_matter import FrontMatterError, split
from ayder_cli.storage.layout import Layout
from ayder_cli.storage.xdg import xdg_config_path

MAX_BYTES = 100_000  # a SKILL.md or a command: more is not instructions a small model can follow
MAX_DESCRIPTION = 1024  # the Agent Skills specification's limit: each description is sent with every request
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # a skill's name, as the specification allows it
COMMAND_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
MAX_NAME = 64


class Unreadable(ValueError):
    """Why one skill or command file is skipped, in a few words."""


@dataclass(frozen=True)
class Place:
    folder: Path
    shown: str  # as the user reads it: `.agents/skills`, `~/.agents/skills`
    project: Path | None = None  # the project it belongs to (it must stay inside); None: the user's own


@dataclass(frozen=True)
class Skill:
    name: str
    description: str  # on one line: it goes in the system prompt
    body: str  # the instructions, given by the skill tool or a /NAME
    folder: Path  # resolved: the files beside SKILL.md are read only inside it
    shown: str  # where it is, as the user reads it


@dataclass(frozen=True)
class CustomCommand:
    name: str
    text: str  # the prompt, $ARGUMENTS and $1... still in it
    description: str
    shown: str


def skill_places(repo: Path, env: Mapping[str, str]) -> list[Place]:
    home = Path(env.get("HOME", "~")).expanduser()
    config = xdg_config_path(env).parent
    layout = Layout(repo)
    return [Place(layout.skills, ".ayder/skills", repo), Place(layout.agents_skills, ".agents/skills", repo),
            Place(config / "skills", shown_path(config / "skills", home)),
            Place(home / ".agents" / "skills", "~/.agents/skills")]


def command_places(repo: Path, env: Mapping[str, str]) -> list[Place]:
    home = Path(env.get("HOME", "~")).expanduser()
    config = xdg_config_path(env).parent
    return [Place(Layout(repo).commands, ".ayder/commands", repo),
            Place(config / "commands", shown_path(config / "commands", home))]


def shown_path(path: Path, home: Path) -> str:
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def find_skills(places: list[Place], say: Callable[[str], None], log: Callable[[str], None]) -> dict[str, Skill]:
    found: dict[str, Skill] = {}
    for _place, entry, shown in entries(places, say, "skill"):
        skill_file = entry / "SKILL.md"
        if not os.path.lexists(skill_file):
            log(f"{shown}: no SKILL.md; not a skill")
            continue
        try:
            skill = read_skill(skill_file, entry, shown)
        except (Unreadable, FrontMatterError) as problem:
            say(f"skill {shown}/SKILL.md: {problem}; skipped")
            continue
        if skill.name in found:
            log(f"skill {skill.name} of {shown}: the one of {found[skill.name].shown} is used")
            continue
        found[skill.name] = skill
    return found


def read_skill(skill_file: Path, folder: Path, shown: str) -> Skill:
    text = read_text(inside(skill_file, folder), MAX_BYTES)
    parts = split(text)
    if parts is None:
        raise Unreadable("it has no front matter (a --- line, then name: and description:, then ---)")
    fields, body = parts
    name, description = fields.get("name", "").strip(), " ".join(fields.get("description", "").split())
    if not name:
        raise Unreadable("its front matter has no name")
    if len(name) > MAX_NAME or not SLUG.match(name):
        raise Unreadable(f"its name {name[:80]!r} is not lowercase letters, digits and single hyphens "
                         f"(at most {MAX_NAME})")
    if not description:
        raise Unreadable("its front matter has no description")
    if len(description) > MAX_DESCRIPTION:
        raise Unreadable(f"its description is over {MAX_DESCRIPTION:,} characters")
    return Skill(name, description, body, folder.resolve(), shown)


def find_commands(places: list[Place], say: Callable[[str], None],
                  log: Callable[[str], None]) -> dict[str, CustomCommand]:
    found: dict[str, CustomCommand] = {}
    for place, entry, shown in entries(places, say, "command", files=True):
        name = entry.name[:-3]
        try:
            if entry.suffix != ".md":
                continue
            if not COMMAND_NAME.match(name) or len(name) > MAX_NAME:
                raise Unreadable("its name is not letters, digits, - and _")
            text = read_text(inside(entry, place.folder), MAX_BYTES)
            parts = split(text)
            fields, body = parts if parts is not None else ({}, text.strip())
            if not body.strip():
                raise Unreadable("it is empty")
        except (Unreadable, FrontMatterError) as problem:
            say(f"command {shown}: {problem}; skipped")
            continue
        if name in found:
            log(f"command /{name} of {shown}: the one of {found[name].shown} is used")
            continue
        found[name] = CustomCommand(name, body, " ".join(fields.get("description", "").split()), shown)
    return found


def entries(places: list[Place], say: Callable[[str], None], kind: str, *, files: bool = False):
    """(place, path, shown) of each folder (or file) in each place, by name; links out of it said once."""
    for place in places:
        try:
            if not stat.S_ISDIR(os.stat(place.folder).st_mode):
                continue
        except OSError:
            continue
        if place.project is not None and not place.folder.resolve().is_relative_to(place.project.resolve()):
            say(f"{place.shown} leads out of the project (to {place.folder.resolve()}); its {kind}s are not read")
            continue
        try:
            names = sorted(os.listdir(place.folder))
        except OSError as error:
            say(f"{place.shown}: cannot be listed ({error.strerror}); its {kind}s are not read")
            continue
        for name in names:
            path = place.folder / name
            if name.startswith("."):
                continue
            shown = f"{place.shown}/{name}"
            if path.is_symlink() and not path.resolve().is_relative_to(place.folder.resolve()):
                say(f"{kind} {shown} is a link out of {place.shown} (to {path.resolve()}); not followed")
                continue
            if path.is_dir() != (not files):
                continue
            yield place, path, shown


def inside(path: Path, folder: Path) -> Path:
    """path with its links resolved, when that stays in folder; else Unreadable."""
    real = path.resolve()
    if not real.is_relative_to(folder.resolve()):
        raise Unreadable(f"it is a link out of its folder (to {real}); not followed")
    return real


def read_text(path: Path, limit: int) -> str:
    """A regular file's text, at most limit bytes; Unreadable says why not."""
    try:  # O_NONBLOCK: a FIFO put there must not hold ayder until someone writes to it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Unreadable("it is a symbolic link; not followed") from None
        raise Unreadable(f"it cannot be read ({error.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("it is not a regular file")
        data = b""
        while len(data) <= limit and (chunk := os.read(fd, limit + 1 - len(data))):
            data += chunk
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Unreadable(f"it is over {limit // 1000} KB")
    if b"\0" in data:
        raise Unreadable("it is not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable("it is not UTF-8 text") from None
