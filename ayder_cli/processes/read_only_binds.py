"""Read-only places inside the writable project, for one sandboxed command: the project's .git.

Landlock can only allow: a file's rights are the union of the rules on the directories above
it, so no rule can take back beneath .git what the project's rule grants. So the command gets
a mount namespace of its own in which each such place is bound read-only over itself: its
writes there fail with "Read-only file system", and nobody else's view changes.

Done in the child, between fork and exec, before Landlock restricts it (a Landlock domain
may not change mounts). A user other than root first enters a user namespace of its own,
mapped to its own uid and gid, which is what lets it make the mounts; where the system
allows neither (no user namespaces, a seccomp filter, AppArmor), apply() raises OSError.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC = 32, 1024, 2048, 4096, 16384
MS_PRIVATE, MS_RELATIME = 1 << 18, 1 << 21
# A bind's flags a user namespace may not drop when it makes the bind read-only: statvfs's, as mount's.
_KEPT_FLAGS = tuple((getattr(os, name, 0), flag) for name, flag in (
    ("ST_NOSUID", MS_NOSUID), ("ST_NODEV", MS_NODEV), ("ST_NOEXEC", MS_NOEXEC), ("ST_NOATIME", MS_NOATIME),
    ("ST_NODIRATIME", MS_NODIRATIME), ("ST_RELATIME", MS_RELATIME)))


class ReadOnlyBinds:
    """Everything decided in ayder's process; apply() only makes system calls, in the child."""

    def __init__(self, places: list[Path]) -> None:
        self.places = [(os.fsencode(place), _kept_flags(place)) for place in places]
        self.uid, self.gid = os.geteuid(), os.getegid()
        self._libc = ctypes.CDLL(None, use_errno=True)

    def apply(self) -> None:
        """In the child: a mount namespace (and a user namespace when not root), each place read-only."""
        if self.uid == 0:
            self._call(self._libc.unshare(CLONE_NEWNS))
        else:
            self._call(self._libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
            _write("/proc/self/setgroups", b"deny")
            _write("/proc/self/uid_map", b"%d %d 1" % (self.uid, self.uid))
            _write("/proc/self/gid_map", b"%d %d 1" % (self.gid, self.gid))
        self._call(self._libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None))  # nothing leaks back out
        for place, kept in self.places:
            self._call(self._libc.mount(place, place, None, MS_BIND | MS_REC, None))
            self._call(self._libc.mount(None, place, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, None))

    @staticmethod
    def _call(result: int) -> None:
        if result != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))


def _kept_flags(place: Path) -> int:
    try:
        flags = os.statvfs(place).f_flag
    except OSError:
        return 0
    return sum(mount_flag for statvfs_flag, mount_flag in _KEPT_FLAGS if flags & statvfs_flag)


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
