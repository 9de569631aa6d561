"""Where a session's undo journal is kept between runs: `<session>.undo/` beside its transcript.

    index.json   {"version": 1, "next": 13, "entries": [{...}, ...]}, oldest first
    000012.old   the bytes that entry 12's write replaced (while its content is kept)

Both are written atomically (temporary file, fsync, rename) and private to the
user. A content file is written before the index that names it, so a crash
leaves a whole journal -- at worst with a file no entry names, removed at the
next load. Paths are stored relative to the project root and checked against
it when read back: a journal edited by hand, or committed to a repository,
cannot make /undo write outside the project or into .git.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ayder_cli.storage.atomic import replace_with
from ayder_cli.storage.layout import make_directory
from ayder_cli.storage.no_follow import check_no_links
from ayder_cli.storage.undo import UndoEntry

INDEX_NAME = "index.json"
FORMAT_VERSION = 1
CONTENT_SUFFIX = ".old"
PRIVATE_FILE = 0o600
PRIVATE_DIRECTORY = 0o700


class UndoStore:
    """The on-disk side of one session's UndoJournal."""

    def __init__(self, directory: Path, root: Path) -> None:
        self.directory = Path(directory)
        self.root = Path(root).resolve()

    # ---- writing

    def save(self, entries: list[UndoEntry], next_number: int) -> None:
        """Replace the index with these entries (oldest first)."""
        document = {"version": FORMAT_VERSION, "next": next_number,
                    "entries": [self._to_json(entry) for entry in entries]}
        self._make_directory()
        text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
        replace_with(self.directory / INDEX_NAME, text.encode("utf-8"), PRIVATE_FILE)

    def put_content(self, entry: UndoEntry, data: bytes) -> None:
        self._make_directory()
        replace_with(self._content_path(entry.number), data, PRIVATE_FILE)

    def read_content(self, entry: UndoEntry) -> bytes:
        check_no_links(self._content_path(entry.number))
        return self._content_path(entry.number).read_bytes()

    def drop_content(self, entry: UndoEntry) -> None:
        check_no_links(self.directory, directory=True)
        self._content_path(entry.number).unlink(missing_ok=True)

    # ---- reading

    def load(self) -> tuple[list[UndoEntry], int, list[str]]:
        """(entries oldest first, the next entry number, a warning for each problem found).
        PlantedLink if the journal's folder is a link: its orphans would be deleted wherever it points."""
        check_no_links(self.directory, directory=True)
        index = self.directory / INDEX_NAME
        try:
            document = json.loads(index.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return [], 1, []
        except (OSError, ValueError) as error:
            return [], 1, [f"cannot read the undo journal {index} ({error}); /undo starts empty"]
        if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
            return [], 1, [f"{index} is not an undo journal this ayder reads; /undo starts empty"]
        entries, warnings = self._entries_of(document.get("entries"))
        next_number = max([document.get("next") if isinstance(document.get("next"), int) else 1,
                           *(entry.number + 1 for entry in entries)])
        self._remove_orphans(entries)
        return entries, next_number, warnings

    def _entries_of(self, items: Any) -> tuple[list[UndoEntry], list[str]]:
        entries, warnings = [], []
        for position, item in enumerate(items if isinstance(items, list) else [], start=1):
            try:
                entry = self._from_json(item)
            except (KeyError, TypeError, ValueError) as error:
                warnings.append(f"undo journal {self.directory}: skipped entry {position} ({error})")
                continue
            if not entry.created and not entry.not_kept and not self._content_path(entry.number).is_file():
                entry.not_kept = "its saved copy is missing"
            entries.append(entry)
        return entries, warnings

    def _remove_orphans(self, entries: list[UndoEntry]) -> None:
        """Content files no entry names: left by a crash between writing one and the index."""
        named = {self._content_path(entry.number).name for entry in entries}
        for path in self.directory.glob(f"*{CONTENT_SUFFIX}"):
            if path.name not in named:
                try:
                    path.unlink()
                except OSError:
                    pass

    # ---- the JSON of one entry

    def _to_json(self, entry: UndoEntry) -> dict[str, Any]:
        return {
            "number": entry.number,
            "path": self._relative(entry.path),
            "display": entry.display,
            "tool": entry.tool,
            "created": entry.created,
            "mode": entry.mode,
            "size": entry.size,
            "previous_digest": entry.previous_digest,
            "written_digest": entry.written_digest,
            "made_dirs": [self._relative(directory) for directory in entry.made_dirs],
            "at": entry.at.isoformat(),
            "run": entry.run,
            "not_kept": entry.not_kept or entry.not_saved,
        }

    def _from_json(self, item: dict[str, Any]) -> UndoEntry:
        number = item["number"]
        if not isinstance(number, int) or number < 1:
            raise ValueError(f"bad number {number!r}")
        mode = item.get("mode")
        if mode is not None and not isinstance(mode, int):
            raise ValueError(f"bad mode {mode!r}")
        return UndoEntry(
            number=number,
            path=self._inside_root(item["path"]),
            display=str(item.get("display") or item["path"]),
            tool=str(item["tool"]),
            created=bool(item["created"]),
            mode=mode,
            size=int(item.get("size") or 0),
            previous_digest=_optional_text(item.get("previous_digest")),
            written_digest=_optional_text(item.get("written_digest")),
            made_dirs=tuple(self._inside_root(directory) for directory in item.get("made_dirs") or []),
            at=datetime.fromisoformat(item["at"]),
            run=str(item.get("run") or ""),
            not_kept=str(item.get("not_kept") or ""),
            saved=True,
        )

    def _relative(self, path: Path) -> str:
        return Path(path).relative_to(self.root).as_posix()

    def _inside_root(self, relative: Any) -> Path:
        """The real path a stored relative path names, if it is one a tool could have written."""
        if not isinstance(relative, str) or not relative or Path(relative).is_absolute():
            raise ValueError(f"not a path inside the project: {relative!r}")
        path = (self.root / relative).resolve()
        if path == self.root or not path.is_relative_to(self.root) or ".git" in path.relative_to(self.root).parts:
            raise ValueError(f"not a path inside the project: {relative!r}")
        return path

    # ---- places

    def _content_path(self, number: int) -> Path:
        return self.directory / f"{number:06d}{CONTENT_SUFFIX}"

    def _make_directory(self) -> None:
        make_directory(self.directory, mode=PRIVATE_DIRECTORY)


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
