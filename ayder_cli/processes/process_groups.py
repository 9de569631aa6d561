"""Process groups: starting a command in a group of its own, stopping the whole group, and, at
exit, whatever left its group.

A command is always `/bin/sh -c command` in a new session, so it leads its own
process group: stopping it stops everything it started (unless something left the
group on purpose, with setsid), and Ctrl-C at the terminal does not reach it.
What leaves the group is found at exit by stop_descendants(), from /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from ayder_cli.errors import ToolError
from ayder_cli.processes.own_process import before_a_command

COMMAND_SHELL = "/bin/sh"  # what every command the model runs is run by
KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
KILL_ROUNDS = 5  # SIGKILL passes over ayder's descendants at exit, for those forked while it ran


def spawn(command: str, cwd: Path, stdout: int, stderr: int,
          env: Mapping[str, str] | None = None, sandbox=None) -> subprocess.Popen:
    """`/bin/sh -c command` in its own session (so its own process group), stdin closed;
    env: its environment (None: ayder's own); sandbox: a tools.sandbox.Sandbox it is started in."""

    def popen(preexec_fn=None) -> subprocess.Popen:
        return subprocess.Popen(
            [COMMAND_SHELL, "-c", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            start_new_session=True, env=env, preexec_fn=preexec_fn,
        )

    before_a_command()  # ayder not dumpable, and its key gone from the environment /proc shows of it
    try:
        return sandbox.start(popen) if sandbox is not None else popen()
    except OSError as exc:
        raise ToolError(f"cannot start {COMMAND_SHELL}: {exc.strerror or exc}") from None


def group_alive(pgid: int) -> bool:
    """Whether any process that is not a zombie is left in the group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A dead child waits as a zombie until its parent reaps it, and orphans are reaped by
    # PID 1, which in many containers never does: so where /proc can tell, zombies do not count.
    table = _process_table()
    return table is None or any(entry.pgrp == pgid for entry in table)


class _ProcessEntry(NamedTuple):
    pid: int
    ppid: int
    pgrp: int


def _process_table() -> list[_ProcessEntry] | None:
    """Every process that is not a zombie, from /proc; None where there is no /proc (macOS)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    table = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue  # gone meanwhile
        fields = data[data.rfind(b")") + 2:].split()  # after "pid (comm) ": state ppid pgrp ...
        if len(fields) > 2 and fields[0] not in (b"Z", b"X"):
            table.append(_ProcessEntry(int(name), int(fields[1]), int(fields[2])))
    return table


def descendants(pid: int) -> list[int] | None:
    """The live processes below pid: its children, theirs, and so on; None where there is no /proc."""
    table = _process_table()
    if table is None:
        return None
    children: dict[int, list[int]] = {}
    for entry in table:
        children.setdefault(entry.ppid, []).append(entry.pid)
    found, parents = [], [pid]
    while parents:
        below = children.get(parents.pop(), [])
        found.extend(below)
        parents.extend(below)
    return found


def stop_descendants(grace_s: float = KILL_GRACE_S) -> int:
    """Stop every process still running below ayder: SIGTERM, up to grace_s, then SIGKILL.

    How many there were. Run at exit, after the process groups were stopped: what is
    left escaped its group (setsid, a double fork) and, with ayder a child subreaper,
    was re-parented to ayder rather than to init. Nothing is found where there is no /proc.
    """
    me = os.getpid()
    first = descendants(me) or []
    for pid in first:
        _signal_pid(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    left = first
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = descendants(me) or []
    for _ in range(KILL_ROUNDS):  # a process forked meanwhile is found on the next round
        if not left:
            break
        for pid in left:
            _signal_pid(pid, signal.SIGKILL)
        time.sleep(0.01)
        left = descendants(me) or []
    return len(first)


def _signal_pid(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_groups(processes: Iterable[subprocess.Popen], grace_s: float = KILL_GRACE_S) -> None:
    """Stop each process and everything in its group: SIGTERM, up to grace_s, then SIGKILL. Reaps them."""
    processes = list(processes)
    for process in processes:
        _signal_group(process.pid, signal.SIGTERM)  # start_new_session: the shell's pid is the group's id
    deadline = time.monotonic() + grace_s
    alive = processes
    while alive and time.monotonic() < deadline:
        for process in alive:
            process.poll()  # reap the shell, or its group never looks empty
        alive = [process for process in alive if group_alive(process.pid)]
        if alive:
            time.sleep(0.02)
    for process in alive:
        _signal_group(process.pid, signal.SIGKILL)
    for process in processes:
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be refused
            pass


def kill_group(process: subprocess.Popen, grace_s: float = KILL_GRACE_S) -> None:
    kill_groups([process], grace_s)


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
