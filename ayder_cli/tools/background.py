"""Background processes: commands that run while the conversation goes on (ProcessManager),
and the four tools that start, read, list and stop them."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.tools.spec import ToolContext, ToolSpec
from ayder_cli.processes.capture import READ_CHUNK, Capture
from ayder_cli.command_policy.deny import check_command
from ayder_cli.tools.shell import refuse_before_asking
from ayder_cli.processes.process_groups import kill_group, kill_groups, spawn
from ayder_cli.processes.sandbox_refusals import refused_line
from ayder_cli.wording import short

START_PEEK_S = 0.5  # run_background_process waits this long, so a command that fails at once says why
KEEP_FINISHED = 20  # finished processes remembered (with their output) for get_background_output
KILL_TAIL_LINES = 20  # lines of output shown when a process is killed


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

    def poll_ended(self) -> bool:
        """Whether it has exited; the first time it is found so, when it ended is noted."""
        if self.process.poll() is None:
            return False
        if self.ended is None:
            self.ended = time.monotonic()
        return True

    def status(self) -> str:
        if not self.poll_ended():
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

    def start(self, command: str, env: Mapping[str, str] | None = None, sandbox=None) -> int:
        """Start the command (with env and sandbox: see spawn); its id. ToolError when max_processes are already running."""
        running = [entry for entry in self._entries.values() if not entry.poll_ended()]
        if len(running) >= self.max_processes:
            ids = ", ".join(str(entry.id) for entry in running)
            raise ToolError(f"{len(running)} background processes are already running (ids {ids}), the most "
                            f"allowed; stop one with kill_background_process first")
        process = spawn(command, self.root, subprocess.PIPE, subprocess.STDOUT, env=env, sandbox=sandbox)
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
        entry.poll_ended()
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
        was_running = not entry.poll_ended()
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
                if not entry.poll_ended():
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
        finished = [entry for entry in self._entries.values() if entry.poll_ended()]
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
    process_id = manager.start(command, env=context.env, sandbox=context.sandbox)
    exited = manager.wait(process_id, START_PEEK_S)
    text = _with_refusal(context, f"started process {process_id}\n{manager.output(process_id)}")
    if exited and manager.status(process_id) != "exited with code 0":
        return ToolResult(ok=False, output=text, error=text, summary=f"process {process_id} ended at once")
    return ToolResult(ok=True, output=text, summary=f"process {process_id} started")


def get_background_output(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    manager = _manager(context)
    text = _with_refusal(context, manager.output(args["process_id"], args.get("tail")))
    return ToolResult(ok=True, output=text, summary=text.split("\n", 1)[0].split(": ", 1)[-1])


def _with_refusal(context: ToolContext, text: str) -> str:
    """The output, and a last line when it shows a write the sandbox refused."""
    refused = refused_line(context.sandbox, text)
    return f"{text}\n{refused}" if refused else text


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
    preview=refuse_before_asking,
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

BACKGROUND_TOOLS = [RUN_BACKGROUND_PROCESS, GET_BACKGROUND_OUTPUT, LIST_BACKGROUND_PROCESSES,
                    KILL_BACKGROUND_PROCESS]
