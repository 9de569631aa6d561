"""Commands about this conversation's session: /clear (/reset), /sessions, /save, /undo, /diff."""

from __future__ import annotations

from ayder_cli.repl.commands.git_commands import undo_note
from ayder_cli.repl.commands.registry import CommandContext, CommandResult, command
from ayder_cli.wording import counted


@command("clear", "reset", help="start a new conversation (and session) with the same system prompt")
def _clear(context: CommandContext, args: str) -> None:
    # As Codex's /clear and /new: a new session too; the last one stays listed in /sessions.
    answered = any(message["role"] == "assistant" for message in context.session.conversation.messages)
    current = context.session.keeper.current
    earlier = current.id if current and answered else None  # else not kept
    context.session.reset()
    context.console.info(f"new conversation; the last one is kept: ayder --resume {earlier}" if earlier
                         else "new conversation")


@command("sessions", help="list this project's saved sessions (resume one with --resume ID)")
def _sessions(context: CommandContext, args: str) -> None:
    sessions = context.session.keeper.saved()
    for info in sessions:
        context.console.info(f"  {info.describe()}")
    context.console.info(f"{counted(len(sessions), 'session')}; "
                         "ayder --continue resumes the latest, --resume ID a given one")


@command("save", usage="NAME", help="name the current session, so --resume NAME finds it")
def _save(context: CommandContext, args: str) -> CommandResult | None:
    if not args:
        context.console.error("/save needs a name", "e.g. /save refactor-auth")
        return CommandResult.FAILED
    transcript = context.session.keeper.current
    if transcript is None:
        context.console.error("this session has no transcript")
        return CommandResult.FAILED
    transcript.name(args)  # a SessionError is an AyderError: printed as one
    context.console.info(f"saved as {args}; resume it with: ayder --resume {args}")
    return None


@command("undo", usage="[list|force]", help="undo the newest file change a tool made (repeatable)")
def _undo(context: CommandContext, args: str) -> CommandResult | None:
    journal = context.session.journal
    if journal is None:
        context.console.error("undo is unavailable in this session (no change journal)")
        return CommandResult.FAILED
    if args == "list":
        entries = journal.entries()
        for number, entry in enumerate(reversed(entries), 1):
            origin = "earlier run" if journal.is_earlier(entry) else "this run"
            lost = f"; content not kept: {entry.not_kept}" if not entry.restorable else ""
            context.console.info(f"  {number}. {entry.describe()}  {entry.at.astimezone():%Y-%m-%d %H:%M:%S}, "
                                 f"{origin}{lost}")
        context.console.info(f"{counted(len(entries), 'change')} to undo, newest first")
        return None
    if args not in ("", "force"):
        context.console.error(f"unknown /undo argument {args!r}", "use /undo, /undo list or /undo force")
        return CommandResult.FAILED
    git_note = undo_note(context, journal.entries())  # the undone change's commit, asked of git before undo
    context.console.info(journal.undo(force=args == "force"))  # UndoError is an AyderError: printed as one
    if git_note:
        context.console.info(git_note)
    return None


@command("diff", help="show what ayder changed in this session: each file against how it was before")
def _diff(context: CommandContext, args: str) -> CommandResult | None:
    from ayder_cli.terminal.session_diff import session_diff  # its diff helpers only when asked for

    journal = context.session.journal
    if journal is None:
        context.console.error("/diff is unavailable in this session (no change journal)")
        return CommandResult.FAILED
    for line in session_diff(journal, context.console.color):
        context.console.painted_line(line)
    return None
