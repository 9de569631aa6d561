"""The transcripts of a project (`SessionStore`: list, find, prune, names) and the one being written
(`Session`: append, lock, name). The file format and reading it back: transcript.py.

Each message is written, flushed and fsynced the moment it is appended, so a
crash loses at most the message being written. The file is created on the
first append (and the session locked then); a new session that never got a
reply (no server, a bad key) is removed when the run ends
(`close(keep_unanswered=False)`), so it leaves nothing behind. A new session's
first reply prunes the project's sessions to the newest `max_sessions` (those
another ayder is writing are kept). Names given with `/save NAME` live in
`names.json` beside the transcripts.

Beside each transcript: `<file stem>.lock` while a run writes to it (one
writer per session, see session_lock.py) and `<file stem>.undo/`, the
session's undo journal (see undo_store.py).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ayder_cli.masking import masked_within
from ayder_cli.storage.atomic import append_record, replace_with
from ayder_cli.storage.layout import Layout, make_directory
from ayder_cli.storage.no_follow import PlantedLink, check_no_links
from ayder_cli.storage.session_lock import LockHolder, SessionLock, pid_alive, read_holder
from ayder_cli.storage.transcript import (
    FILE_NAME,
    SessionError,
    SessionNotFound,
    ends_torn,
    first_prompt,
    header,
    load,
    new_file_name,
    session_id_of,
    started_at,
    usage_record,
)
from ayder_cli.wording import byte_size

NAMES_FILE = "names.json"
DEFAULT_KEEP = 100

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_LISTED_IN_ERRORS = 10


class SessionInUse(SessionError):
    """Another ayder holds the session's lock: it is the one appending to it."""


@dataclass(frozen=True)
class SessionInfo:
    path: Path
    id: str
    started: datetime  # UTC
    first_prompt: str  # the first user message, on one line, at most transcript.PROMPT_WIDTH characters
    messages: int
    size: int  # bytes
    names: tuple[str, ...] = field(default=())  # names given with /save

    def describe(self) -> str:
        """One line for /sessions."""
        names = f" [{', '.join(self.names)}]" if self.names else ""
        prompt = self.first_prompt or "(no prompt)"
        return (f"{self.id}{names}  {self.started:%Y-%m-%d %H:%M}  "
                f"{self.messages} msgs  {byte_size(self.size)}  {prompt}")


def _identity(text: str) -> str:
    return text


class SessionStore:
    """The transcripts of one project."""

    def __init__(self, root: str | os.PathLike[str], redact: Callable[[str], str] = _identity,
                 keep: int = DEFAULT_KEEP) -> None:
        self.root = Path(root)
        self.directory = Layout(self.root).sessions
        self.redact = redact
        self.keep = keep  # sessions kept per project; older ones go when a new one is created

    # ---- writing

    def start(self) -> Session:
        """A new session; its file appears with the first append."""
        taken = {info_id for _, info_id in self._files()}
        session_id = secrets.token_hex(3)
        while session_id in taken:
            session_id = secrets.token_hex(3)
        return Session(self.directory / new_file_name(session_id), self, new=True)

    def prune(self, spare: Path | None = None) -> list[Path]:
        """Delete all but the newest `keep` sessions (with their lock and undo journal); a session
        another ayder is writing, and spare, stay. The paths deleted."""
        files = sorted((path for path, _ in self._files()),
                       key=lambda path: (_mtime_ns(path), path.name), reverse=True)
        deleted = []
        for path in files[max(self.keep, 1):]:
            if path == spare or _in_use(path):
                continue
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError:
                continue
            shutil.rmtree(path.with_suffix(".undo"), ignore_errors=True)
            try:
                path.with_suffix(".lock").unlink()
            except OSError:
                pass
            deleted.append(path)
        return deleted

    # ---- reading

    def latest(self) -> Path | None:
        """The session written to most recently (ties: the one started later)."""
        files = [path for path, _ in self._files()]
        if not files:
            return None
        return max(files, key=lambda path: (_mtime_ns(path), path.name))

    def find(self, identifier: str | os.PathLike[str]) -> Path:
        """A session by /save name, id, unique prefix of its file name or id, or by its path."""
        text = str(identifier).strip()
        if not text:
            raise SessionNotFound("no session given", hint="pass a session id, name or file name; /sessions lists them")
        as_path = Path(text).expanduser()
        if text.endswith(".jsonl") and as_path.is_file():
            return as_path
        files = self._files()
        names = self._read_names()
        if text in names:
            path = self.directory / names[text]
            if path.is_file():
                return path
            raise SessionNotFound(f"the session named {text!r} ({names[text]}) no longer exists",
                                  hint="/sessions lists the sessions there are")
        exact = [path for path, session_id in files if session_id == text]
        if len(exact) == 1:
            return exact[0]
        matches = exact or [path for path, session_id in files
                            if path.name.startswith(text) or session_id.startswith(text)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise SessionNotFound(f"no session matches {text!r}", hint=self._candidates_hint(files))
        matches.sort(key=lambda path: path.name)
        listed = ", ".join(session_id_of(path) for path in matches[:_LISTED_IN_ERRORS])
        more = f" and {len(matches) - _LISTED_IN_ERRORS} more" if len(matches) > _LISTED_IN_ERRORS else ""
        raise SessionNotFound(f"{text!r} matches {len(matches)} sessions: {listed}{more}",
                              hint="type the whole id; /sessions lists them")

    def list_sessions(self) -> list[SessionInfo]:
        """Every session of this project, newest first."""
        names_by_file: dict[str, list[str]] = {}
        for name, file_name in sorted(self._read_names().items()):
            names_by_file.setdefault(file_name, []).append(name)
        infos = []
        for path, session_id in self._files():
            try:
                size = path.stat().st_size
                messages, _ = load(path)
            except (OSError, SessionError):
                continue  # vanished or unreadable while we looked
            infos.append(SessionInfo(
                path=path,
                id=session_id,
                started=started_at(path),
                first_prompt=first_prompt(messages),
                messages=len(messages),
                size=size,
                names=tuple(names_by_file.get(path.name, ())),
            ))
        infos.sort(key=lambda info: (_mtime_ns(info.path), info.path.name), reverse=True)
        return infos

    # ---- names

    def _names_path(self) -> Path:
        return self.directory / NAMES_FILE

    def _read_names(self) -> dict[str, str]:
        try:
            data = json.loads(self._names_path().read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise SessionError(f"cannot read {self._names_path()}: {error}",
                               hint="fix or delete the file; the transcripts themselves are untouched") from error
        if not isinstance(data, dict):
            return {}
        return {str(key): str(value) for key, value in data.items() if isinstance(value, str)}

    def _write_names(self, names: dict[str, str]) -> None:
        make_directory(self.directory)
        text = json.dumps(names, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        replace_with(self._names_path(), text.encode("utf-8"), 0o600)

    # ---- helpers

    def _files(self) -> list[tuple[Path, str]]:
        """(path, id) of every session file; PlantedLink if the folder is a link (prune would delete there)."""
        check_no_links(self.directory, directory=True)
        try:
            entries = list(self.directory.iterdir())
        except FileNotFoundError:
            return []
        except OSError as error:
            raise SessionError(f"cannot list {self.directory}: {error}") from error
        found = []
        for path in entries:
            match = FILE_NAME.match(path.name)
            if match and path.is_file():
                found.append((path, match["id"]))
        return found

    def _candidates_hint(self, files: list[tuple[Path, str]]) -> str:
        if not files:
            return f"there are no sessions in {self.directory} yet"
        newest = [session_id for _, session_id in
                  sorted(files, key=lambda item: (_mtime_ns(item[0]), item[0].name), reverse=True)][:_LISTED_IN_ERRORS]
        return ("sessions there are (newest first): " + ", ".join(newest)
                + (" ..." if len(files) > len(newest) else ""))


class Session:
    """One transcript being written."""

    def __init__(self, path: Path, store: SessionStore, *, new: bool) -> None:
        self.path = Path(path)
        self.store = store
        self.id = session_id_of(self.path)
        self._new = new  # the header is still to be written
        self._created = False  # this run made the file
        self._answered = not new  # a reply (or a /save name) is in it: it is worth keeping
        self._checked_end = new  # a resumed file may end in a torn line
        self._lock = SessionLock(self.path.with_suffix(".lock"))
        self.lock_error: str | None = None  # why this session could not be locked (a filesystem without locks)

    @property
    def undo_dir(self) -> Path:
        """Where this session's undo journal is kept, beside the transcript."""
        return self.path.with_suffix(".undo")

    def lock(self) -> LockHolder | None:
        """Become the session's one writer: None once this run holds the lock, else who holds it.

        Where the filesystem cannot lock, the session goes on unlocked and lock_error says why.
        """
        if self._lock.held or self.lock_error is not None:
            return None
        try:
            return self._lock.acquire()
        except OSError as error:
            self.lock_error = str(error)
            return None

    def close(self, keep_unanswered: bool = True) -> None:
        """The run is done with this session: another ayder may write to it now.

        keep_unanswered False: a session this run created that never got a reply (the server was
        not there, the key was wrong) is deleted first, so such a run leaves no transcript."""
        if not keep_unanswered and self._created and not self._answered and self._lock.held:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                pass
            shutil.rmtree(self.undo_dir, ignore_errors=True)
        self._lock.release()

    @classmethod
    def resume(cls, path: str | os.PathLike[str], redact: Callable[[str], str] = _identity) -> Session:
        """Go on appending to the transcript at path."""
        path = Path(path)
        check_no_links(path)  # a planted <id>.jsonl link: its target is neither read nor appended to
        if not path.is_file():
            raise SessionNotFound(f"no session file {path}", hint="/sessions lists the sessions there are")
        # <root>/.ayder/sessions/<file>: the store is the one of that project
        return cls(path, SessionStore(path.parent.parent.parent, redact), new=False)

    def append(self, message: dict[str, Any]) -> None:
        """Write one message as one line, on disk before this returns."""
        line = json.dumps(masked_within(message, self.store.redact), ensure_ascii=False) + "\n"
        self._write(line)
        if message.get("role") != "user" and not self._answered:
            self._answered = True
            if self._created:  # a session worth keeping: the oldest ones beyond max_sessions go
                try:
                    self.store.prune(spare=self.path)
                except (OSError, SessionError):
                    pass  # housekeeping: the transcript itself is written

    def append_usage(self, totals: dict[str, int], reply: dict[str, Any] | None = None) -> None:
        """Record the session's token totals so far (read back by usage_of), and the last reply's model,
        finish reason and tokens."""
        self._write(json.dumps(usage_record(totals, reply), ensure_ascii=False) + "\n")

    def name(self, name: str) -> None:
        """Give this session a name find() knows (/save NAME); saving the same name again is fine."""
        if not _NAME_RE.match(name):
            raise SessionError(f"not a usable session name: {name!r}",
                               hint="use letters, digits, '.', '_' or '-' (up to 64, starting with a letter or digit)")
        if FILE_NAME.match(name + ".jsonl") or re.fullmatch(r"[0-9a-f]{6}", name):
            raise SessionError(f"{name!r} looks like a session id", hint="pick a name that is not a file name or id")
        names = self.store._read_names()
        taken_by = names.get(name)
        if taken_by and taken_by != self.path.name and (self.store.directory / taken_by).is_file():
            raise SessionError(f"the name {name!r} is already used by session {taken_by}",
                               hint="pick another name")
        self._write("")  # the file exists once it has a name
        self._answered = True  # a named session is kept, answered or not
        names[name] = self.path.name
        try:
            self.store._write_names(names)
        except OSError as error:
            raise SessionError(f"cannot save the session name in {self.store._names_path()}: {error}") from error

    def _write(self, text: str) -> None:
        try:
            self._append(text)
        except PlantedLink as error:  # the lock, the transcript or a folder above them is a link
            raise SessionError(error.message, hint=error.hint) from None

    def _append(self, text: str) -> None:
        holder = self.lock()  # before the file exists: no one else can start appending to it
        if holder is not None:
            raise SessionInUse(f"session {self.id} is in use by {holder.describe()}",
                               hint="the conversation goes on; nothing more is written to that session")
        prefix = ""
        if self._new:
            first = header(self.path, self.store.root)
            prefix = json.dumps(masked_within(first, self.store.redact), ensure_ascii=False) + "\n"
        elif not self._checked_end and ends_torn(self.path):
            prefix = "\n"  # end the torn line, so the new message gets a line of its own
        created = self._new
        data = (prefix + text).encode("utf-8")
        try:
            append_record(self.path, data)
        except OSError as error:
            raise SessionError(f"cannot write the transcript {self.path}: {error}",
                               hint="the conversation goes on; this message is missing from the transcript") from error
        self._new = False
        self._checked_end = True
        if created:
            self._created = True


def _in_use(path: Path) -> bool:
    """Another ayder may hold the session's lock: its lock file is there and names a live process."""
    lock_path = path.with_suffix(".lock")
    if not lock_path.exists():
        return False
    holder = read_holder(lock_path)
    return holder.pid is None or pid_alive(holder.pid)


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0

