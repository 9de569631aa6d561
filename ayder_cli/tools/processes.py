"""Processes: starting a command in its own process group, stopping the whole group, and the
background processes (ProcessManager and its four tools).

A command is always `/bin/sh -c command` in a new session, so it leads its own
process group: stopping it stops everything it started (unless something left the
group on purpose, with setsid), and Ctrl-C at the terminal does not reach it.
What leaves the group is found at exit by stop_descendants(), from /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple

from ayder_cli.tools.base import ToolContext, ToolError, ToolResult, ToolSpec
from ayder_cli.tools.shell_policy import check_command
from ayder_cli.wording import short

SHELL = "/bin/sh"
KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
KILL_ROUNDS = 5  # SIGKILL passes over ayder's descendants at exit, for those forked while it ran
READ_CHUNK = 65536
START_PEEK_S = 0.5  # run_background_process waits this long, so a command that fails at once says why
KEEP_FINISHED = 20  # finished processes remembered (with their output) for get_background_output
KILL_TAIL_LINES = 20  # lines of output shown when a process is killed


# --- one process group


def spawn(command: str, cwd: Path, stdout: int, stderr: int,
          env: Mapping[str, str] | None = None) -> subprocess.Popen:
    """`/bin/sh -c command` in its own session (so its own process group), stdin closed;
    env: its environment (None: ayder's own)."""
    try:
        return subprocess.Popen(
            [SHELL, "-c", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            start_new_session=True, env=env,
        )
    except OSError as exc:
        raise ToolError(f"cannot start {SHELL}: {exc.strerror or exc}") from None


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


class Capture:
    """The head and the tail of an output stream, in bounded memory, and how many bytes went by."""

    def __init__(self, keep: int) -> None:
        self.keep = max(keep, 2)
        self.head = bytearray()  # the first keep/2 bytes
        self.tail = bytearray()  # the last keep/2 bytes after those
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - (self.keep - self.keep // 2)
            if excess > 0:
                del self.tail[:excess]

    def render(self, budget: int) -> str:
        """The output as text, at most about budget characters; when longer, its middle is cut out."""
        kept = bytes(self.head) + bytes(self.tail)
        complete = self.total == len(kept)
        if complete and len(kept) <= budget:
            return _decode(kept)
        budget = min(max(budget, 2), self.keep)
        head = kept[: budget // 2]
        tail = (kept if complete else bytes(self.tail))[-(budget - budget // 2):]
        # Whole lines where a line end is near, so no line is shown half-cut.
        newline = head.rfind(b"\n")
        if newline >= len(head) // 2:
            head = head[: newline + 1]
        newline = tail.find(b"\n")
        if newline != -1 and newline < len(tail) // 2:
            tail = tail[newline + 1:]
        text = _decode(head)
        if text and not text.endswith("\n"):
            text += "\n"
        cut = self.total - len(head) - len(tail)
        return f"{text}[... {cut:,} bytes cut from the middle ...]\n{_decode(tail)}"


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# --- background processes


class ProcessInfo(NamedTuple):
    id: int
    command: str
    status: str  # "running", "exited with code N", "killed", "killed by signal N"
    runtime_s: float


@dataclass(eq=False)
class _Background:
    id: int
    command: str
    process: subprocess.Popen
    output: Capture
    started: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    reader: threading.Thread | None = None
    ended: float | None = None
    killed: bool = False  # by kill() or kill_all(), not on its own
    stopped: bool = False  # its group was stopped: never signalled again (its id may be reused one day)

    def stop(self) -> None:
        if not self.stopped:
            kill_group(self.process)
            self.stopped = True

    def running(self) -> bool:
        if self.process.poll() is None:
            return True
        if self.ended is None:
            self.ended = time.monotonic()
        return False

    def status(self) -> str:
        if self.running():
            return "running"
        if self.killed:
            return "killed"
        code = self.process.returncode
        return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"

    def runtime(self) -> float:
        return (self.ended or time.monotonic()) - self.started


class ProcessManager:
    """Commands running in the background while the conversation goes on; all stopped by kill_all()."""

    def __init__(self, root: Path, max_processes: int = 5, max_output_chars: int = 20_000) -> None:
        self.root = Path(root)
        self.max_processes = max_processes
        self.max_output_chars = max_output_chars
        self._entries: dict[int, _Background] = {}
        self._next_id = 1

    def start(self, command: str, env: Mapping[str, str] | None = None) -> int:
        """Start the command (with env: see spawn); its id. ToolError when max_processes are already running."""
        running = [entry for entry in self._entries.values() if entry.running()]
        if len(running) >= self.max_processes:
            ids = ", ".join(str(entry.id) for entry in running)
            raise ToolError(f"{len(running)} background processes are already running (ids {ids}), the most "
                            f"allowed; stop one with kill_background_process first")
        process = spawn(command, self.root, subprocess.PIPE, subprocess.STDOUT, env=env)
        entry = _Background(self._next_id, command, process, Capture(self.max_output_chars), time.monotonic())
        self._next_id += 1
        entry.reader = threading.Thread(target=_read_into, args=(entry,), name=f"ayder-background-{entry.id}",
                                        daemon=True)
        entry.reader.start()
        self._entries[entry.id] = entry
        self._forget_old()
        return entry.id

    def wait(self, process_id: int, timeout_s: float) -> bool:
        """Wait up to timeout_s for the process to exit; whether it has."""
        entry = self._get(process_id)
        try:
            entry.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return False
        entry.running()  # notes when it ended
        if entry.reader is not None:
            entry.reader.join(timeout=0.2)  # the last output, unless a leftover child holds the pipe
        return True

    def output(self, process_id: int, tail: int | None = None) -> str:
        """A status line, then the output so far (its last `tail` lines if given)."""
        entry = self._get(process_id)
        status = entry.status()  # before reading the output: what a finished process wrote is all there
        with entry.lock:
            text = entry.output.render(self.max_output_chars - 300) if entry.output.total else ""
        if tail is not None:
            if tail < 1:
                raise ToolError(f"tail must be 1 or more lines, got {tail}")
            text = "\n".join(text.rstrip("\n").split("\n")[-tail:]) if text else ""
        running = status == "running"
        header = f"process {entry.id} `{short(entry.command, 60)}`: {status} {'for' if running else 'after'} " \
                 f"{_duration(entry.runtime())}"
        text = text.rstrip("\n") or ("[no output yet]" if running else "[no output]")
        return f"{header}\n{text}"

    def status(self, process_id: int) -> str:
        """"running", "exited with code N", "killed" or "killed by signal N"."""
        return self._get(process_id).status()

    def list(self) -> list[ProcessInfo]:
        return [ProcessInfo(e.id, e.command, e.status(), e.runtime()) for e in self._entries.values()]

    def kill(self, process_id: int) -> str:
        """Stop the process and its whole group; what became of it."""
        entry = self._get(process_id)
        was_running = entry.running()
        entry.stop()  # also whatever an exited shell left behind in its group
        if was_running:
            entry.killed = True
            entry.ended = time.monotonic()
        if entry.reader is not None:
            entry.reader.join(timeout=0.5)
        if was_running:
            return f"killed process {entry.id} `{short(entry.command, 60)}` after {_duration(entry.runtime())}"
        ended = entry.status().replace("killed", "been killed")
        return f"process {entry.id} `{short(entry.command, 60)}` had already {ended}"

    def kill_all(self) -> None:
        """Stop every background process and its group. Safe to call more than once, and never raises."""
        entries = [entry for entry in self._entries.values() if not entry.stopped]
        try:
            for entry in entries:
                if entry.running():
                    entry.killed = True
                    entry.ended = time.monotonic()
            kill_groups(entry.process for entry in entries)  # all at once: one grace period in all
            for entry in entries:
                entry.stopped = True
        except Exception:  # pragma: no cover - called on the way out; nothing to report to
            pass

    def _get(self, process_id: int) -> _Background:
        entry = self._entries.get(process_id)
        if entry is None:
            known = ", ".join(str(i) for i in self._entries) or "none"
            raise ToolError(f"no background process {process_id} (ids: {known}; see list_background_processes)")
        return entry

    def _forget_old(self) -> None:
        finished = [entry for entry in self._entries.values() if not entry.running()]
        for entry in finished[: max(len(finished) - KEEP_FINISHED, 0)]:
            entry.stop()  # anything it left in its group goes with it
            del self._entries[entry.id]


def _read_into(entry: _Background) -> None:
    """The reader thread: the process's output into its bounded buffer, until the pipe closes."""
    stream = entry.process.stdout
    try:
        while data := os.read(stream.fileno(), READ_CHUNK):
            with entry.lock:
                entry.output.add(data)
    except (OSError, ValueError):
        pass
    finally:
        stream.close()


def _duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"



# --- the tools


def _manager(context: ToolContext) -> ProcessManager:
    if context.processes is None:
        raise ToolError("background processes are not available")
    return context.processes


def run_background_process(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    manager = _manager(context)
    command = args["command"]
    check_command(command, context.shell_deny)
    process_id = manager.start(command, env=context.env)
    exited = manager.wait(process_id, START_PEEK_S)
    text = f"started process {process_id}\n{manager.output(process_id)}"
    if exited and manager.status(process_id) != "exited with code 0":
        return ToolResult(ok=False, output=text, error=text, summary=f"process {process_id} ended at once")
    return ToolResult(ok=True, output=text, summary=f"process {process_id} started")


def get_background_output(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    manager = _manager(context)
    text = manager.output(args["process_id"], args.get("tail"))
    return ToolResult(ok=True, output=text, summary=text.split("\n", 1)[0].split(": ", 1)[-1])


def list_background_processes(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    infos = _manager(context).list()
    if not infos:
        return ToolResult(ok=True, output="no background processes", summary="none")
    lines = [f"{info.id}  {info.status}  {_duration(info.runtime_s)}  {short(info.command, 60)}" for info in infos]
    running = sum(info.status == "running" for info in infos)
    return ToolResult(ok=True, output="\n".join(lines), summary=f"{running} running, {len(infos)} in all")


def kill_background_process(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    manager = _manager(context)
    process_id = args["process_id"]
    was_running = manager.status(process_id) == "running"
    message = manager.kill(process_id)
    last = manager.output(process_id, tail=KILL_TAIL_LINES).split("\n", 1)[1]
    summary = f"killed process {process_id}" if was_running else f"process {process_id} had already ended"
    return ToolResult(ok=True, output=f"{message}\nlast output:\n{last}", summary=summary)


def _check_background(context: ToolContext, args: dict[str, Any]) -> None:
    """No diff to show; a denied command is refused before the user is asked to confirm it."""
    check_command(str(args.get("command", "")), context.shell_deny)
    return None


_PROCESS_ID = {"type": "integer"}
_ID_ALIASES = {"id": "process_id", "pid": "process_id"}

RUN_BACKGROUND_PROCESS = ToolSpec(
    name="run_background_process",
    description="Start a long-running command (server, watcher) in the background; returns its id.",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
        "additionalProperties": False,
    },
    permission="x",
    run=run_background_process,
    group="processes",
    aliases={"cmd": "command"},
    preview=_check_background,
)

GET_BACKGROUND_OUTPUT = ToolSpec(
    name="get_background_output",
    description="Status and output so far of a background process.",
    parameters={
        "type": "object",
        "properties": {
            "process_id": _PROCESS_ID,
            "tail": {"type": "integer", "description": "last N lines only"},
        },
        "required": ["process_id"],
        "additionalProperties": False,
    },
    permission="r",
    run=get_background_output,
    group="processes",
    aliases={**_ID_ALIASES, "lines": "tail"},
)

LIST_BACKGROUND_PROCESSES = ToolSpec(
    name="list_background_processes",
    description="List background processes: id, status, runtime, command.",
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    permission="r",
    run=list_background_processes,
    group="processes",
)

KILL_BACKGROUND_PROCESS = ToolSpec(
    name="kill_background_process",
    description="Stop a background process and all it started.",
    parameters={
        "type": "object",
        "properties": {"process_id": _PROCESS_ID},
        "required": ["process_id"],
        "additionalProperties": False,
    },
    permission="x",
    run=kill_background_process,
    group="processes",
    aliases=_ID_ALIASES,
)

PROCESS_TOOLS = [RUN_BACKGROUND_PROCESS, GET_BACKGROUND_OUTPUT, LIST_BACKGROUND_PROCESSES,
                 KILL_BACKGROUND_PROCESS]
