"""Nothing ayder writes or deletes under a project's `.ayder/` goes through a symbolic link.

A cloned repository or an unpacked archive can hold links: `.ayder` -> `~`,
`.ayder/sessions/<id>.lock` -> `~/.bashrc`, `<id>.undo` -> some directory. So
`.ayder` and every directory below it on the way to a file must be a real
directory (lstat, not stat), and the file itself is opened with O_NOFOLLOW. A
link found there is refused with PlantedLink, naming it; nothing is touched.
Paths outside any `.ayder/` (the user's own state, a path the user typed) are
left as they are: those links are the user's choice.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ayder_cli.errors import AyderError

STATE_DIR = ".ayder"  # the folder's name, relative to the project root (layout.py re-exports it)
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # 0 on Windows: the lstat walk below stands alone
LINK_HINT = "remove the link (a cloned project may have planted it): ayder keeps its state only in real folders"


class PlantedLink(AyderError):
    """A symbolic link (or a non-directory) where ayder keeps its own state."""


def state_parts(path: Path) -> tuple[Path, tuple[str, ...]] | None:
    """(the `.ayder` folder, the names below it down to path) when path is under a `.ayder`; else None."""
    parts = Path(path).parts
    if STATE_DIR not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index(STATE_DIR)
    return Path(*parts[:at + 1]), parts[at + 1:]


def check_no_links(path: Path, *, directory: bool = False) -> None:
    """PlantedLink if `.ayder`, a directory below it on the way to path, or path itself is a link, or
    one of those directories (path too, when directory) is not a directory. Missing parts are fine."""
    found = state_parts(path)
    if found is None:
        return
    step, names = found
    steps = [step]
    for name in names:
        steps.append(steps[-1] / name)
    for position, step in enumerate(steps):
        try:
            info = os.lstat(step)
        except FileNotFoundError:
            return  # nothing below a missing part exists either
        if stat.S_ISLNK(info.st_mode):
            raise _link_error(step)
        must_be_directory = directory or position < len(steps) - 1 or position == 0
        if must_be_directory and not stat.S_ISDIR(info.st_mode):
            raise PlantedLink(f"{step} is not a directory; ayder keeps its state there", hint=LINK_HINT)


def open_no_follow(path: Path, flags: int, mode: int = 0o600) -> int:
    """os.open for a file under .ayder/: its directories checked, the file itself never a link."""
    path = Path(path)
    check_no_links(path)
    extra = O_NOFOLLOW if state_parts(path) is not None else 0
    try:
        return os.open(path, flags | extra, mode)
    except OSError as error:
        if extra and _is_link(path):  # ELOOP: planted between the check and the open
            raise _link_error(path) from None
        raise error


def _link_error(path: Path) -> PlantedLink:
    try:
        to = f" (to {os.readlink(path)})"
    except OSError:
        to = ""
    return PlantedLink(f"{path} is a symbolic link{to}; ayder does not read, write or delete through it",
                       hint=LINK_HINT)


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


class NotAFileToRead(PlantedLink):
    """A file under `.ayder/` that ayder reads (config, prompts) but that is a device, a FIFO, a socket,
    or bigger than a file of its kind can be."""


def read_state_file(path: Path, limit: int) -> bytes | None:
    """The bytes of a file under .ayder/ that ayder reads (its config, a prompt): never through a link,
    only a regular file, at most `limit` bytes; None when there is none. PlantedLink (or
    NotAFileToRead) names what is wrong; IsADirectoryError for a directory there."""
    path = Path(path)
    check_no_links(path)
    extra = O_NOFOLLOW if state_parts(path) is not None else 0
    try:  # O_NONBLOCK: a FIFO planted there must not hold ayder until someone writes to it
        fd = os.open(path, os.O_RDONLY | extra | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError:
        if extra and _is_link(path):  # ELOOP
            raise _link_error(path) from None
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(f"{path} is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise NotAFileToRead(f"{path} is not a regular file (a device, a FIFO or a socket); ayder does not "
                                 "read it", hint="remove it, or put a file of that name there")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotAFileToRead(f"{path} is over {limit // 1024} KB; ayder does not read it",
                             hint="keep it smaller")
    return data
