"""auto_commit: after each turn that changed files, a commit of those files, its message naming the request.

A turn's files are the undo journal's entries made during it. Files a turn changed back to what
the last commit holds make no commit, and nothing is said; a refusal (no work tree, a detached
HEAD, a merge in progress, a hook that said no) is said in one line and the session goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ayder_cli.session.commit import CommitRefused, Committed, WorkTree, commit_files, cut_line
from ayder_cli.storage.undo import UndoJournal

PREFIX = "ayder: "
MAX_SUBJECT = 72  # git's own advice for a subject line


class TurnFiles:
    """The files written from now on: marked before a turn, read after it."""

    def __init__(self, journal: UndoJournal | None) -> None:
        self.journal = journal
        self.before = {entry.number for entry in journal.entries()} if journal is not None else set()

    def written(self) -> list[Path]:
        if self.journal is None:
            return []
        return list(dict.fromkeys(entry.path for entry in self.journal.entries() if entry.number not in self.before))

    def in_session(self) -> list[Path]:
        """Every file the session wrote, this turn's and earlier ones'."""
        return [entry.path for entry in self.journal.first_changes()] if self.journal is not None else []


def commit_after(tree: WorkTree, files: TurnFiles, request: str, *, info: Callable[[str], None],
                 notice: Callable[[str], None]) -> None:
    """After a turn (Session.run): its files committed and said (info), or the refusal said in one line."""
    try:
        committed = commit_turn(tree, files, request)
    except CommitRefused as exc:
        notice(f"auto_commit: {exc.message}")
        return
    if committed is not None:
        info(f"auto_commit: {committed.describe()}")


def commit_turn(tree: WorkTree, files: TurnFiles, request: str) -> Committed | None:
    """Commit what the turn wrote; None when it wrote nothing that differs from the last commit.
    CommitRefused when git cannot or will not commit."""
    written = files.written()
    if not written:
        return None
    return commit_files(tree, written, turn_message(request), unchanged_is_refused=False,
                        written=files.in_session())


def turn_message(request: str) -> str:
    """The message: the request's first line after PREFIX, in one subject line."""
    first = next((line.strip() for line in request.splitlines() if line.strip()), "")
    return PREFIX + cut_line(" ".join(first.split()), MAX_SUBJECT - len(PREFIX))
