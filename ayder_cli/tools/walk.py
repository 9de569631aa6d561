"""The walk of a project that honours .gitignore (gitignore.py): one directory (scan), every
directory below one (walk_entries, walk). Symlinks are listed, never followed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, NamedTuple

from ayder_cli.tools.deadline import Deadline
from ayder_cli.tools.gitignore import IgnoreRules, ignored_by, never_shown


class Entry(NamedTuple):
    """One entry the walk yields (a tuple: the walk makes one per file, and a tuple is made fastest)."""

    rel: str  # root-relative, `/`-separated
    path: str  # absolute
    name: str
    kind: str  # "dir" (a real directory), "file", "link" (any symlink) or "other"

    def points_to_dir(self) -> bool:
        """A directory, or a link to one (shown with a trailing / though never followed)."""
        return self.kind == "dir" or (self.kind == "link" and os.path.isdir(self.path))


def scan(rules: IgnoreRules, directory: str) -> tuple[list[Entry], int]:
    """The entries of one directory (root-relative) that are not ignored, sorted by name,
    and how many were ignored. OSError propagates (the caller says what it could not read)."""
    absolute = os.path.join(rules.root, directory) if directory else str(rules.root)
    chain = rules.chain(directory)
    prefix = directory + "/" if directory else ""
    kept: list[Entry] = []
    ignored = 0
    with os.scandir(absolute) as found:
        for item in found:
            rel = prefix + item.name
            if never_shown(item.name, rel):
                continue
            kind = _kind(item)
            if chain and ignored_by(chain, rel, item.name, kind == "dir"):
                ignored += 1
                continue
            kept.append(Entry(rel, item.path, item.name, kind))
    kept.sort(key=lambda entry: entry.name)
    return kept, ignored


def _kind(item: os.DirEntry) -> str:
    try:
        if item.is_symlink():
            return "link"
        if item.is_dir(follow_symlinks=False):
            return "dir"
        if item.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


def walk_entries(rules: IgnoreRules, start: str = "", max_depth: int | None = None,
                 deadline: Deadline | None = None) -> Iterator[Entry]:
    """Depth first, each directory's entries sorted by name, below the root-relative `start`.

    Ignored entries are skipped and ignored directories never entered. Symlinks are yielded
    but never followed, so the walk stays inside the root and cannot loop. Directories that
    cannot be read are skipped. `start` itself is not checked: naming it asks for it.
    max_depth 1 yields start's own entries only. Past the `deadline` no further directory is
    read and the walk ends (the caller sees `deadline.hit`); start's own entries always come.
    """
    stack = [(iter(_scan_quietly(rules, start)), 1)]
    while stack:
        entries, depth = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        yield entry
        if entry.kind == "dir" and (max_depth is None or depth < max_depth):
            if deadline is not None and deadline.passed():
                return
            stack.append((iter(_scan_quietly(rules, entry.rel)), depth + 1))


def _scan_quietly(rules: IgnoreRules, directory: str) -> list[Entry]:
    try:
        return scan(rules, directory)[0]
    except OSError:  # unreadable: nothing to show from it
        return []


def walk(root: Path, start_dir: Path | str | None = None) -> Iterator[tuple[Path, bool]]:
    """(path, is_dir) for every entry under start_dir (default: the root) that .gitignore
    does not exclude; is_dir is True for real directories only (symlinks are not followed)."""
    rules = IgnoreRules.for_root(root)
    start = "" if start_dir is None else _relative(rules.root, Path(start_dir))
    for entry in walk_entries(rules, start):
        yield Path(entry.path), entry.kind == "dir"


def _relative(root: Path, path: Path) -> str:
    absolute = (root / path).resolve() if not path.is_absolute() else path.resolve()
    if not absolute.is_relative_to(root):
        raise ValueError(f"{path} is outside {root}")
    rel = absolute.relative_to(root).as_posix()
    return "" if rel == "." else rel
