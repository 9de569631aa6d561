"""Landlock, the Linux kernel's sandbox for unprivileged processes, through ctypes.

Three system calls (the generic numbers, the same on x86_64, aarch64, arm, riscv, ppc,
s390 and loongarch; alpha and mips number them otherwise and are treated as lacking it): create a ruleset naming the access rights it handles, add rules that allow
some of them beneath a directory (or on a TCP port), and restrict the calling thread with
it. A thread once restricted stays so, and so does every process it starts; the rest of the
process is untouched, which is what lets ayder restrict only what it spawns (sandbox.py).

Each ABI version adds rights; a right the kernel does not know makes the ruleset invalid,
so only those of the running ABI are ever asked for (see write_rights()).
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1 << 0  # flag: landlock_create_ruleset() answers the ABI version
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38  # restricting oneself needs it (or CAP_SYS_ADMIN)

# Filesystem rights, with the ABI that brought each.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE = 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (1 << n for n in range(6, 13))
REFER = 1 << 13  # ABI 2: link or rename a file into another directory
TRUNCATE = 1 << 14  # ABI 3: truncate(2), ftruncate(2), open with O_TRUNC
IOCTL_DEV = 1 << 15  # ABI 5: ioctl(2) on a device file
# Network rights (ABI 4): TCP only; a rule allows one port, on every address.
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1

_WRITES_BY_ABI = {
    1: WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
       | MAKE_BLOCK | MAKE_SYM,
    2: REFER,
    3: TRUNCATE,
    5: IOCTL_DEV,
}
NETWORK_ABI = 4


class LandlockError(OSError):
    """A Landlock call failed; its errno and what was being done."""


class _RulesetAttr(ctypes.Structure):
    # handled_access_net came with ABI 4 and scoped with ABI 6; the kernel takes the size given.
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # packed in the kernel's header: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


_libc = None


def _lib():
    """The C library, loaded at the first Landlock call (never at start-up)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _checked(result: int) -> int:
    if result < 0:
        error = ctypes.get_errno()
        raise LandlockError(error, os.strerror(error))
    return result


def _syscall(number: int, *args) -> int:
    return _checked(_lib().syscall(ctypes.c_long(number), *args))


def probe() -> tuple[int, str]:
    """The kernel's Landlock ABI version, and why not when it is 0 (not Linux, too old, turned off)."""
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is a Linux feature (this is {platform.system() or sys.platform})"
    if platform.machine().lower().startswith(("alpha", "mips")):  # their numbers are not the generic ones
        return 0, "Landlock's system calls are not known here for this architecture"
    try:
        version = _syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError) as exc:
        reason = {38: "the kernel has no Landlock (Linux 5.13 or later built with it is needed)",
                  95: "Landlock is turned off in this kernel (the lsm= boot option)",
                  1: "a seccomp filter or the container forbids Landlock"}
        return 0, reason.get(getattr(exc, "errno", None), f"Landlock cannot be asked: {exc}")
    return version, ""


def write_rights(abi: int) -> int:
    """Every right that changes the filesystem, as far as this ABI knows them."""
    rights = 0
    for since, more in _WRITES_BY_ABI.items():
        if abi >= since:
            rights |= more
    return rights


class Ruleset:
    """A ruleset being built: what it handles is denied except where a rule allows it."""

    def __init__(self, abi: int, handled_fs: int, handled_net: int = 0) -> None:
        if handled_net and abi < NETWORK_ABI:
            raise ValueError(f"network rights need Landlock ABI {NETWORK_ABI}, this is ABI {abi}")
        self.abi = abi
        attr = _RulesetAttr(handled_fs, handled_net, 0)
        size = 8 if abi < NETWORK_ABI else 16  # the struct as this ABI knows it
        self.fd = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))

    def allow_beneath(self, path: str | os.PathLike, rights: int) -> None:
        """Allow rights on path and everything beneath it. OSError if it cannot be opened."""
        parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            attr = _PathBeneathAttr(rights, parent)
            _syscall(SYS_ADD_RULE, ctypes.c_int(self.fd), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(attr),
                     ctypes.c_uint32(0))
        finally:
            os.close(parent)

    def allow_port(self, port: int, rights: int) -> None:
        attr = _NetPortAttr(rights, port)
        _syscall(SYS_ADD_RULE, ctypes.c_int(self.fd), ctypes.c_int(RULE_NET_PORT), ctypes.byref(attr),
                 ctypes.c_uint32(0))

    def restrict_this_thread(self) -> None:
        """From now on this thread, and every process it starts, lives under the ruleset.

        Only the calling thread: no_new_privs and the Landlock domain are both kept per thread.
        """
        _checked(_lib().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        _syscall(SYS_RESTRICT_SELF, ctypes.c_int(self.fd), ctypes.c_uint32(0))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Ruleset:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
