"""`!command`: the user's own shell command, typed at the REPL (or written in a script).

It is not a tool call: no permission is asked, no sandbox or deny list applies,
and the model sees nothing of it -- unless the line starts with `!!`, which adds
the command and its output (cut in its middle as run_shell_command's is) to the
conversation as a user message. It runs in the project directory with the
user's environment and stdin closed; its output (stdout and stderr together) is
shown as it arrives, on stderr with ayder's other activity, so stdout keeps only
the model's answers. Ctrl-C stops it (its whole process group) and returns to
the prompt.
"""

from __future__ import annotations

import codecs
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ayder_cli.errors import ToolError
from ayder_cli.processes.capture import READ_CHUNK, Capture
from ayder_cli.processes.process_groups import COMMAND_SHELL, group_alive, kill_group, spawn

if TYPE_CHECKING:
    from ayder_cli.session.session import Session

POLL_S = 0.05  # how often a quiet command is checked on
PIPE_GRACE_S = 0.3  # after the shell exits, how long what it left behind may still write
FRAME_ROOM = 300  # characters of the conversation message kept for its frame


@dataclass
class UserCommandRun:
    status: int | None  # the exit status; None: stopped with Ctrl-C
    output: Capture  # its head and tail, for the conversation
    leftovers: bool = False  # it left processes running, which were stopped


def handle_user_command(session: Session, line: str) -> int | None:
    """One `!` or `!!` line, shown on the terminal: its exit status (1: no command); None: stopped with Ctrl-C."""
    command, share = parse(line)
    console = session.console
    if not command:
        console.error("! needs a command after it", "e.g. !git status; !!git status also shows it to the model")
        return 1
    console.start_block()
    ended_line = [True]  # the output shown so far ends its line

    def show(text: str) -> None:
        if text:
            console.err.write(text)
            console.err.flush()
            ended_line[0] = text.endswith("\n")

    max_chars = session.executor.context.max_output_chars
    try:
        run = run_user_command(command, session.root, session.environment.env, show, max_chars)
    except ToolError as exc:  # /bin/sh could not be started
        console.error(str(exc))
        return 1
    if not ended_line[0]:
        show("\n")
    (console.dim_line if run.status == 0 else console.notice)(status_line(run))
    if share:
        session.conversation.add_user(for_the_model(command, run, max_chars))
        console.dim_line("the command and its output were added to the conversation")
    return run.status


def parse(line: str) -> tuple[str, bool]:
    """A `!` line -> (the command, whether the model is to see it: `!!`)."""
    share = line.startswith("!!")
    return line[2 if share else 1:].strip(), share


def run_user_command(command: str, root: Path, env: Mapping[str, str], show: Callable[[str], None],
                     keep: int) -> UserCommandRun:
    """Run `command` with /bin/sh in root, showing its output as it arrives; Ctrl-C stops it."""
    process = spawn(command, root, subprocess.PIPE, subprocess.STDOUT, env=dict(env))
    run = UserCommandRun(None, Capture(keep))
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        fd = process.stdout.fileno()
        exited_at = None
        while True:
            if select.select([fd], [], [], POLL_S)[0]:
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                run.output.add(chunk)
                show(decoder.decode(chunk))
            elif process.poll() is not None:  # the shell is done; something it started may hold the pipe
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > PIPE_GRACE_S:
                    break
        show(decoder.decode(b"", final=True))
        process.wait()
        if group_alive(process.pid):
            run.leftovers = True
            kill_group(process)
        run.status = process.returncode
    except KeyboardInterrupt:
        kill_group(process)
    finally:
        process.stdout.close()
    return run


def status_line(run: UserCommandRun) -> str:
    """How the command ended, in a few words."""
    if run.status is None:
        ended = "stopped (Ctrl-C)"
    elif run.status < 0:
        ended = f"killed by {_signal_name(-run.status)}"
    else:
        ended = f"exit status {run.status}"
    return ended + ("; the processes it left running were stopped" if run.leftovers else "")


def for_the_model(command: str, run: UserCommandRun, max_chars: int) -> str:
    """The user message `!!` adds: the command, how it ended, its output cut to fit max_chars."""
    output = run.output.render(max(max_chars - len(command) - FRAME_ROOM, 200)).rstrip("\n")
    shown = f"Its output:\n{output}" if run.output.total else "It printed nothing."
    return (f"I ran this command myself in the project directory ({COMMAND_SHELL}):\n$ {command}\n"
            f"It ended: {status_line(run)}. {shown}")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
