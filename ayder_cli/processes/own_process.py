"""ayder's own process, kept from the commands it starts: they must not read its API key.

Commands get an environment without the key (the session builds it), but a child can still
look at its parent: /proc/PPID/environ shows the environment ayder was started with, and a
child of the same user may attach to it. So before the first command ayder makes itself not
dumpable (no attaching, no /proc/PID/environ or mem for the same user), and wipes each key
from that first environment in its own memory, which even root reads there. Python's
os.environ is a copy made at start-up, so ayder itself still sees every variable.
"""

from __future__ import annotations

import sys

from ayder_cli.masking import Secrets

PR_SET_DUMPABLE = 4
_kept: list[Secrets] = []  # the run's secrets, as they grow (a key of a server switched to)
_state = {"dumpable_off": False, "wiped": set()}


def keep_from_children(secrets: Secrets) -> None:
    """The keys to wipe before a command starts; nothing is done until one does."""
    _kept.append(secrets)


def before_a_command() -> None:
    """Not dumpable, and every key known so far wiped from the first environment; Linux only, best effort."""
    if not sys.platform.startswith("linux"):
        return
    values = {value for secrets in _kept for value in secrets.values} - _state["wiped"]
    if _state["dumpable_off"] and not values:
        return
    import ctypes  # only when a command runs: start-up stays fast

    libc = ctypes.CDLL(None, use_errno=True)
    if not _state["dumpable_off"]:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        _state["dumpable_off"] = True
    if values:
        _wipe(ctypes, values)
        _state["wiped"] |= values


def _wipe(ctypes, values: set[str]) -> None:
    """Each value overwritten with '*' where it stands in the environment block the kernel shows."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            data = stat.read()
        fields = data[data.rfind(b")") + 2:].split()  # from field 3 (state) on
        start, end = int(fields[47]), int(fields[48])  # fields 50 and 51: env_start, env_end
    except (OSError, IndexError, ValueError):
        return
    if not 0 < start < end:
        return
    block = ctypes.string_at(start, end - start)
    for value in values:
        secret = value.encode()
        at = block.find(secret)
        while at >= 0:
            ctypes.memset(start + at, ord("*"), len(secret))
            at = block.find(secret, at + len(secret))
