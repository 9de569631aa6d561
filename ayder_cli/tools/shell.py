"""run_shell_command: one command in the project root, in its own process group, with a timeout.

Nothing it starts outlives it: when the shell ends, times out or is interrupted,
whatever is left in its process group is stopped (SIGTERM, a short grace, then
SIGKILL). stdout and stderr share one pipe, so their lines stay in the order the
command wrote them (two pipes read together cannot say which came first), as on a
terminal and as `!cmd` and background processes show them. The pipe is read
without threads through select(), keeping only its head and tail, so a command that
prints gigabytes costs little memory, and a leftover child holding the pipe open
cannot keep ayder waiting.
"""

from __future__ import annotations

import math
import os
import selectors
import subprocess
import time
from typing import Any

from ayder_cli.calls import ToolResult
from ayder_cli.errors import ToolError
from ayder_cli.tools.spec import OutputWatch, ToolContext, ToolSpec
from ayder_cli.processes.capture import READ_CHUNK, Capture
from ayder_cli.command_policy.deny import check_command
from ayder_cli.processes.process_groups import group_alive, kill_group, spawn
from ayder_cli.processes.sandbox_refusals import refused_line

PIPE_GRACE_S = 0.3  # after the shell exits, how long output from what it left behind is still awaited
POLL_S = 0.05  # how often the shell is checked on while its pipes are quiet
FRAME_ROOM = 400  # characters kept for the status lines and the section headers
OUTPUT_HEADER = "--- output ---"  # above what the command wrote, stdout and stderr together


def refuse_before_asking(context: ToolContext, args: dict[str, Any]) -> None:
    """The preview of a tool that runs a command: no diff to show, but a denied command is
    refused here, before the user is asked to confirm it."""
    check_command(str(args.get("command", "")), context.shell_deny)


def run_shell_command(context: ToolContext, args: dict[str, Any]) -> ToolResult:
    command = args["command"]
    check_command(command, context.shell_deny)
    timeout, notes = _timeout(args.get("timeout_s"), context.shell_timeout_s)
    keep = max(context.max_output_chars - FRAME_ROOM, 200)
    watch = context.watch(command) if context.watch else None
    process = spawn(command, context.root, subprocess.PIPE, subprocess.STDOUT, env=context.env,
                    sandbox=context.sandbox)
    timed_out = leftovers = False
    try:
        streams = {process.stdout: Capture(keep)}
        timed_out = _pump(process, streams, time.monotonic() + timeout, watch)
        if timed_out or group_alive(process.pid):
            leftovers = not timed_out  # the shell is done, but something it started is still running
            kill_group(process)
            _pump(process, streams, time.monotonic() + PIPE_GRACE_S, watch)  # what they wrote before they died
    except BaseException:  # Ctrl-C, SIGTERM, SIGHUP: stop everything, then let the caller handle it
        kill_group(process)
        raise
    finally:
        process.stdout.close()
        if watch is not None:
            watch.end()  # also on Ctrl-C: the view leaves the cursor on a fresh line
    out = streams[process.stdout]
    if leftovers:
        notes.append("note: processes it left running in the background were stopped; "
                     "use run_background_process for a server or a watcher")
    refused = refused_line(context.sandbox, out.render(keep))
    if refused:
        notes.append(refused)
    longer = "use run_background_process" if timeout >= context.shell_timeout_s else \
        "pass a larger timeout_s or use run_background_process"
    result = _result(process.returncode, out, keep, timeout if timed_out else None, notes, longer)
    if refused:  # the user reads it on the activity line, not only the model in the result
        result.summary = f"{result.summary}; {refused}"
    return result


def _timeout(requested: float | None, limit: float) -> tuple[float, list[str]]:
    """The model's timeout_s, never above the user's shell_timeout_s; and a note when it was capped.

    The user's limit is the most a command may take, whatever the model asks: 1e9 or
    infinity would hang ayder on a command that never ends. 0 or nothing means the limit.
    """
    if not requested:
        return limit, []
    if isinstance(requested, float) and math.isnan(requested) or requested < 0:
        raise ToolError(f"timeout_s must be a number of seconds above 0, got {requested}")
    if requested > limit:
        asked = requested if requested < 1e308 else math.inf  # an integer too big for a float: inf
        return limit, [f"note: timeout capped at {limit:g} s (shell_timeout_s, the user's limit; "
                       f"timeout_s {asked:g} was asked)"]
    return requested, []


def _pump(process: subprocess.Popen, streams: dict[Any, Capture], deadline: float,
          watch: OutputWatch | None = None) -> bool:
    """Read the pipes until the shell has exited and they are closed; True if the deadline came first.

    Once the shell has exited, pipes still held open by something it started are
    read for at most PIPE_GRACE_S more. `watch` sees each chunk as it is read.
    """
    selector = selectors.DefaultSelector()
    number = {stream: index for index, stream in enumerate(streams, start=1)}  # stdout 1, stderr 2
    for stream in streams:
        if not stream.closed:
            selector.register(stream, selectors.EVENT_READ)
    exited_at = None
    try:
        while True:
            if watch is not None:
                watch.tick()
            now = time.monotonic()
            if process.poll() is not None:
                exited_at = exited_at or now
                if not selector.get_map() or now - exited_at >= PIPE_GRACE_S:
                    return False
            if now >= deadline:
                return True
            wait = min(POLL_S, deadline - now)
            if not selector.get_map():  # both pipes closed, the shell still running
                time.sleep(wait)
                continue
            for key, _ in selector.select(timeout=wait):
                data = os.read(key.fd, READ_CHUNK)
                if data:
                    streams[key.fileobj].add(data)
                    if watch is not None:
                        watch.output(number[key.fileobj], data)
                else:
                    selector.unregister(key.fileobj)
    finally:
        selector.close()


def _result(code: int | None, out: Capture, keep: int, timed_out_after: float | None,
            notes: list[str], longer: str) -> ToolResult:
    """The result the model reads; `longer` says how to give a command more time."""
    lines = []
    if timed_out_after is not None:
        summary = f"timed out after {timed_out_after:g} s"
        lines.append(f"{summary}; the command and everything it started were stopped "
                     f"(for a longer run, {longer})")
    elif code is not None and code >= 0:
        summary = f"exit code {code}"
        lines.append(summary)
    else:
        summary = f"killed by signal {-(code or 0)}"
        lines.append(summary)
    lines.extend(notes)
    lines.append(f"{OUTPUT_HEADER}\n" + out.render(keep).rstrip("\n") if out.total else "[no output]")
    text = "\n".join(lines)
    if code == 0 and timed_out_after is None:
        return ToolResult(ok=True, output=text, summary=summary)
    return ToolResult(ok=False, output=text, error=text, summary=summary)


RUN_SHELL_COMMAND = ToolSpec(
    name="run_shell_command",
    description="Run a /bin/sh command in the project root, stdin empty; returns exit code and stdout+stderr.",
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout_s": {"type": "number"},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    permission="x",
    run=run_shell_command,
    aliases={"cmd": "command", "timeout": "timeout_s"},
    preview=refuse_before_asking,
)
