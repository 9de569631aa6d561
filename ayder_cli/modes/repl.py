"""The interactive REPL and the piped-script reader: one way to handle each entry.

An entry is one line, or a block between two lines that hold only three
double quotes. A line starting with '/' is a slash command, anything else is a
prompt for the model. A script line is handled exactly as a typed one.
"""

from __future__ import annotations

import io
import os
import time
from enum import Enum
from pathlib import Path
from typing import IO, Callable, Iterator, Mapping

from ayder_cli.terminal.commands import CommandResult, command_help, run_command
from ayder_cli.setup.config import Config
from ayder_cli.storage.xdg import xdg_state_dir
from ayder_cli.terminal.console import Console
from ayder_cli.setup.deferred import Deferred
from ayder_cli.errors import AyderError, ExitStatus
from ayder_cli.terminal.signals import raise_if_terminated
from ayder_cli.storage.layout import Layout

BLOCK_FENCE = '"""'
CHECKPOINT_THERE = "a checkpoint from an earlier run is in .ayder/memory/current_memory.md"


class Outcome(Enum):
    OK = "ok"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    EXIT = "exit"


def read_entries(
    read_line: Callable[[bool], str],
    on_unclosed: Callable[[], None],
    on_cancelled: Callable[[], None] | None = None,
) -> Iterator[str]:
    """Entries from lines; read_line(in_block) returns a line or raises EOFError at the end.

    With on_cancelled, Ctrl-C inside a block discards the block (the REPL);
    without it, Ctrl-C propagates (a piped script stops).
    """
    while True:
        try:
            line = read_line(False)
        except EOFError:
            return
        if line.strip() != BLOCK_FENCE:
            if line.strip():
                yield line.strip()
            continue
        block: list[str] = []
        try:
            while (line := read_line(True)).strip() != BLOCK_FENCE:
                block.append(line)
        except EOFError:
            on_unclosed()
            if any(part.strip() for part in block):
                yield "\n".join(block)
            return
        except KeyboardInterrupt:
            if on_cancelled is None:
                raise
            on_cancelled()
            continue
        if any(part.strip() for part in block):
            yield "\n".join(block)


def handle_entry(services, text: str) -> Outcome:
    """Run one entry: a slash command or a prompt. Errors are reported, not raised."""
    if text.startswith("/"):
        result = run_command(text, services)
        return {CommandResult.OK: Outcome.OK, CommandResult.FAILED: Outcome.FAILED}.get(result, Outcome.EXIT)
    try:
        result = services.loop.run(text)
    except AyderError as exc:
        services.console.error(exc.message, exc.hint)
        return Outcome.FAILED
    if result.interrupted:
        return Outcome.INTERRUPTED
    return Outcome.FAILED if result.stopped else Outcome.OK  # the loop gave up before an answer


def run_script(services, stdin: IO[str]) -> int:
    """Piped script: every entry in order; go on after a failure, exit 1 if any failed."""

    def read_line(in_block: bool) -> str:
        line = stdin.readline()
        services.console.say_replaced_stdin()
        if not line:
            raise EOFError
        return line.rstrip("\n").rstrip("\r")

    def unclosed() -> None:
        services.console.notice('end of input inside a """ block; sending what it holds')

    failed = False
    for entry in read_entries(read_line, unclosed):
        outcome = handle_entry(services, entry)
        if outcome is Outcome.INTERRUPTED:
            return ExitStatus.INTERRUPTED
        if outcome is Outcome.EXIT:
            break
        failed = failed or outcome is Outcome.FAILED
    return ExitStatus.ERROR if failed else ExitStatus.OK


def history_path(env: Mapping[str, str]) -> Path:
    return xdg_state_dir(env) / "history"


def run_repl(services: Deferred, console: Console, config: Config, root: Path, env: Mapping[str, str]) -> int:
    """Interactive: prompt_toolkit line editing, history, completion of slash commands.

    `services` are built at the first entry (or before the prompt when cli needed them first):
    the prompt is ready to type in before the HTTP stack, the parser and the tools are loaded.
    """
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_input
    from prompt_toolkit.output import create_output

    terminal = console.terminal
    # Keys come from this run's stdin, the prompt goes to its stdout, or to stderr when stdout is
    # redirected, so `ayder > log` stays clean.
    output = create_output(stdout=terminal.stdout if terminal.stdout_is_tty else terminal.stderr)
    with create_app_session(input=create_input(terminal.stdin), output=output):
        session = _prompt_session(env, None if terminal.stdout_is_tty else output, terminal.no_color)

        leave = CtrlCToLeave(lambda: console.dim_line(LEAVE_HINT))

        def read_line(in_block: bool) -> str:
            while True:
                try:
                    line = session.prompt("... " if in_block else "> ")
                except KeyboardInterrupt:
                    raise_if_terminated()
                    if in_block:
                        raise
                    if leave.pressed(empty=not session.default_buffer.text.strip()):
                        raise EOFError from None  # twice at an empty prompt: leave, as Ctrl-D does
                    continue  # Ctrl-C at the prompt clears the line
                raise_if_terminated()  # a SIGTERM or SIGHUP as the prompt returned
                leave.reset()
                return line

        if services.built:
            config = services.get().config  # with the server that was looked for
        console.dim_line(
            f"ayder · {config.provider} {config.resolved_model} at {config.resolved_base_url} · "
            "/help for commands, Ctrl-D to leave"
        )
        if Layout(root).checkpoint.is_file():  # asked of the path: no checkpoint, nothing to build yet
            offer_checkpoint(services.get(), ask=session.prompt)
        for entry in read_entries(read_line, lambda: None, lambda: console.dim_line("block discarded")):
            try:
                if handle_entry(services.get(), entry) is Outcome.EXIT:
                    break
            except KeyboardInterrupt:  # Ctrl-C in a slash command: back to the prompt
                console.notice("interrupted")
    return ExitStatus.OK  # /exit or Ctrl-D


LEAVE_HINT = "Ctrl-C again within a second leaves (so does Ctrl-D or /exit)"


class CtrlCToLeave:
    """Ctrl-C at an empty prompt twice within `window_s` leaves; the first one, the first time, says so."""

    def __init__(self, hint: Callable[[], None], window_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hint, self.window_s, self.clock = hint, window_s, clock
        self.last: float | None = None
        self.hinted = False

    def pressed(self, empty: bool) -> bool:
        """One Ctrl-C at the prompt; True when it is the second at an empty prompt in time."""
        now = self.clock()
        if not empty:  # it cleared a line: a later Ctrl-C starts afresh
            self.last = None
            return False
        if self.last is not None and now - self.last <= self.window_s:
            return True
        self.last = now
        if not self.hinted:
            self.hinted = True
            self.hint()
        return False

    def reset(self) -> None:
        self.last = None


def _prompt_session(env: Mapping[str, str], output, no_color: bool):
    """The prompt: history in the state directory, slash commands completed. output None: the app
    session's (a dumb terminal then gets prompt_toolkit's plain prompt). no_color: the completion
    menu in black and white (prompt_toolkit reads NO_COLOR only from the process's environment)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.output import ColorDepth

    history_file = history_path(env)
    try:
        history_file.parent.mkdir(parents=True, exist_ok=True)
        history = FileHistory(str(history_file))
    except OSError:
        history = InMemoryHistory()
    return PromptSession(
        history=history,
        completer=command_completer(),
        complete_while_typing=True,
        output=output,
        color_depth=ColorDepth.MONOCHROME if no_color else None,
    )


def command_completer():
    """Slash commands completed at the start of the line, each shown with its short help."""
    from prompt_toolkit.completion import WordCompleter

    helps = command_help()
    return WordCompleter(list(helps), meta_dict=helps, sentence=True, pattern=None)


def offer_checkpoint(services, restore: bool = False, ask: Callable[[str], str] | None = None) -> None:
    """A checkpoint left by an earlier run: --restore starts from it; the REPL asks (`ask` puts a
    question and reads the answer); other modes say it is there and how to use it."""
    from ayder_cli.agent.checkpoint import restore_message

    memory, console = services.loop.checkpoints, services.console
    if memory is None or not memory.exists():
        if restore:
            console.notice("--restore: there is no checkpoint in .ayder/memory/; starting fresh")
        return
    if restore or (ask is not None and _wants_the_checkpoint(services, ask)):
        services.conversation.add_user(restore_message(memory.summary(), 1))
        console.dim_line("restored the checkpoint from .ayder/memory/current_memory.md")
    elif ask is None:
        console.notice(f"{CHECKPOINT_THERE}; ayder --restore continues from it "
                       "(/memory shows it, /memory clear removes it)")


def _wants_the_checkpoint(services, ask: Callable[[str], str]) -> bool:
    """The REPL's question; a resumed session goes on where it was, unasked."""
    if services.conversation.messages:
        return False
    services.console.notice(CHECKPOINT_THERE)
    try:
        answer = ask("Restore it? [y/N] ")
    except (KeyboardInterrupt, EOFError):
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def read_piped_stdin(stdin: IO[str] | None, wait_s: float = 1.0) -> str | None:
    """Context piped in beside a prompt; never hangs on an open pipe that nobody writes to.

    A file, /dev/null or a stream with no file descriptor is read at once. For a pipe, wait up
    to `wait_s` for the first byte (or EOF); if nothing comes, return None and leave stdin alone.
    """
    import select
    import stat

    if stdin is None:
        return None
    try:
        fd = stdin.fileno()
    except io.UnsupportedOperation:  # a stream in memory (a test's StringIO): all there, read at once
        return stdin.read()
    except (OSError, ValueError):
        return None
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
        return stdin.read()
    if os.isatty(fd):
        return None
    ready, _, _ = select.select([fd], [], [], wait_s)
    if not ready:
        return None
    return stdin.read()
