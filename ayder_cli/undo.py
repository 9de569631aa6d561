"""The undo journal: what every tool write replaced, so /undo can put it back.

Kept in memory for the session only. Each entry holds the file's previous
bytes (None when the tool created it) and mode; undo() restores the newest
entry atomically, and can be repeated back to the session's first change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ayder_cli.errors import AyderError

DEFAULT_MAX_BYTES = 256 * 1024 * 1024  # previous contents kept; the oldest entries go beyond it


class UndoError(AyderError):
    """Nothing to undo, or the newest change cannot be undone safely."""


@dataclass(frozen=True, eq=False)
class UndoEntry:
    path: Path  # the real path written
    display: str  # as the user sees it, relative to the project root
    previous: bytes | None  # None: the tool created the file
    mode: int | None  # permission bits of the previous file
    tool: str
    written_digest: str | None = None  # sha256 of what the tool wrote, to notice later changes
    made_dirs: tuple[Path, ...] = ()  # directories created for a new file, outermost first

    def describe(self) -> str:
        if self.previous is None:
            return f"{self.display} (created by {self.tool})"
        return f"{self.display} ({self.tool})"


class UndoJournal:
    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._entries: list[UndoEntry] = []
        self.max_bytes = max_bytes
        self.dropped = 0  # entries forgotten to stay under max_bytes

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
            path=Path(path),
            display=display or str(path),
            previous=previous,
            mode=mode,
            tool=tool,
            written_digest=_digest(new) if new is not None else None,
            made_dirs=tuple(made_dirs),
        )
        self._entries.append(entry)
        self._trim()
        return entry

    def discard(self, entry: UndoEntry) -> None:
        """Forget an entry whose write did not happen."""
        if entry in self._entries:
            self._entries.remove(entry)

    def entries(self) -> list[UndoEntry]:
        """Oldest first."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def undo(self, force: bool = False) -> str:
        """Restore the newest change and say what was done, in one line.

        UndoError when there is nothing to undo, or when the file changed after the
        tool wrote it (force=True restores it anyway) -- the entry then stays.
        """
        from ayder_cli.tools.atomic import fsync_directory, replace_with

        if not self._entries:
            raise UndoError("nothing to undo", "no file has been changed by a tool in this session")
        entry = self._entries[-1]
        if not force and _changed_since(entry):
            raise UndoError(
                f"{entry.display} changed after {entry.tool} wrote it; not undone",
                "/undo force restores it anyway (the later changes are lost)",
            )
        try:
            if entry.previous is None:
                _remove(entry)
                fsync_directory(entry.path.parent)
                done = f"removed {entry.display} (created by {entry.tool})"
            else:
                entry.path.parent.mkdir(parents=True, exist_ok=True)
                replace_with(entry.path, entry.previous, entry.mode)
                done = f"restored {entry.display} ({entry.tool})"
        except OSError as exc:
            raise UndoError(f"cannot undo {entry.describe()}: {exc.strerror or exc}") from None
        self._entries.pop()
        return done

    def _trim(self) -> None:
        kept = sum(len(e.previous or b"") for e in self._entries)
        while kept > self.max_bytes and len(self._entries) > 1:
            kept -= len(self._entries[0].previous or b"")
            del self._entries[0]
            self.dropped += 1


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _changed_since(entry: UndoEntry) -> bool:
    """Whether the file no longer holds what the tool wrote (edited by hand, or removed)."""
    if entry.written_digest is None:
        return False
    try:
        return _digest(entry.path.read_bytes()) != entry.written_digest
    except OSError:
        return True


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
