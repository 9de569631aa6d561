"""SessionKeeper: which session this conversation is saved to, and switching it.

Every message is appended to the current session's transcript as it happens,
and the tools' undo journal is kept beside it. --continue and --resume ID bring
an earlier session back (messages, usage and undo journal) unless another ayder
is writing to it; /reset and each --implement-all task start a new one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ayder_cli.agent.usage import SessionUsage
from ayder_cli.masking import Secrets
from ayder_cli.storage.sessions import Session, SessionInfo, SessionInUse, SessionStore
from ayder_cli.storage.transcript import SessionError, usage_of
from ayder_cli.storage.transcript import load as load_session
from ayder_cli.storage.undo import UndoJournal
from ayder_cli.storage.undo_store import UndoStore
from ayder_cli.terminal.console import Console
from ayder_cli.tools.spec import ToolContext
from ayder_cli.wording import counted


class SessionKeeper:
    def __init__(self, store: SessionStore, *, usage: SessionUsage, tools: ToolContext, console: Console,
                 secrets: Secrets, undo_root: Path) -> None:
        self.store = store  # transcripts under .ayder/sessions/
        self.current: Session | None = None  # the transcript this conversation is appended to
        self.usage = usage  # the conversation's tokens, saved with each reply
        self.tools, self.console, self.secrets = tools, console, secrets
        self.undo_root = undo_root  # what the journal's paths are relative to: it holds all ayder writes

    @property
    def journal(self) -> UndoJournal | None:
        """What /undo restores: the current session's journal, which the tools write to."""
        return self.tools.journal

    def saved(self) -> list[SessionInfo]:
        """This project's saved sessions (/sessions)."""
        return self.store.list_sessions()

    def start(self) -> None:
        """The first session of the run; a conversation resumed later replaces it."""
        self._switch(self.store.start())

    def record(self, message: dict[str, Any]) -> None:
        """Append one message to the transcript as it happens; a failing disk does not stop the chat."""
        if self.current is None:
            return
        try:
            self.current.append(message)
            if message.get("role") == "assistant":  # the request's tokens are counted by now
                self.current.append_usage(self.usage.totals(), self.usage.last_reply)
        except SessionError as exc:
            self.console.notice(f"the session transcript stopped: {exc.message}")
            self.current = None

    def new(self) -> None:
        """A new conversation gets a new transcript and undo journal."""
        self._switch(self.store.start())

    def resume(self, identifier: str | None, fail_in_use: bool = False) -> list[dict[str, Any]] | None:
        """--continue (identifier None: the latest) or --resume ID: the transcript's messages (returned, for
        the conversation), its usage and the undo journal come back -- unless another ayder is writing to that
        session (fail_in_use: then SessionInUse; else a new session goes on, and None)."""
        path = self.store.latest() if identifier is None else self.store.find(identifier)
        if path is None:
            self.console.notice("no earlier session in this project; starting a new one")
            return None
        session = Session.resume(path, self.store.redact)
        holder = session.lock()
        if holder is not None:
            self._in_use(f"session {session.id} is in use by {holder.describe()}", fail_in_use)
            return None
        if session.lock_error:
            self.console.log(f"session {session.id} is not locked ({session.lock_error})")
        try:
            messages, warnings = load_session(path)
        except SessionError:
            session.close()
            raise
        for warning in warnings:
            self.console.notice(warning)
        self.usage.restore(usage_of(path) or {})  # /usage goes on from the earlier runs
        self._switch(session, resumed=True)
        changes = len(self.journal)
        undo = f", {counted(changes, 'change')} to /undo" if changes else ""
        self.console.dim_line(f"resumed session {session.id}: {counted(len(messages), 'message')}{undo}")
        return messages

    def close(self) -> None:
        """At exit: another ayder may --continue this session now; one this run started that never
        got a reply is removed (a failed run leaves no transcript)."""
        if self.current is not None:
            self.current.close(keep_unanswered=False)

    def _in_use(self, in_use: str, fail: bool) -> None:
        """The session asked for has another writer: start a new one (the default) or stop with exit 1."""
        if fail:
            raise SessionInUse(in_use, hint="wait until it ends, or start without --continue/--resume")
        self.console.notice(f"{in_use}; starting a new session")

    def _switch(self, session: Session, resumed: bool = False) -> None:
        """From now on, messages go to session and /undo uses its journal; the old one is let go."""
        if self.current is not None and self.current is not session:
            self.current.close(keep_unanswered=False)
        self.current = session
        self.tools.journal = session_journal(session, self.undo_root, self.console, self.secrets, resumed=resumed)
        self.tools.seen.forget()  # the new session's model has read nothing yet


def session_journal(session: Session, root: Path, console: Console, secrets: Secrets,
                    resumed: bool = False) -> UndoJournal:
    """The undo journal kept beside the session's transcript; resumed: with the entries of earlier runs."""
    journal = UndoJournal(UndoStore(session.undo_dir, root), warn=console.notice,
                          holds_secret=lambda data: secrets.contains(data.decode("utf-8", "replace")))
    if resumed:
        for warning in journal.load():
            console.notice(warning)
    return journal
