"""One writer per session: an exclusive lock on `<session>.lock`, held while a run appends to it.

Where fcntl exists the lock is flock(2): the kernel drops it when the process
ends, however it ends, so a killed ayder never blocks the next one. Elsewhere
the lock file is created exclusively and holds the pid; a file whose process
is gone is stale and taken over. Either way the file says who holds it (pid,
since when), so a second ayder can name the other process in its message.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ayder_cli.storage.layout import make_directory
from ayder_cli.storage.no_follow import open_no_follow

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

# A pid file still empty after this long was left by a process killed while writing it.
EMPTY_PID_FILE_STALE_S = 10.0


@dataclass(frozen=True)
class LockHolder:
    """The process that holds a session's lock, as far as its lock file tells."""

    pid: int | None = None
    since: datetime | None = None  # when it took the lock (UTC)

    def describe(self) -> str:
        """'another ayder (pid 4242, since 2026-11-22 14:02:11)', or less when the file says less."""
        details = []
        if self.pid is not None:
            details.append(f"pid {self.pid}")
        if self.since is not None:
            details.append(f"since {self.since.astimezone():%Y-%m-%d %H:%M:%S}")
        return "another ayder" + (f" ({', '.join(details)})" if details else "")


class SessionLock:
    """The writer lock of one session; acquire() never waits."""

    def __init__(self, path: Path, use_flock: bool | None = None) -> None:
        self.path = Path(path)
        self.use_flock = fcntl is not None if use_flock is None else use_flock
        self._fd: int | None = None  # flock: the open lock file
        self._owns_pid_file = False

    @property
    def held(self) -> bool:
        return self._fd is not None or self._owns_pid_file

    def acquire(self) -> LockHolder | None:
        """Take the lock: None once this process holds it, else who does. OSError if it cannot be tried;
        PlantedLink if the lock file (or a folder above it under .ayder/) is a link."""
        if self.held:
            return None
        make_directory(self.path.parent)
        return self._acquire_flock() if self.use_flock else self._acquire_pid_file()

    def release(self) -> None:
        """Give the lock up and remove its file (removed first, so no one locks a file about to vanish)."""
        if not self.held:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
        self._fd = None
        self._owns_pid_file = False

    # ---- flock

    def _acquire_flock(self) -> LockHolder | None:
        while True:
            fd = open_no_follow(self.path, os.O_RDWR | os.O_CREAT, 0o600)  # a planted link is never truncated
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return read_holder(self.path)
            except BaseException:
                os.close(fd)
                raise
            if _is_still_at(fd, self.path):
                _write_holder(fd)
                self._fd = fd
                return None
            # The holder removed the file between our open and our lock: lock the new one.
            os.close(fd)

    # ---- pid file (no fcntl)

    def _acquire_pid_file(self) -> LockHolder | None:
        for _ in range(3):  # a stale file is removed, then the create is tried again
            try:
                fd = open_no_follow(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                holder = read_holder(self.path)
                if not _is_stale(self.path, holder):
                    return holder
                self.path.unlink(missing_ok=True)
                continue
            try:
                _write_holder(fd)
            finally:
                os.close(fd)
            self._owns_pid_file = True
            return None
        return read_holder(self.path)


def read_holder(path: Path) -> LockHolder:
    """Who the lock file says holds it; an empty or unreadable file says nothing."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return LockHolder()
    if not isinstance(data, dict):
        return LockHolder()
    pid = data.get("pid") if isinstance(data.get("pid"), int) else None
    try:
        since = datetime.fromisoformat(data["since"])
    except (KeyError, TypeError, ValueError):
        since = None
    return LockHolder(pid, since)


def _write_holder(fd: int) -> None:
    record = {"pid": os.getpid(), "since": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, (json.dumps(record) + "\n").encode())


def _is_still_at(fd: int, path: Path) -> bool:
    """Whether the file we locked is still the one at path (release() removes it before unlocking)."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino)


def _is_stale(path: Path, holder: LockHolder) -> bool:
    """A pid file whose process is gone, or that stayed empty (its writer was killed at once)."""
    if holder.pid is not None:
        return not pid_alive(holder.pid)
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return True
    return age > EMPTY_PID_FILE_STALE_S


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (a pid reused by another program counts: it is kept)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, it is another user's
    except OSError:
        return False
    return True


def _windows_pid_alive(pid: int) -> bool:
    """os.kill would terminate the process on Windows; ask whether it is still running instead."""
    import ctypes  # Windows only: loaded here so other platforms never pay for it

    query_limited_information, still_active = 0x1000, 259
    kernel32 = ctypes.windll.kernel32
    handle = kernel32.OpenProcess(query_limited_information, False, pid)
    if not handle:
        return kernel32.GetLastError() == 5  # access denied: it exists
    try:
        code = ctypes.c_ulong()
        return bool(kernel32.GetExitCodeProcess(handle, ctypes.byref(code))) and code.value == still_active
    finally:
        kernel32.CloseHandle(handle)
