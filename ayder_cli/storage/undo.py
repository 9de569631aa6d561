"""The undo journal: what every tool write replaced, so /undo can put it back.

Each entry says what the file was before the tool wrote it: its old bytes and
mode, or that the tool created it. undo() restores the newest entry
atomically, and can be repeated back to the session's first change.

With a store (undo_store.UndoStore, beside the session transcript) each entry
is on disk before the tool writes, so /undo works after a restart or a kill;
without one, or when the disk refuses, the entry lives in memory for this run.
Old content is kept for files up to max_file_bytes and up to max_total_bytes
per session: beyond that the oldest entries lose their content first and stay
listed, marked as not restorable.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

from ayder_cli.errors import AyderError
from ayder_cli.storage.atomic import fsync_directory, replace_with
from ayder_cli.storage.no_follow import PlantedLink

MAX_FILE_BYTES = 8 * 1024 * 1024  # a bigger file's old content is not kept (its entry says so)
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # old contents kept per session; the oldest go first beyond it
MAX_ENTRIES = 1000  # entries per session; the oldest are forgotten beyond it


class UndoError(AyderError):
    """Nothing to undo, or the newest change cannot be undone safely."""


@dataclass(eq=False)
class UndoEntry:
    number: int  # its place in the session's journal, from 1; names its content on disk
    path: Path  # the real path written
    display: str  # as the user sees it, relative to the project root
    tool: str
    created: bool  # the tool created the file: undo removes it
    mode: int | None = None  # permission bits of the previous file
    size: int = 0  # bytes of the previous content
    previous_digest: str | None = None  # sha256 of the previous content
    written_digest: str | None = None  # sha256 of what the tool wrote, to notice later changes
    made_dirs: tuple[Path, ...] = ()  # directories created for a new file, outermost first
    at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))  # when the tool wrote
    run: str = ""  # which run of the session made it
    not_kept: str = ""  # why the previous content is not kept ("": it is)
    not_saved: str = ""  # why the previous content is kept in memory only, never on disk ("": it is saved)
    previous: bytes | None = None  # the previous content while it is held in memory
    saved: bool = False  # the entry (and its content) is in the store

    @property
    def restorable(self) -> bool:
        return self.created or not self.not_kept

    def describe(self) -> str:
        if self.created:
            return f"{self.display} (created by {self.tool})"
        return f"{self.display} ({self.tool})"


class JournalStore(Protocol):
    """Where entries are kept between runs (undo_store.UndoStore)."""

    def load(self) -> tuple[list[UndoEntry], int, list[str]]: ...
    def save(self, entries: list[UndoEntry], next_number: int) -> None: ...
    def put_content(self, entry: UndoEntry, data: bytes) -> None: ...
    def read_content(self, entry: UndoEntry) -> bytes: ...
    def drop_content(self, entry: UndoEntry) -> None: ...


def _ignore(message: str) -> None:
    pass


class UndoJournal:
    def __init__(
        self,
        store: JournalStore | None = None,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        max_entries: int = MAX_ENTRIES,
        warn: Callable[[str], None] = _ignore,
        holds_secret: Callable[[bytes], bool] = lambda data: False,
    ) -> None:
        self.store = store
        self.holds_secret = holds_secret  # such old content is never written to the store
        self.max_file_bytes = max_file_bytes
        self.max_total_bytes = max_total_bytes
        self.max_entries = max_entries
        self.warn = warn
        self.run = secrets.token_hex(4)  # entries made by another run show as "earlier run"
        self._entries: list[UndoEntry] = []
        self._next_number = 1
        self.undone: list[Path] = []  # the files undo() restored in this run: /commit takes them too

    def load(self) -> list[str]:
        """Take up the entries an earlier run left in the store; returns a warning for each problem."""
        if self.store is None:
            return []
        self._entries, self._next_number, warnings = self.store.load()
        return warnings

    def record(
        self,
        path: Path,
        previous: bytes | None,
        mode: int | None,
        tool: str,
        *,
        display: str | None = None,
        new: bytes | None = None,
        made_dirs: tuple[Path, ...] = (),
    ) -> UndoEntry:
        """Remember what path held before tool writes it (call before the write)."""
        entry = UndoEntry(
            number=self._next_number,
            path=Path(path),
            display=display or str(path),
            tool=tool,
            created=previous is None,
            mode=mode,
            size=len(previous or b""),
            previous_digest=_digest(previous) if previous is not None else None,
            written_digest=_digest(new) if new is not None else None,
            made_dirs=tuple(made_dirs),
            run=self.run,
        )
        self._next_number += 1
        if previous is not None and len(previous) > self.max_file_bytes:
            entry.not_kept = f"over the {_megabytes(self.max_file_bytes)} limit for one file"
        elif previous is not None:
            entry.previous = previous
        self._entries.append(entry)
        self._trim()
        self._save(entry)
        return entry

    def discard(self, entry: UndoEntry) -> None:
        """Forget an entry whose write did not happen."""
        if entry in self._entries:
            self._forget(entry)

    def entries(self) -> list[UndoEntry]:
        """Oldest first."""
        return list(self._entries)

    def is_earlier(self, entry: UndoEntry) -> bool:
        """Whether an earlier run of this session made the entry (it came back with --continue/--resume)."""
        return entry.run != self.run

    def __len__(self) -> int:
        return len(self._entries)

    def first_changes(self) -> list[UndoEntry]:
        """Each file's oldest entry, in the order the files were first changed (what /diff compares with)."""
        first: dict[Path, UndoEntry] = {}
        for entry in self._entries:
            first.setdefault(entry.path, entry)
        return list(first.values())

    def content_before(self, entry: UndoEntry) -> bytes | None:
        """What the file held before the entry's write; None: the tool created it. UndoError when not kept."""
        if entry.created:
            return None
        if not entry.restorable:
            raise UndoError(f"the content of {entry.display} before {entry.tool} was not kept ({entry.not_kept})")
        return self._previous(entry)

    def undo(self, force: bool = False) -> str:
        """Restore the newest change and say what was done, in one line.

        UndoError when there is nothing to undo, or when the file changed after the
        tool wrote it (force=True restores it anyway) -- the entry then stays. An
        entry whose old content was not kept is taken off the list with an UndoError.
        """
        if not self._entries:
            raise UndoError("nothing to undo", "no file has been changed by a tool in this session")
        entry = self._entries[-1]
        if not entry.restorable:
            self._forget(entry)
            raise UndoError(f"cannot restore {entry.describe()}: its old content was not kept ({entry.not_kept})",
                            "it is taken off the list; /undo again undoes the change before it")
        if entry.path.resolve() != entry.path:
            raise UndoError(f"{entry.display} is now reached through a symbolic link; not undone",
                            "restore it by hand")
        if _holds_previous(entry):  # the write never happened (a kill came first), or was undone already
            if entry.created:
                _remove(entry)  # the directories made for it, if the kill left them
            self._forget(entry)
            return f"{entry.display} already is as it was before {entry.tool}; nothing to restore"
        if not force and _changed_since(entry):
            raise UndoError(
                f"{entry.display} changed after {entry.tool} wrote it; not undone",
                "/undo force restores it anyway (the later changes are lost)",
            )
        done = self._restore(entry)
        self._forget(entry)
        self.undone.append(entry.path)
        return done

    # ---- restoring

    def _restore(self, entry: UndoEntry) -> str:
        try:
            if entry.created:
                _remove(entry)
                fsync_directory(entry.path.parent)
                return f"removed {entry.display} (created by {entry.tool})"
            previous = self._previous(entry)
            entry.path.parent.mkdir(parents=True, exist_ok=True)
            replace_with(entry.path, previous, entry.mode)
            return f"restored {entry.display} ({entry.tool})"
        except (OSError, PlantedLink) as exc:
            raise UndoError(f"cannot undo {entry.describe()}: {getattr(exc, 'strerror', None) or exc}") from None

    def _previous(self, entry: UndoEntry) -> bytes:
        if entry.previous is not None:
            return entry.previous
        data = self.store.read_content(entry) if self.store is not None else b""
        if _digest(data) != entry.previous_digest:
            raise UndoError(f"cannot undo {entry.describe()}: its saved old content is damaged",
                            "the file is left as it is")
        return data

    # ---- keeping the journal within its limits, in memory and on disk

    def _trim(self) -> None:
        """Oldest first: entries beyond max_entries go, then old contents beyond max_total_bytes."""
        while len(self._entries) > self.max_entries:
            self._forget(self._entries[0], save=False)
        kept = sum(entry.size for entry in self._entries if entry.restorable and not entry.created)
        for entry in self._entries[:-1]:  # the newest is within the one-file limit, so it always fits
            if kept <= self.max_total_bytes:
                break
            if entry.created or entry.not_kept:
                continue
            kept -= entry.size
            entry.not_kept = f"dropped to keep this session's undo journal under {_megabytes(self.max_total_bytes)}"
            entry.previous = None
            self._drop_content(entry)

    def _save(self, entry: UndoEntry) -> None:
        """Put a new entry on disk; if the disk refuses, it stays in memory for this run only."""
        if self.store is None:
            return
        entry.saved = True  # the index written next lists it
        if entry.previous is not None and self.holds_secret(entry.previous):
            # Undone from memory in this run; after it, the entry says why it cannot be.
            entry.not_saved = "it held the API key, which ayder never writes to disk"
        try:
            if entry.previous is not None and not entry.not_saved:
                self.store.put_content(entry, entry.previous)
            self.store.save(self._saved_entries(), self._next_number)
        except (OSError, PlantedLink) as exc:  # a planted link: refused, kept in memory as a full disk is
            entry.saved = False
            self.warn(f"the undo journal could not save what {entry.tool} replaced in {entry.display} "
                      f"({getattr(exc, 'strerror', None) or exc}); undo of this change is unavailable after ayder exits")
            return
        if not entry.not_saved:
            entry.previous = None  # read back from the store when /undo needs it

    def _forget(self, entry: UndoEntry, save: bool = True) -> None:
        self._entries.remove(entry)
        if entry.saved and save:
            self._save_index()
        self._drop_content(entry)

    def _drop_content(self, entry: UndoEntry) -> None:
        if self.store is not None and entry.saved:
            try:
                self.store.drop_content(entry)
            except (OSError, PlantedLink):
                pass  # an orphan file, removed when the journal is next loaded

    def _save_index(self) -> None:
        if self.store is None:
            return
        try:
            self.store.save(self._saved_entries(), self._next_number)
        except (OSError, PlantedLink) as exc:
            self.warn(f"the undo journal on disk could not be updated ({getattr(exc, 'strerror', None) or exc}); "
                      "/undo in this run is not affected")

    def _saved_entries(self) -> list[UndoEntry]:
        return [entry for entry in self._entries if entry.saved]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


def _current_digest(path: Path) -> str | None:
    """The sha256 of the file now at path; None when there is none (or it cannot be read)."""
    try:
        return _digest(path.read_bytes())
    except OSError:
        return None


def _holds_previous(entry: UndoEntry) -> bool:
    """Whether the file is already what it was before the tool wrote it."""
    if entry.created:
        return not entry.path.exists() and not entry.path.is_symlink()
    return entry.previous_digest is not None and _current_digest(entry.path) == entry.previous_digest


def _changed_since(entry: UndoEntry) -> bool:
    """Whether the file no longer holds what the tool wrote (edited by hand, or removed)."""
    if entry.written_digest is None:
        return False
    return _current_digest(entry.path) != entry.written_digest


def _remove(entry: UndoEntry) -> None:
    try:
        entry.path.unlink()
    except FileNotFoundError:
        pass
    for directory in reversed(entry.made_dirs):  # innermost first; only if still empty
        try:
            directory.rmdir()
        except OSError:
            break
