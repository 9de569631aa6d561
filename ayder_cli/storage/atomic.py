"""Atomic file writes: a temporary file beside the target, fsynced, then renamed over it.

A reader (or a crash) sees the old file or the new one, never half of either.
The previous content goes into the undo journal before the rename.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import Any

from ayder_cli.errors import ToolError
from ayder_cli.storage.layout import STATE_DIR, ignore_everything, make_directory
from ayder_cli.storage.no_follow import check_no_links, open_no_follow
from ayder_cli.storage.paths import display_path, outside_root

TEMP_PREFIX = ".ayder-tmp-"
NEW_FILE_MODE = 0o666  # before the umask, as any editor creates a file


def atomic_write(path: Path, data: str, root: Path, journal: Any, tool_name: str) -> bool:
    """Write data (UTF-8) to path inside root, atomically; returns whether the file was created.

    The mode of an existing file is kept; missing parent directories are made.
    ToolError for anything that cannot be written (outside root, .git, a directory, I/O);
    PlantedLink for a link on the way to a file under .ayder/ (a checkpoint, a task).
    """
    check_no_links(Path(path))
    root = Path(root).resolve()
    target = Path(path).resolve()
    shown = display_path(root, target)
    check_writable_path(target, root, shown)
    try:
        encoded = data.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(f"cannot write {shown}: the text is not valid Unicode ({exc.reason})") from None
    previous, mode = read_previous(target, shown)
    made_dirs: list[Path] = []
    entry = None
    try:
        made_dirs = make_parents(target.parent, root, shown)
        if journal is not None:
            entry = journal.record(target, previous, mode, tool_name, display=shown, new=encoded,
                                   made_dirs=tuple(made_dirs))
        replace_with(target, encoded, mode)
    except BaseException as exc:
        if journal is not None and entry is not None:
            journal.discard(entry)
        for directory in reversed(made_dirs):
            try:
                directory.rmdir()
            except OSError:
                pass
        if isinstance(exc, OSError):
            raise ToolError(f"cannot write {shown}: {exc.strerror or exc}") from None
        raise
    return previous is None


def check_writable_path(target: Path, root: Path, shown: str) -> None:
    """ToolError unless target is a path inside root that a tool may write."""
    if not target.is_relative_to(root):
        raise ToolError(outside_root(shown, root, target))
    if ".git" in target.relative_to(root).parts:
        raise ToolError(f"{shown}: .git is never written")
    if target.is_dir():
        raise ToolError(f"{shown} is a directory, not a file")
    if target.exists() and not target.is_file():
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe); it is not written")


def read_previous(target: Path, shown: str) -> tuple[bytes | None, int | None]:
    """(content, permission bits) of the file now at target; (None, None) if there is none."""
    try:
        with target.open("rb") as stream:
            return stream.read(), stat.S_IMODE(os.fstat(stream.fileno()).st_mode)
    except FileNotFoundError:
        return None, None
    except NotADirectoryError:
        raise ToolError(f"cannot write {shown}: a parent of it is a file, not a directory") from None
    except OSError as exc:
        raise ToolError(f"cannot read {shown} before writing it: {exc.strerror or exc}") from None


def make_parents(directory: Path, root: Path, shown: str) -> list[Path]:
    """Create the missing directories above a new file (all inside root); the ones made, outermost first."""
    missing: list[Path] = []
    while not directory.exists():
        if not directory.is_relative_to(root) or directory == root:
            raise ToolError(f"cannot write {shown}: its directory is outside the project root")
        missing.append(directory)
        directory = directory.parent
    if not directory.is_dir():
        raise ToolError(f"cannot write {shown}: {display_path(root, directory)} is a file, not a directory")
    made: list[Path] = []
    try:
        for parent in reversed(missing):
            parent.mkdir()
            made.append(parent)
            if parent.name == STATE_DIR:
                ignore_everything(parent)  # ayder's own state folder stays out of git
    except BaseException:
        for parent in reversed(made):
            try:
                parent.rmdir()
            except OSError:
                pass
        raise
    return made


def replace_with(target: Path, data: bytes, mode: int | None) -> None:
    """Put data at target through a fsynced temporary file and os.replace; the temporary never stays.

    mode None: a new file (0o666 less the umask); else the permission bits to give it.
    An existing file's owner and group are kept where the process may set them.
    PlantedLink when target is under .ayder/ and a link is on the way (the temporary would land there).
    """
    check_no_links(target)
    temp, fd = _create_temp(target.parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            if mode is not None:
                _keep_owner(stream.fileno(), target)
                os.fchmod(stream.fileno(), mode)
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    fsync_directory(target.parent)


def _keep_owner(fd: int, target: Path) -> None:
    try:
        now = os.stat(target)
        if (now.st_uid, now.st_gid) != (os.geteuid(), os.getegid()):
            os.fchown(fd, now.st_uid, now.st_gid)
    except (OSError, AttributeError):  # not allowed, gone, or no chown on this platform
        pass


def _create_temp(directory: Path) -> tuple[Path, int]:
    """A new, empty file named .ayder-tmp-XXXX in directory; O_EXCL, so it is never someone else's."""
    while True:
        temp = directory / f"{TEMP_PREFIX}{secrets.token_hex(6)}"
        try:
            return temp, os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, NEW_FILE_MODE)
        except FileExistsError:
            continue


def fsync_directory(directory: Path) -> None:
    """Make the rename itself durable; a no-op where directories cannot be opened (Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def append_record(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Append one record (a whole line) with O_APPEND and fsync: a crash loses at most this record,
    never an earlier one. OSError propagates; PlantedLink for a link under .ayder/."""
    make_directory(path.parent)
    descriptor = open_no_follow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
    try:
        while data:
            written = os.write(descriptor, data)
            data = data[written:]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
