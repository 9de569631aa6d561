"""Entries, as the REPL and a piped script share them: one way to read them and one way to handle each.

An entry is one line, or a block between two lines that hold only three
double quotes. A line starting with '/' is a slash command, one starting with
'!' the user's own shell command (user_command.py), anything else is a prompt
for the model, with the files it names as `@path` attached (attachments.py).
A script line is handled exactly as a typed one. `/NAME args` of a custom command or a skill
(skills/) sends its text as the prompt; a built-in command of that name wins.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Callable, Iterator

from ayder_cli.errors import AyderError
from ayder_cli.modes.oneshot import ended_on_a_failed_check
from ayder_cli.repl.commands import COMMANDS, CommandContext, CommandResult, ModeCommands, run_command

if TYPE_CHECKING:
    from ayder_cli.session.session import Session

BLOCK_FENCE = '"""'


class EntryOutcome(Enum):
    """How one entry ended, for the mode that reads them."""

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


def handle_entry(session: Session, text: str) -> EntryOutcome:
    """Run one entry: a slash command or a prompt. Errors are reported, not raised."""
    custom = session.skills.prompt_for(text, COMMANDS) if text.startswith("/") and session.skills else None
    if text.startswith("/") and custom is None:
        ran = run_command(text, command_context(session))
        return {CommandResult.OK: EntryOutcome.OK, CommandResult.FAILED: EntryOutcome.FAILED}.get(
            ran, EntryOutcome.EXIT)
    if custom is None and text.startswith("!"):  # a command's text starting with ! is a prompt too: never run
        from ayder_cli.modes.user_command import handle_user_command  # subprocess and the rest, when used

        status = handle_user_command(session, text)
        return EntryOutcome.INTERRUPTED if status is None else EntryOutcome.OK if status == 0 else EntryOutcome.FAILED
    typed = text  # what auto_commit's message names: the line, not the files attached to it
    text = custom or text  # a custom command or a skill run as /NAME: its text is the prompt
    try:
        if "@" in text:
            from ayder_cli.modes.attachments import attach_files  # read_file's module, when a line has an @

            text = attach_files(text, session.executor.context, session.console.dim_line)
        denials = session.executor.denials
        result = session.run(text, typed)
    except AyderError as exc:
        session.console.error(exc.message, exc.hint)
        return EntryOutcome.FAILED
    if result.interrupted:
        return EntryOutcome.INTERRUPTED
    if result.stopped or ended_on_a_failed_check(session, result):  # no answer, or one on a failing check
        return EntryOutcome.FAILED
    if session.executor.denials > denials:  # what it asked for was not done, as a denied /plan
        return EntryOutcome.FAILED
    return EntryOutcome.OK


def command_context(session: Session) -> CommandContext:
    """What the slash commands may use of this run's session; the modes they start are given from here."""

    def implement(identifier: str) -> tuple[int, str]:
        from ayder_cli.modes.implement import implement_task  # loaded when asked for: the prompt comes sooner

        return implement_task(session, identifier)

    def implement_all() -> int:
        from ayder_cli.modes.implement import implement_all as run_all

        return run_all(session)

    def doctor() -> int:
        from ayder_cli.modes.doctor import run_doctor  # the heaviest of them: only when asked for

        return run_doctor(session, in_session=True)

    return CommandContext(console=session.console, session=session,
                          modes=ModeCommands(implement=implement, implement_all=implement_all, doctor=doctor))
